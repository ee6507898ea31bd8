// Keys, tickets and sensitive answers never reach the logs, at any level, whatever happens:
// asks, answers, callbacks, bad keys, internal errors.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { createServer } from '../../src/app/server.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { KEYS, PRINCIPALS } from '../support/server.ts';

describe('logs', () => {
  it('never contain a key, a ticket or a sensitive answer', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const config = {
      ...loadConfig({
        INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
        INTERACTIONS_REDIS_URL: inject('redisUrl'),
        INTERACTIONS_KEY_PREFIX: uniquePrefix(),
        INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:4000',
        INTERACTIONS_VERIFIER_SECRETS: 'UNSET_FOR_THIS_TEST',
      }),
      port: 0,
    };
    const server = await createServer(config, logger);
    const gql = (key: string, query: string) =>
      server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: { query },
      });
    try {
      const secretAnswer = 'correct-horse-battery-staple-42';
      const sensitive = (
        await gql(
          KEYS.agent,
          'mutation { askUser(input: {text: "PIN?", sensitive: true}, holdSeconds: 0) { question { id } } }',
        )
      ).json();
      const id = sensitive.data.askUser.question.id;
      await gql(KEYS.ops, `mutation { answer(id: "${id}", answer: "${secretAnswer}") { id } }`);
      await gql(KEYS.agent, `{ awaitAnswer(id: "${id}", holdSeconds: 0) { answer } }`);
      const ext = (
        await gql(
          KEYS.agent,
          'mutation { askUser(input: {text: "Sign", format: EXTERNAL, link: "https://s.example/{callback_url}", verifier: {name: "hmac-sha256", config: {secretEnv: "UNSET_FOR_THIS_TEST"}}}, holdSeconds: 0) { callbackUrl } }',
        )
      ).json();
      const ticket = ext.data.askUser.callbackUrl.split('/').at(-1);
      // a verifier that cannot run is logged (an error), a bad key is refused, a bad body is refused
      await server.inject({
        method: 'POST',
        url: `/api/interactions/callback/${ticket}`,
        payload: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      });
      await server.inject({ method: 'GET', url: `/api/interactions/callback/${ticket}` });
      await gql('wrong-key-wrong-key-wrong', '{ viewer { id } }');
      await gql(KEYS.admin, '{ viewer { id } }');
      await server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { authorization: `Bearer ${KEYS.ops}` },
        payload: '{nope',
      });

      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(0);
      for (const secret of [secretAnswer, ticket, ...Object.values(KEYS)]) {
        expect(log.includes(secret), `a secret reached the log: ${secret.slice(0, 6)}…`).toBe(false);
      }
    } finally {
      await server.close();
    }
  });
});

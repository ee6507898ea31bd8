// The manifest at start (modules, invalid files) and the channel inbound door through the real
// server: a fast-check property over bodies and headers never gets a 500 and never an answer
// without a valid signature.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifestSettings } from '../../src/app/config.ts';
import { ACTION } from '../../src/channels/slack/blocks.ts';
import { manifestDir, manifestOf, slackChannelLines, startChannelServer } from '../support/channel-server.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { signSlack } from '../support/fakes/slack-requests.ts';
import { freePort, runToExit } from '../support/processes.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

/** One request per module; each must be a 404 once its module is off, and not before. */
const DOORS: Record<string, { method: 'GET' | 'POST'; url: string }[]> = {
  graphql: [{ method: 'POST', url: '/graphql' }],
  rest: [{ method: 'POST', url: '/api/interactions/q1/answer' }],
  // A live ticket's page (filled in per server below): 200 while the module is on.
  callbacks: [{ method: 'GET', url: 'CALLBACK' }],
  inbox: [{ method: 'GET', url: '/' }],
  mcp: [{ method: 'POST', url: '/mcp' }],
};

describe('manifest modules', () => {
  for (const module of Object.keys(DOORS)) {
    it(`modules.${module}: false makes its doors 404 and leaves the others`, async () => {
      const dir = manifestDir(
        [
          'modules:',
          `  ${module}: false`,
          'channels:',
          '  ops-hook:',
          '    plugin: webhook',
          '    config: { url: "http://127.0.0.1:9/hook", secretEnv: HOOK_SECRET }',
        ].join('\n'),
      );
      const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
      const manifest = await loadManifestSettings({ HOOK_SECRET: secret }, dir);
      const t = await startServer({ store: 'memory', plugins: { manifest } });
      try {
        const agent = { id: 'agent', roles: ['agent' as const], restricted: false };
        const asked = await t.server.engine.ask(
          agent,
          { text: 'Pay?', format: 'EXTERNAL', link: 'https://pay.example/?cb={callback_url}' },
          { holdSeconds: 0 },
        );
        const callback = new URL(asked.callbackUrl!).pathname;
        for (const [name, doors] of Object.entries(DOORS)) {
          for (const door of doors) {
            const url = door.url === 'CALLBACK' ? callback : door.url;
            const r = await t.server.inject({
              method: door.method,
              url,
              headers: auth('agent'),
              payload: '{}',
            });
            if (name === module) expect(r.statusCode, url).toBe(404);
            else expect(r.statusCode, `${door.method} ${url}`).not.toBe(404);
          }
        }
        // The webhook channel takes no inbound requests: its door is the uniform 404 either way.
        const door = await t.server.inject({
          method: 'POST',
          url: '/api/interactions/channels/ops-hook',
          payload: '',
        });
        expect(door.statusCode).toBe(404);
      } finally {
        await t.close();
      }
    });
  }

  it('an invalid manifest stops the server with one line naming the file and the key path (exit 1)', async () => {
    const dir = manifestDir('modules:\n  graphql: true\n  grapqhl: false\n');
    const r = await runToExit({
      INTERACTIONS_MANIFEST: join(dir, 'interactions.yaml'),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `${join(dir, 'interactions.yaml')}: modules.grapqhl: unknown key (known: graphql, rest, callbacks, inbox, mcp, metrics)`,
    );
  });

  it('a channel naming an unset secret stops the server, naming the variable and never a value', async () => {
    const dir = manifestDir(
      'channels:\n  ops-slack:\n    plugin: slack\n    config: { botTokenEnv: TAI_TEST_UNSET_TOKEN, signingSecretEnv: TAI_TEST_UNSET_SIGNING }\n',
    );
    const r = await runToExit({
      INTERACTIONS_MANIFEST: join(dir, 'interactions.yaml'),
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `${join(dir, 'interactions.yaml')}: channels.ops-slack.config.botTokenEnv: environment variable TAI_TEST_UNSET_TOKEN is not set`,
    );
  });

  it('the manifest’s verifiers list restricts which verifiers a question may bind', async () => {
    const manifest = await loadManifestSettings({}, manifestDir('verifiers: [github]\n'));
    const t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_VERIFIER_SECRETS: 'V_SECRET', V_SECRET: 'x'.repeat(32) },
      plugins: { manifest },
    });
    try {
      const ask = (name: string) =>
        t.server.inject({
          method: 'POST',
          url: '/graphql',
          headers: { ...auth('agent'), 'content-type': 'application/json' },
          payload: {
            query: 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { status } }',
            variables: {
              i: {
                text: 'Pay?',
                format: 'EXTERNAL',
                link: 'https://pay.example/?cb={callback_url}',
                verifier: { name, config: { secretEnv: 'V_SECRET' } },
              },
            },
          },
        });
      const refused = (await ask('hmac-sha256')).json();
      expect(refused.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.verifier.name',
      });
      expect((await ask('github')).json().errors).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});

describe('the channels door in the access policy', () => {
  it('made authenticated, the inbound door refuses a caller without a key before the channel runs', async () => {
    const dir = manifestDir(
      'channels:\n  ops-slack:\n    plugin: slack\n    config: { botTokenEnv: T_TOKEN, signingSecretEnv: T_SIGNING, defaultRecipient: C0123456789 }\n',
    );
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ doors: { channels: 'authenticated' } }));
    const manifest = await loadManifestSettings({ T_TOKEN: 'xoxb-x', T_SIGNING: 'signing' }, dir);
    const t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_ACCESS_POLICY_FILE: join(dir, 'policy.json') },
      plugins: { manifest },
    });
    try {
      const url = '/api/interactions/channels/ops-slack';
      const anonymous = await t.server.inject({ method: 'POST', url, payload: 'payload=%7B%7D' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      // With a key the door is reached, and the Slack signature check then refuses the request.
      const keyed = await t.server.inject({
        method: 'POST',
        url,
        headers: auth('ops'),
        payload: 'payload=%7B%7D',
      });
      expect(keyed.statusCode).toBe(401);
      expect(keyed.json()).toEqual({
        error: 'the request signature is missing or not valid',
        code: 'UNAUTHENTICATED',
      });
    } finally {
      await t.close();
    }
  });
});

describe('the slack inbound door, property (redis)', () => {
  const TOKEN = 'xoxb-prop-token';
  const SIGNING = 'prop-signing-secret';
  let slack: FakeSlack;
  let t: TestServer;

  beforeAll(async () => {
    slack = await startFakeSlack(TOKEN);
    const manifest = await manifestOf(slackChannelLines(slack.apiUrl), {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SIGNING,
    });
    t = await startChannelServer(manifest);
  });
  afterAll(async () => {
    await t?.close();
    await slack?.close();
  });

  it('arbitrary bodies and headers: never a 500, never an answer without a valid signature', async () => {
    const asked = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      payload: {
        query:
          'mutation { askUser(input: {text: "Prop?", format: CONFIRM, channel: "ops-slack"}, holdSeconds: 0) { question { id } } }',
      },
    });
    const id = asked.json().data.askUser.question.id as string;
    const validClick = JSON.stringify({
      type: 'block_actions',
      user: { id: 'U1ATTACK' },
      actions: [{ action_id: `${ACTION.confirm}_yes`, block_id: 'b', value: `${id}:1`, type: 'button' }],
    });
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constant(new URLSearchParams({ payload: validClick }).toString()),
      fc
        .jsonValue({ maxDepth: 3 })
        .map((v) => new URLSearchParams({ payload: JSON.stringify(v) }).toString()),
    );
    const headers = fc.record(
      {
        'content-type': fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/json',
          'text/plain',
        ),
        'x-slack-request-timestamp': fc.oneof(
          fc.constant(String(Math.floor(Date.now() / 1000))),
          fc.string({ maxLength: 20 }),
          fc.integer().map(String),
        ),
        'x-slack-signature': fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `v0=${h}`),
        ),
      },
      { requiredKeys: ['content-type'] },
    );
    await fc.assert(
      fc.asyncProperty(body, headers, async (b, h) => {
        const r = await t.server.inject({
          method: 'POST',
          url: '/api/interactions/channels/ops-slack',
          headers: h,
          payload: b,
        });
        expect(r.statusCode).not.toBe(500);
        expect(r.statusCode).toBe(401);
      }),
      { numRuns: 150 },
    );
    const q = await t.server.store.get(id);
    expect(q?.status).toBe('PENDING');
    // The same click, signed, does answer: the property above was not vacuous.
    const ts = Math.floor(Date.now() / 1000);
    const signedBody = new URLSearchParams({ payload: validClick }).toString();
    const ok = await t.server.inject({
      method: 'POST',
      url: '/api/interactions/channels/ops-slack',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(ts),
        'x-slack-signature': signSlack(SIGNING, ts, signedBody),
      },
      payload: signedBody,
    });
    expect(ok.statusCode).toBe(200);
    expect((await t.server.store.get(id))?.answeredBy).toBe('ops-slack:U1ATTACK');
  });

  it('correctly signed arbitrary bodies are never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc
            .jsonValue({ maxDepth: 3 })
            .map((v) => new URLSearchParams({ payload: JSON.stringify(v) }).toString()),
        ),
        async (b) => {
          const ts = Math.floor(Date.now() / 1000);
          const r = await t.server.inject({
            method: 'POST',
            url: '/api/interactions/channels/ops-slack',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-slack-request-timestamp': String(ts),
              'x-slack-signature': signSlack(SIGNING, ts, b),
            },
            payload: b,
          });
          expect([200, 400]).toContain(r.statusCode);
        },
      ),
      { numRuns: 100 },
    );
  });
});

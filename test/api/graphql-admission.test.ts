// /graphql runs a bounded number of executions at once (src/http/admission.ts), over real
// sockets: a held askUser gives its place back when its first pass ends, not when its hold does,
// and an execution that holds inside itself (two askUser fields) gives its place up after the
// budget, so neither keeps the next request waiting.
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import { createGraphQLServer, GRAPHQL_MAX_BODY_BYTES } from '../../src/graphql/yoga.ts';
import { graphqlRoutes } from '../../src/http/routes/graphql.ts';
import { type Engine, type EngineSet, OPS, startEngines } from '../support/engines.ts';
import { gqlAt } from '../support/processes.ts';
import { KEYS, PRINCIPALS } from '../support/server.ts';

const ASK = /* GraphQL */ `
  mutation Ask($hold: Int) { askUser(input: { text: "Held?" }, holdSeconds: $hold) { status } }
`;
const ASK_TWICE = /* GraphQL */ `
  mutation AskTwice($hold: Int) {
    first: askUser(input: { text: "One?" }, holdSeconds: $hold) { status }
    second: askUser(input: { text: "Two?" }, holdSeconds: $hold) { status }
  }
`;
const CHANNELS = /* GraphQL */ `query { channels }`;

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `p`, or a marker if it has not settled within `ms` (the bound a failure is seen by). */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  const bound = new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms).unref());
  return Promise.race([p, bound]);
}

describe('executions at once on /graphql', () => {
  let set: EngineSet | undefined;
  let app: FastifyInstance | undefined;

  afterEach(async () => {
    await app?.close();
    await set?.close();
  });

  async function serve(limit: number, budgetMs: number): Promise<{ url: string; engine: Engine }> {
    set = await startEngines('memory');
    const engine = set.engines[0]!;
    const authenticator = createAuthenticator({
      accessControl: true,
      policy: DEFAULT_DOOR_POLICY,
      keyring: createKeyring(parsePrincipals(PRINCIPALS)),
    });
    const yoga = createGraphQLServer({ engine, authenticator, logger: pino({ level: 'silent' }) });
    app = Fastify();
    await app.register(graphqlRoutes, {
      yoga,
      engine,
      maxBodyBytes: GRAPHQL_MAX_BODY_BYTES,
      executions: { limit, budgetMs },
    });
    return { url: await app.listen({ port: 0, host: '127.0.0.1' }), engine };
  }

  async function cancelAll(engine: Engine): Promise<void> {
    for (const q of await engine.pending(OPS)) await engine.cancel(OPS, q.id);
  }

  it('a held askUser holds no place while it waits (one place, no budget to speak of)', async () => {
    const { url, engine } = await serve(1, 600_000);
    const held = gqlAt(url, KEYS.agent, ASK, { hold: 60 });
    await until(() => engine.heldCount() === 1, 'the ask is held');
    const next = await within(gqlAt(url, KEYS.agent, CHANNELS), 5000);
    expect(next).toMatchObject({ status: 200, data: { channels: [] } });
    expect(engine.heldCount()).toBe(1);
    await cancelAll(engine);
    expect((await held).data).toEqual({ askUser: { status: 'CANCELLED' } });
  });

  it('an execution that holds inside itself gives its place to the next after the budget', async () => {
    const { url, engine } = await serve(1, 50);
    const held = gqlAt(url, KEYS.agent, ASK_TWICE, { hold: 60 });
    await until(() => engine.heldCount() === 1, 'the first ask is held inside the execution');
    const next = await within(gqlAt(url, KEYS.agent, CHANNELS), 5000);
    expect(next).toMatchObject({ status: 200, data: { channels: [] } });
    expect(engine.heldCount()).toBe(1);
    // The second field is asked once the first ends: each is cancelled as it is asked.
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type === 'ASKED') void engine.cancel(OPS, e.question.id);
      },
      resync() {},
    });
    await cancelAll(engine);
    expect((await held).data).toEqual({ first: { status: 'CANCELLED' }, second: { status: 'CANCELLED' } });
    stop();
  });
});

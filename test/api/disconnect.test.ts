// Held requests over real sockets: a client that goes away ends its wait (the server's local
// waiter is released) but never the question; and Node's server timeouts leave room for the
// longest hold instead of cutting it at a default.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import { HOLD_MAX_SECONDS } from '../../src/domain/call-args.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createGraphQLServer } from '../../src/graphql/yoga.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { type Engine, OPS, startEngines } from '../support/engines.ts';
import { gqlAt, httpRequest } from '../support/processes.ts';
import { auth, KEYS, PRINCIPALS, startServer, type TestServer } from '../support/server.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!, $hold: Int) {
    askUser(input: $input, holdSeconds: $hold) { status answer question { id } }
  }
`;
const AWAIT = /* GraphQL */ `
  query Await($id: ID!, $hold: Int) { awaitAnswer(id: $id, holdSeconds: $hold) { status answer } }
`;

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The next question announced as ASKED on this engine (watch before asking). */
function nextAsked(engine: Engine): Promise<QuestionRecord> {
  return new Promise((resolve) => {
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type !== 'ASKED') return;
        stop();
        resolve(e.question);
      },
      resync() {},
    });
  });
}

for (const store of ['memory', 'redis'] as const) {
  describe(`a client that goes away mid-hold (${store})`, () => {
    let t: TestServer;
    let url: string;
    let engine: Engine;

    beforeEach(async () => {
      t = await startServer({ store });
      url = await t.listen();
      // The composition root hands out the Interactions port; the engine behind it counts waiters.
      engine = t.server.engine as Engine;
    });
    afterEach(async () => {
      await t.close();
    });

    async function answerThroughRest(id: string, answer: unknown) {
      const res = await httpRequest(`${url}/api/interactions/${id}/answer`, {
        method: 'POST',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        body: JSON.stringify({ answer }),
      });
      return {
        status: res.status,
        body: (await res.json()) as { data: { status: string; answer: unknown } },
      };
    }

    it('a held askUser whose client aborts releases its waiter; the question stays PENDING and answerable', async () => {
      const asked = nextAsked(engine);
      const controller = new AbortController();
      const held = gqlAt(
        url,
        KEYS.agent,
        ASK,
        { input: { text: 'Still there?', format: 'TEXT' }, hold: 60 },
        { signal: controller.signal },
      );
      const cut = expect(held).rejects.toThrow();
      const q = await asked;
      await until(() => engine.waiterCount() === 1, 'the ask is held');
      controller.abort();
      await cut;
      await until(() => engine.waiterCount() === 0, 'the waiter is released');

      const after = await gqlAt(url, KEYS.agent, AWAIT, { id: q.id, hold: 0 });
      expect(after.data.awaitAnswer).toEqual({ status: 'PENDING', answer: null });
      const answered = await answerThroughRest(q.id, 'yes, here');
      expect(answered.status).toBe(200);
      expect(answered.body.data).toMatchObject({ status: 'ANSWERED', answer: 'yes, here' });
      expect(engine.waiterCount()).toBe(0);
      // The asker re-attaching later gets the answer.
      const late = await gqlAt(url, KEYS.agent, AWAIT, { id: q.id, hold: 0 });
      expect(late.data.awaitAnswer).toEqual({ status: 'ANSWERED', answer: 'yes, here' });
    });

    it('a held awaitAnswer whose client aborts ends alone: another waiter on the question still gets the answer', async () => {
      const asked = await gqlAt(url, KEYS.agent, ASK, { input: { text: 'Two waiters' }, hold: 0 });
      const id = asked.data.askUser.question.id as string;
      // The engine counts the calls it holds (each registers its waiter first thing); both wait
      // on the one question.
      const staying = gqlAt(url, KEYS.agent, AWAIT, { id, hold: 60 });
      await until(() => engine.heldCount() === 1, 'the first hold is in the engine');
      const controller = new AbortController();
      const dropped = gqlAt(url, KEYS.agent, AWAIT, { id, hold: 60 }, { signal: controller.signal });
      const cut = expect(dropped).rejects.toThrow();
      await until(() => engine.heldCount() === 2, 'both holds are in the engine');
      controller.abort();
      await cut;
      await until(() => engine.heldCount() === 1, 'the dropped hold ended');
      expect(engine.waiterCount()).toBe(1);
      const answered = await answerThroughRest(id, 'for the one who stayed');
      expect(answered.status).toBe(200);
      expect((await staying).data.awaitAnswer).toEqual({
        status: 'ANSWERED',
        answer: 'for the one who stayed',
      });
      await until(() => engine.heldCount() === 0 && engine.waiterCount() === 0, 'every waiter released');
    });
  });
}

/**
 * One memory engine behind the HTTP app as createServer builds it, unlistened, for tests that
 * reach into Node's server or the engine's first pass.
 */
async function bareApp() {
  const set = await startEngines('memory');
  const engine = set.engines[0]!;
  const authenticator = createAuthenticator({
    accessControl: true,
    policy: DEFAULT_DOOR_POLICY,
    keyring: createKeyring(parsePrincipals(PRINCIPALS)),
  });
  const logger = pino({ level: 'silent' });
  const app = await createHttpApp({
    engine,
    auth: authenticator,
    yoga: createGraphQLServer({ engine, authenticator, logger }),
    logger,
    maxBodyBytes: 65_536,
    rateLimit: { perMinute: 120, redis: null, prefix: 'unused:' },
  });
  return { set, engine, app };
}

describe('a client that goes away during the first pass', () => {
  it('its hold ends at once: the route hears the close that came before its listener', async () => {
    const { set, engine, app } = await bareApp();
    // The first pass's ask waits at a gate until the client has gone and the server has heard it.
    let entered!: () => void;
    const inAsk = new Promise<void>((r) => {
      entered = r;
    });
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const ask = engine.ask.bind(engine);
    engine.ask = async (p, input, opts) => {
      entered();
      await gate;
      return ask(p, input, opts);
    };
    // What the hold after the first pass ends with (the route's own sink gets it too).
    const hold = engine.holdAnswer.bind(engine);
    let ended!: (status: string) => void;
    const holdEnded = new Promise<string>((r) => {
      ended = r;
    });
    engine.holdAnswer = (p, id, opts, sink) =>
      hold(p, id, opts, {
        held(r) {
          ended(r.status);
          sink.held(r);
        },
        failed(e) {
          ended('failed');
          sink.failed(e);
        },
      });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const closed = new Promise<void>((resolve) => {
        app.server.on('request', (_req, res) => res.once('close', () => resolve()));
      });
      const { port } = app.server.address() as { port: number };
      const controller = new AbortController();
      const held = gqlAt(
        `http://127.0.0.1:${port}`,
        KEYS.agent,
        ASK,
        { input: { text: 'Gone already?' }, hold: 60 },
        { signal: controller.signal },
      );
      const cut = expect(held).rejects.toThrow();
      await inAsk;
      controller.abort();
      await cut;
      await closed;
      open();
      // Without the check for a response already closed, this would wait out the 60 s hold.
      const bound = new Promise<string>((r) => setTimeout(() => r('still held after 5 s'), 5000).unref());
      expect(await Promise.race([holdEnded, bound])).toBe('PENDING');
      expect(engine.heldCount()).toBe(0);
      const [q] = await engine.pending(OPS);
      expect(q?.status).toBe('PENDING');
    } finally {
      await app.close();
      await set.close();
    }
  });
});

describe('Node server timeouts for held requests', () => {
  it('a hold of up to HOLD_MAX_SECONDS is not cut by Node: request timeout above it, keep-alive above proxies’ 60 s, headers timeout above keep-alive, no idle cut', async () => {
    // The HTTP app exactly as createServer builds it (it does not expose its listening server).
    const { set, app } = await bareApp();
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const server = app.server;
      expect(HOLD_MAX_SECONDS).toBeGreaterThanOrEqual(3600);
      // Soft: a failure shows every value at once.
      // A request (a held askUser is one) may run past the longest hold.
      expect.soft(server.requestTimeout, 'requestTimeout').toBeGreaterThan(HOLD_MAX_SECONDS * 1000);
      // No socket inactivity timeout: a silent held request is never cut for idling.
      expect.soft(server.timeout, 'timeout').toBe(0);
      // An idle keep-alive connection outlives common 60 s load-balancer idle limits, so the
      // proxy closes first and never reuses a connection the server is closing.
      expect.soft(server.keepAliveTimeout, 'keepAliveTimeout').toBe(72_000);
      expect.soft(server.keepAliveTimeout, 'keepAliveTimeout').toBeGreaterThan(60_000);
      expect.soft(server.headersTimeout, 'headersTimeout').toBeGreaterThan(server.keepAliveTimeout);
      expect.soft(server.headersTimeout, 'headersTimeout').toBeLessThanOrEqual(server.requestTimeout);
    } finally {
      await app.close();
      await set.close();
    }
  });
});

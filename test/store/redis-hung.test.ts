// A hung Redis (paused with SIGSTOP: the socket stays open, nothing answers) must not stall
// callers: commands fail within the command timeout as UNAVAILABLE (the outcome is unknown: a
// paused Redis applies what it was sent when it resumes) and /ready reports 503; once Redis
// answers again the same connections recover, and a retried answer succeeds.
import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Interactions } from '../../src/engine/types.ts';
import { redisConnectionOptions } from '../../src/store/redis/connection.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { connectMcp, textOf } from '../mcp/mcp-client.ts';
import { AGENT, OPS } from '../support/engines.ts';
import { specOf, uniquePrefix } from '../support/fixtures.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }`;
const ANSWER = 'mutation($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status answer } }';

/** Resolves once the engine has seen the next question announced. */
function askedEvent(engine: Interactions): Promise<void> {
  return new Promise((resolve) => {
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type !== 'ASKED') return;
        stop();
        resolve();
      },
      resync() {},
    });
  });
}

async function answerRest(
  url: string,
  id: string,
  answer: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/api/interactions/${id}/answer`, {
    method: 'POST',
    headers: { ...auth('ops'), 'content-type': 'application/json' },
    body: JSON.stringify({ answer }),
  });
  return { status: res.status, body: await res.json() };
}

interface GqlReply {
  data?: { answer?: unknown } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function answerGql(url: string, id: string, answer: unknown): Promise<GqlReply> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...auth('ops'), 'content-type': 'application/json' },
    body: JSON.stringify({ query: ANSWER, variables: { id, answer } }),
  });
  return (await res.json()) as GqlReply;
}

describe('a hung Redis', () => {
  let redisServer: RedisServer;
  let pid: number;
  let paused = false;

  function pause(): void {
    process.kill(pid, 'SIGSTOP');
    paused = true;
  }
  function resume(): void {
    if (paused) process.kill(pid, 'SIGCONT');
    paused = false;
  }

  beforeAll(async () => {
    redisServer = await startRedisServer();
    const probe = new Redis(redisServer.url);
    const info = await probe.info('server');
    probe.disconnect();
    pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    expect(pid).toBeGreaterThan(0);
  });

  afterAll(async () => {
    resume();
    await redisServer.stop();
  });

  it('store calls fail with a timeout instead of waiting forever, and recover', async () => {
    const options = redisConnectionOptions();
    const redis = new Redis(redisServer.url, options.commands);
    const subscriber = new Redis(redisServer.url, options.subscriber);
    const store = createRedisStore({ redis, subscriber, prefix: uniquePrefix() });
    try {
      await store.listen({ event() {}, resync() {} });
      const spec = specOf();
      expect((await store.create(spec, { maxPending: 10, retentionMs: 60_000 })).kind).toBe('created');
      pause();
      // The outcome is unknown (a write may still be applied): UNAVAILABLE, not a generic failure.
      await expect(store.get(spec.id)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(store.create(specOf(), { maxPending: 10, retentionMs: 60_000 })).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('did not respond'),
      });
      expect(await store.ping()).toBe(false);
      resume();
      await vi.waitFor(async () => expect(await store.ping()).toBe(true), { timeout: 10_000, interval: 100 });
      expect((await store.get(spec.id))?.status).toBe('PENDING');
    } finally {
      resume();
      await store.close();
      redis.disconnect();
      subscriber.disconnect();
    }
  });

  it('the server answers UNAVAILABLE and /ready is 503 while Redis is paused', async () => {
    let t: TestServer | null = null;
    try {
      t = await startServer({ store: 'redis', env: { INTERACTIONS_REDIS_URL: redisServer.url } });
      const url = await t.listen();
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      pause();
      expect((await fetch(`${url}/ready`)).status).toBe(503);
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        body: JSON.stringify({ query: ASK, variables: { input: { text: 'Deploy?', format: 'CONFIRM' } } }),
      });
      const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
      resume();
      await vi.waitFor(async () => expect((await fetch(`${url}/ready`)).status).toBe(200), {
        timeout: 10_000,
        interval: 100,
      });
    } finally {
      resume();
      await t?.close();
    }
  });

  it('an answer sent while Redis is paused is UNAVAILABLE on every door; it lands when Redis resumes, and its identical retry succeeds', async () => {
    let t: TestServer | null = null;
    let mcp: Client | null = null;
    try {
      t = await startServer({ store: 'redis', env: { INTERACTIONS_REDIS_URL: redisServer.url } });
      const url = await t.listen();
      const engine = t.server.engine;
      mcp = await connectMcp(url, KEYS.agent, 'modern');
      const ids: string[] = [];
      for (const text of ['Over REST?', 'Over GraphQL?']) {
        // Seen announced (not only recorded): the answer then goes straight to the claim,
        // which Redis holds while paused and applies when it resumes.
        const seen = askedEvent(engine);
        ids.push((await engine.ask(AGENT, { text }, { holdSeconds: 0 })).question.id);
        await seen;
      }
      const [restId, gqlId] = ids as [string, string];
      // A server that has answered before: Redis holds the claim script (the first run of a
      // script after a Redis restart is refused as NOSCRIPT, and is then not applied at all).
      const warm = await engine.ask(AGENT, { text: 'Warm up?' }, { holdSeconds: 0 });
      expect((await answerRest(url, warm.question.id, 'ok')).status).toBe(200);

      pause();
      const [rest, gql, tool] = await Promise.all([
        answerRest(url, restId, 'yes'),
        answerGql(url, gqlId, 'yes'),
        mcp.callTool({ name: 'get_question', arguments: { id: restId } }),
      ]);
      expect(rest.status).toBe(503);
      expect(rest.body).toEqual({
        code: 'UNAVAILABLE',
        error: 'the store did not respond; your answer may have been recorded — retrying is safe',
      });
      expect(gql.errors?.[0]).toMatchObject({
        message: 'the store did not respond; your answer may have been recorded — retrying is safe',
        extensions: { code: 'UNAVAILABLE' },
      });
      expect(tool.isError).toBe(true);
      expect(textOf(tool)).toMatch(/^UNAVAILABLE: the store did not respond/);

      resume();
      // Both answers were applied once Redis resumed, though each caller was told it failed.
      await vi.waitFor(
        async () => {
          for (const id of ids) expect((await engine.get(OPS, id))?.status).toBe('ANSWERED');
        },
        { timeout: 10_000, interval: 100 },
      );
      const restRetry = await answerRest(url, restId, 'yes');
      expect(restRetry.status).toBe(200);
      expect(restRetry.body).toMatchObject({ data: { id: restId, status: 'ANSWERED', answer: 'yes' } });
      const gqlRetry = await answerGql(url, gqlId, 'yes');
      expect(gqlRetry.errors).toBeUndefined();
      expect(gqlRetry.data?.answer).toEqual({ id: gqlId, status: 'ANSWERED', answer: 'yes' });
      // Not a retry: another value is refused as before.
      const other = await answerRest(url, restId, 'no');
      expect(other.status).toBe(409);
      expect(other.body).toMatchObject({ code: 'ALREADY_ANSWERED' });
    } finally {
      resume();
      await mcp?.close();
      await t?.close();
    }
  });
});

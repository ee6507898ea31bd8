// A server on a primary found through Sentinel: the primary is killed mid-run, the sentinel
// promotes the replica, and the server reconnects through the sentinel on its own — /ready
// goes 503 and comes back, an answer acknowledged before the kill is still there, and new
// questions are asked and answered on the new primary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAll, createRedisConnections } from '../../src/store/redis/connection.ts';
import { freePort } from '../support/fixtures.ts';
import { gqlAt } from '../support/processes.ts';
import { type LocalSentinel, startRedisSentinel } from '../support/redis-cluster.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id status } } }
`;
const ANSWER = /* GraphQL */ `
  mutation Answer($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status answer } }
`;
const QUESTION = /* GraphQL */ `
  query Q($id: ID!) { question(id: $id) { id status answer } }
`;

let deployment: LocalSentinel;
let t: TestServer;
let url: string;

beforeAll(async () => {
  deployment = await startRedisSentinel();
  t = await startServer({
    store: 'memory',
    env: {
      INTERACTIONS_REDIS_URL: 'redis://ignored.invalid',
      INTERACTIONS_REDIS_MODE: 'sentinel',
      INTERACTIONS_REDIS_SENTINELS: `127.0.0.1:${deployment.sentinelPort}`,
      INTERACTIONS_REDIS_SENTINEL_NAME: deployment.masterName,
      // The answer before the kill is acknowledged only once the replica holds it.
      INTERACTIONS_REDIS_WAIT_REPLICAS: '1',
    },
  });
  url = await t.listen();
}, 30_000);

afterAll(async () => {
  await t?.close();
  await deployment?.stop();
});

async function readyStatus(): Promise<number> {
  const res = await fetch(`${url}/ready`);
  await res.text();
  return res.status;
}

/** Polls /ready until it reports `status` (the failover has no event this process can await). */
async function readyBecomes(status: number, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while ((await readyStatus()) !== status) {
    if (Date.now() > until) throw new Error(`/ready did not become ${status} within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function askAndAnswer(text: string, answer: string): Promise<string> {
  const asked = await gqlAt(url, KEYS.agent, ASK, { input: { text, format: 'TEXT' } });
  expect(asked.errors).toBeUndefined();
  const id = asked.data.askUser.question.id as string;
  const answered = await gqlAt(url, KEYS.ops, ANSWER, { id, answer });
  expect(answered.errors).toBeUndefined();
  expect(answered.data.answer).toEqual({ id, status: 'ANSWERED', answer });
  return id;
}

describe('Redis behind Sentinel', () => {
  it('survives the primary being killed: /ready recovers and the acknowledged answer is kept', async () => {
    expect(await readyStatus()).toBe(200);
    const before = await askAndAnswer('Before?', 'kept');

    await deployment.primary.kill();
    await readyBecomes(503, 10_000);
    await readyBecomes(200, 20_000);

    const read = await gqlAt(url, KEYS.ops, QUESTION, { id: before });
    expect(read.errors).toBeUndefined();
    expect(read.data.question).toEqual({ id: before, status: 'ANSWERED', answer: 'kept' });
    await askAndAnswer('After?', 'new primary');
  }, 40_000);
});

describe('Sentinel at start', () => {
  it('gives up within the start-up bound when no sentinel answers (Sentinel itself retries forever)', async () => {
    const port = await freePort();
    const { redis, subscriber } = createRedisConnections({
      mode: 'sentinel',
      url: 'redis://ignored.invalid',
      sentinels: [{ host: '127.0.0.1', port }],
      name: 'nobody',
    });
    try {
      await expect(connectAll([redis, subscriber], 300)).rejects.toThrow('Redis connect timed out');
    } finally {
      redis.disconnect();
      subscriber.disconnect();
    }
  });
});

// The held figure's load, for the scripts that profile it (bench/profile/held-*.ts): the same
// warm-up, the same held askUser request, sent in the same batches, and the same count of what
// is held, against a server or against the trivial hold (bench/servers/held-floor.ts), so what a
// profile shows is what the figure (bench/figures/held-requests.ts) measures.
import type { Redis } from 'ioredis';
import { ANSWER, ASK, type AskData, graphqlBody, graphqlClient, headersFor } from './graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from './http.ts';
import { pollUntil, runPool } from './pool.ts';
import type { Instance } from './servers.ts';

/** Opened this many at a time, each batch confirmed held before the next (listen backlog is 511). */
const BATCH = 500;

/** 200 asks answered, so heaps and compiled code start alike: the figure's warm-up. */
export async function warmUpServer(server: Instance): Promise<void> {
  const agent = graphqlClient(server.url, 'agent', keepAliveAgent(8));
  const operator = graphqlClient(server.url, 'operator', keepAliveAgent(8));
  await runPool(200, 8, async (i) => {
    const asked = await agent.call<AskData>(ASK, {
      input: { text: `warm-up #${i}`, format: 'CONFIRM', groupId: 'warm-up' },
      hold: 0,
    });
    await operator.call(ANSWER, { id: asked.askUser.question.id, answer: true });
  });
}

export interface HeldLoad {
  /** The warm-up: 200 asks answered (the floor: 200 holds released). */
  warmUp(): Promise<void>;
  /** Sends `n` held calls of `holdSeconds` in batches, each confirmed held before the next. */
  holdMany(n: number, holdSeconds: number): Promise<void>;
}

/**
 * The load for `server`; `index` reads the server's pending index (counting through the API
 * scans every pending question), the floor says its own count.
 */
export function heldLoad(server: Instance, floor: boolean, index: Redis, prefix: string): HeldLoad {
  const control = keepAliveAgent(2);
  const held = async (): Promise<number> =>
    floor
      ? Number((await send(`${server.url}/count`, { agent: control })).body)
      : index.zcard(`${prefix}pending`);
  const agent = socketPerRequestAgent();
  const ask = (i: number, hold: number) =>
    send(`${server.url}/graphql`, {
      agent,
      method: 'POST',
      headers: headersFor('agent'),
      body: graphqlBody(ASK, {
        input: { text: `held #${i}`, format: 'CONFIRM', groupId: 'held', timeoutSeconds: 600 },
        hold,
      }),
    }).catch(() => null);
  return {
    async warmUp() {
      if (!floor) return warmUpServer(server);
      const warm = Array.from({ length: 200 }, (_, i) => ask(i, 0));
      await pollUntil(async () => (await held()) >= 200, 30_000, 50);
      await send(`${server.url}/release`, { agent: control, method: 'POST' });
      await Promise.all(warm);
    },
    async holdMany(n, holdSeconds) {
      for (let sent = 0; sent < n; sent += BATCH) {
        for (let i = sent; i < Math.min(n, sent + BATCH); i++) void ask(i, holdSeconds);
        await pollUntil(async () => (await held()) >= Math.min(n, sent + BATCH), 60_000, 100);
      }
    },
  };
}

// askUser held across a forced server restart: the client talks to server A on a fixed port,
// A is shut down while the client holds on awaitAnswer, the port stays dark until the client
// has seen a failure, then server B (same Redis, same prefix) comes up on the same port. The
// client re-attaches by id and returns the answer given through B; the question was asked once.
import { describe, expect, it } from 'vitest';
import type { Question } from '../../src/client/index.ts';
import { freePort } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { clientAs, listening, questionCount, tap } from './support.ts';

describe('askUser across a server restart (Redis)', () => {
  it('re-attaches to the same question and completes once answered; asked only once', async () => {
    const port = String(await freePort());
    const a = await listening({ env: { PORT: port } });
    let b: (TestServer & { url: string }) | null = null;
    try {
      const wire = tap();
      const failures: unknown[] = [];
      let firstFailure: () => void = () => {};
      const failed = new Promise<void>((resolve) => {
        firstFailure = resolve;
      });
      const agent = clientAs(a.url, 'agent', {
        fetch: wire.fetch,
        onRetry: (err) => {
          failures.push(err);
          firstFailure();
        },
      });
      const asked: Question[] = [];
      const holding = wire.next((e) => e.phase === 'request' && e.op === 'ClientAwaitAnswer');
      const answer = agent.askUser(
        { text: 'Deploy to production?', format: 'CONFIRM' },
        { onAsked: (q) => asked.push(q) },
      );

      await holding; // the client is holding on A
      await a.close();
      await failed; // and has found A gone
      b = await listening({ prefix: a.prefix, env: { PORT: port } });
      expect(b.url).toBe(a.url);

      // Answered through B: the client, retrying with backoff, re-attaches by id and wakes.
      await clientAs(b.url, 'ops').answer(asked[0]!.id, true);
      expect(await answer).toBe(true);
      expect(asked).toHaveLength(1);
      expect(failures[0]).toMatchObject({ code: 'NETWORK_ERROR' });
      expect(wire.log.filter((e) => e.phase === 'request' && e.op === 'ClientAskUser')).toHaveLength(1);
      const awaited = wire.log.filter((e) => e.phase === 'response' && e.op === 'ClientAwaitAnswer');
      expect(JSON.stringify(awaited.at(-1)?.body)).toContain('"status":"ANSWERED"');
      expect(await questionCount(b.url)).toBe(1);
      expect(await clientAs(b.url, 'admin').question(asked[0]!.id)).toMatchObject({
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops',
      });
    } finally {
      await b?.close();
    }
  });
});

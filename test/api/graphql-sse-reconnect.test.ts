// The official graphql-sse client, in both of its modes, through a proxy that cuts its sockets
// mid-stream: it reconnects, its feed starts again with a SNAPSHOT, and a subscription made
// after the cut works and receives its event. In single-connection mode the client sends its
// old stream token again on the PUT that reconnects (it keeps it in a plain headers object);
// the server reserves a fresh stream instead of refusing the old token, as graphql-sse's own
// handler does.
import { type Client, createClient, type ExecutionResult } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CutProxy, startCutProxy } from '../support/cut-proxy.ts';
import { AGENT, OPS } from '../support/engines.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const FEED = 'subscription { pendingQuestions { type questions { id } } }';
const RESOLVED = 'subscription($id: ID!) { questionResolved(id: $id) { status answer } }';

type Result = ExecutionResult<Record<string, unknown>, unknown>;

/** One subscription's results in order; `next` waits for the first unread one that matches. */
function follow(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const seen: Result[] = [];
  const waiting: { match(r: Result): boolean; resolve(r: Result): void; reject(e: unknown): void }[] = [];
  let read = 0;
  let failure: unknown = null;
  const deliver = (): void => {
    for (const w of [...waiting]) {
      while (read < seen.length) {
        const r = seen[read++] as Result;
        if (w.match(r)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(r);
          break;
        }
      }
    }
  };
  const stop = client.subscribe<Record<string, unknown>>(
    { query, variables },
    {
      next(r) {
        seen.push(r);
        deliver();
      },
      error(e) {
        failure = e;
        for (const w of waiting.splice(0)) w.reject(e);
      },
      complete() {},
    },
  );
  return {
    stop,
    failure: () => failure,
    next(match: (r: Result) => boolean): Promise<Result> {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting.push({ match, resolve, reject });
        deliver();
      });
    },
  };
}

const feedEvent = (type: string, id?: string) => (r: Result) => {
  const e = r.data?.pendingQuestions as { type: string; questions: { id: string }[] } | undefined;
  return e?.type === type && (id === undefined || e.questions.some((q) => q.id === id));
};

describe.each([
  { mode: 'single connection', singleConnection: true, path: '/graphql/stream' },
  { mode: 'distinct connections', singleConnection: false, path: '/graphql' },
])('the graphql-sse client ($mode) after its sockets are cut', ({ singleConnection, path }) => {
  let t: TestServer;
  let proxy: CutProxy;
  let client: Client;

  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
    proxy = await startCutProxy(await t.listen());
    client = createClient({
      url: `${proxy.url}${path}`,
      singleConnection,
      // A plain object, as most callers write it: the client stores its stream token in it.
      headers: { authorization: `Bearer ${KEYS.ops}` },
      retryAttempts: 5,
      retry: () => new Promise((resolve) => setTimeout(resolve, 20)),
    });
  });
  afterAll(async () => {
    client.dispose();
    await proxy.close();
    await t.close();
  });

  it('reconnects, and a subscription made after the cut receives its event', async () => {
    const engine = t.server.engine;
    const feed = follow(client, FEED);
    await feed.next(feedEvent('SNAPSHOT'));
    const before = await engine.ask(AGENT, { text: 'Before the cut?' }, { holdSeconds: 0 });
    await feed.next(feedEvent('ASKED', before.question.id));
    const connections = proxy.accepted();

    proxy.cut();
    // The feed re-subscribes on a new connection and starts again with the pending backlog.
    await feed.next(feedEvent('SNAPSHOT', before.question.id));
    expect(proxy.accepted()).toBeGreaterThan(connections);

    const after = follow(client, RESOLVED, { id: before.question.id });
    const answered = after.next((r) => r.data?.questionResolved !== undefined);
    // The new operation is registered once the feed sees a change made after it was sent.
    const marker = await engine.ask(AGENT, { text: 'Marker' }, { holdSeconds: 0 });
    await feed.next(feedEvent('ASKED', marker.question.id));
    await engine.answer(OPS, before.question.id, 'after the cut');
    expect((await answered).data?.questionResolved).toEqual({ status: 'ANSWERED', answer: 'after the cut' });
    await feed.next(feedEvent('ANSWERED', before.question.id));
    expect(feed.failure()).toBeNull();
    expect(after.failure()).toBeNull();
    feed.stop();
  });
});

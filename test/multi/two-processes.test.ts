// Several real server processes (`node --import tsx src/app/main.ts`) on the private test Redis with
// one key prefix: an answer on one instance wakes an asker held on another, a timeout is one
// TIMED_OUT event on every feed, and an instance killed mid-wait loses nothing. Then `npm start`
// as an operator meets it: config errors, the memory store, the minted admin key.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../support/fixtures.ts';
import {
  freePort,
  gqlAt,
  httpRequest,
  openSse,
  runToExit,
  type ServerProcess,
  type SseReader,
  spawnServer,
  subscribeAt,
} from '../support/processes.ts';
import { KEYS, PRINCIPALS } from '../support/server.ts';

const PREFIX = uniquePrefix();

function clusterEnv(over: Record<string, string> = {}): Record<string, string> {
  return {
    INTERACTIONS_REDIS_URL: inject('redisUrl'),
    INTERACTIONS_KEY_PREFIX: PREFIX,
    INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:4000',
    // Both reapers race for every due question (and the held asker's own timer with them).
    INTERACTIONS_REAPER_INTERVAL_MS: '50',
    LOG_LEVEL: 'warn',
    ...over,
  };
}

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!, $hold: Int) {
    askUser(input: $input, holdSeconds: $hold) { status answer question { id status } }
  }
`;
const ANSWER = /* GraphQL */ `
  mutation Answer($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status answer } }
`;
const AWAIT = /* GraphQL */ `
  query Await($id: ID!, $hold: Int) { awaitAnswer(id: $id, holdSeconds: $hold) { status answer question { id } } }
`;
const QUESTION = /* GraphQL */ `
  query Q($id: ID!) { question(id: $id) { id status closedAt answer } }
`;
const PENDING = 'subscription { pendingQuestions { type questions { id status } } }';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function statusOf(url: string): Promise<number> {
  const res = await httpRequest(url);
  await res.text();
  return res.status;
}

/** The REST stream of `url` for `key`, read past its backlog up to interaction.ready. */
async function restStream(url: string, key: string = KEYS.ops): Promise<SseReader> {
  const { res, sse } = await openSse(`${url}/api/interactions/stream`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  for (;;) {
    const f = await sse.nextEvent();
    if (f === null) throw new Error('stream ended before interaction.ready');
    if (f.event === 'interaction.ready') return sse;
  }
}

/** The data of the next `event` frame on the stream (other frames are skipped). */
async function nextFrame(sse: SseReader, event: string): Promise<{ id: string; status: string }> {
  for (;;) {
    const f = await sse.nextEvent();
    if (f === null) throw new Error(`stream ended before ${event}`);
    if (f.event === event) return JSON.parse(f.data);
  }
}

function errorLines(p: ServerProcess): string[] {
  return p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{') && (JSON.parse(l) as { level: number }).level >= 50);
}

describe('two server processes on one Redis', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  const extra: ServerProcess[] = [];

  beforeAll(async () => {
    const started = await Promise.allSettled([spawnServer(clusterEnv()), spawnServer(clusterEnv())]);
    // Whatever started is torn down in afterAll, even when the other one failed.
    for (const r of started) if (r.status === 'fulfilled') extra.push(r.value);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    [a, b] = extra.splice(0, 2) as [ServerProcess, ServerProcess];
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a, b, ...extra].filter(Boolean).map((p) => p.kill('SIGTERM')));
  });

  it('both processes run on Redis and answer /ready', async () => {
    for (const p of [a, b]) {
      expect(await statusOf(`${p.url}/ready`)).toBe(200);
      expect(p.stdout()).not.toContain('in-memory store');
    }
  });

  it('a GraphQL answer sent to B wakes the askUser held on A', async () => {
    const feedB = await restStream(b.url);
    try {
      const held = gqlAt(a.url, KEYS.agent, ASK, { input: { text: 'Name?', format: 'TEXT' }, hold: 30 });
      const { id } = await nextFrame(feedB, 'interaction.add');
      const answered = await gqlAt(b.url, KEYS.ops, ANSWER, { id, answer: 'Ada' });
      expect(answered.errors).toBeUndefined();
      expect(answered.data.answer).toEqual({ id, status: 'ANSWERED', answer: 'Ada' });
      const r = await held;
      expect(r.errors).toBeUndefined();
      expect(r.data.askUser).toEqual({
        status: 'ANSWERED',
        answer: 'Ada',
        question: { id, status: 'ANSWERED' },
      });
      expect(await nextFrame(feedB, 'interaction.answered')).toMatchObject({ id, status: 'ANSWERED' });
    } finally {
      await feedB.close();
    }
  });

  it('an answer through B’s REST answer door wakes the askUser held on A', async () => {
    const feedB = await restStream(b.url);
    try {
      const held = gqlAt(a.url, KEYS.agent, ASK, { input: { text: 'Deploy?', format: 'CONFIRM' }, hold: 30 });
      const { id } = await nextFrame(feedB, 'interaction.add');
      const res = await httpRequest(`${b.url}/api/interactions/${id}/answer`, {
        method: 'POST',
        headers: { ...bearer(KEYS.ops), 'content-type': 'application/json' },
        body: JSON.stringify({ answer: true }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown }).data).toMatchObject({ id, status: 'ANSWERED' });
      const r = await held;
      expect(r.data.askUser).toEqual({
        status: 'ANSWERED',
        answer: true,
        question: { id, status: 'ANSWERED' },
      });
    } finally {
      await feedB.close();
    }
  });

  it('one timeout is exactly one TIMED_OUT event on A’s GraphQL feed and on B’s REST stream', async () => {
    // The property holds for a feed that does not resynchronise in between (after a resync the
    // contract is a fresh SNAPSHOT). Another test file that kills every pub/sub connection on
    // the shared Redis can force one; such a run proves nothing, so it is observed again.
    for (let attempt = 1; ; attempt++) {
      const outcome = await observeOneTimeout(a, b);
      if (outcome === 'resynced' && attempt < 3) continue;
      expect(outcome).not.toBe('resynced');
      return;
    }
  }, 60_000);

  it('an instance killed mid-wait loses nothing: the asker re-attaches on B and gets the answer', async () => {
    const c = await spawnServer(clusterEnv());
    extra.push(c);
    const feedB = await restStream(b.url);
    try {
      const held = gqlAt(c.url, KEYS.agent, ASK, { input: { text: 'Survive?', format: 'TEXT' }, hold: 30 });
      const { id } = await nextFrame(feedB, 'interaction.add');
      const cut = expect(held).rejects.toThrow(); // the asker's connection dies with C
      const exit = await c.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await cut;
      const still = await gqlAt(b.url, KEYS.agent, QUESTION, { id });
      expect(still.data.question).toMatchObject({ id, status: 'PENDING' });

      const reattached = gqlAt(b.url, KEYS.agent, AWAIT, { id, hold: 30 });
      const answered = await gqlAt(b.url, KEYS.ops, ANSWER, { id, answer: 'still here' });
      expect(answered.errors).toBeUndefined();
      const r = await reattached;
      expect(r.errors).toBeUndefined();
      expect(r.data.awaitAnswer).toEqual({ status: 'ANSWERED', answer: 'still here', question: { id } });
      expect(await nextFrame(feedB, 'interaction.answered')).toMatchObject({ id, status: 'ANSWERED' });
    } finally {
      await feedB.close();
    }
  }, 90_000);

  it('an instance killed while waking its askers loses no sensitive answer: each one is read again on B', async () => {
    // Thirty sensitive asks held on C; the answers land through B; C dies while it wakes its
    // askers, at the moment the issue measured the loss (about 30 ms after the answers) or
    // earlier if a woken asker's response arrives first. Whichever moment that is, a reply C
    // read but never delivered (or delivered) must still be there for the asker's re-attach.
    const n = 30;
    const c = await spawnServer(clusterEnv());
    extra.push(c);
    const feedB = await restStream(b.url);
    try {
      const held = Array.from({ length: n }, (_, i) =>
        gqlAt(c.url, KEYS.agent, ASK, {
          input: { text: `Secret ${i}?`, format: 'TEXT', sensitive: true },
          hold: 60,
        }),
      );
      const ids = new Set<string>();
      while (ids.size < n) ids.add((await nextFrame(feedB, 'interaction.add')).id);

      let killed: Promise<unknown> | undefined;
      const killC = (): void => {
        killed ??= c.kill('SIGKILL');
      };
      // Whatever each held call ends with (an answer or a cut connection), the first one to end
      // means C is waking its askers now.
      const ended = held.map((h) => h.then(killC, killC));
      const answers = new Map([...ids].map((id, i) => [id, `secret-${i}`]));
      const answered = await Promise.all(
        [...answers].map(([id, answer]) => gqlAt(b.url, KEYS.ops, ANSWER, { id, answer })),
      );
      for (const r of answered) expect(r.errors).toBeUndefined();
      // The operator's view never carries a sensitive answer.
      for (const r of answered) expect(r.data.answer.answer).toBeNull();
      const timer = setTimeout(killC, 30);
      await Promise.all(ended);
      clearTimeout(timer);
      killC();
      expect(await killed).toMatchObject({ signal: 'SIGKILL' });

      // Every asker re-attaches on B and gets its own answer, whether or not C delivered it.
      const again = await Promise.all([...ids].map((id) => gqlAt(b.url, KEYS.agent, AWAIT, { id, hold: 5 })));
      expect(again.map((r) => r.errors)).toEqual(again.map(() => undefined));
      expect(again.map((r) => r.data.awaitAnswer)).toEqual(
        [...answers].map(([id, answer]) => ({ status: 'ANSWERED', answer, question: { id } })),
      );
    } finally {
      await feedB.close();
    }
  }, 90_000);

  it('no instance logged an error', () => {
    for (const p of [a, b, ...extra]) expect(errorLines(p)).toEqual([]);
  });
});

/**
 * A question held on A with timeoutSeconds 1 (A's own timer and both reapers race for it),
 * watched on A's pendingQuestions and B's REST stream. A sentinel question timing out over a
 * second later bounds the observation: when its removal arrives, every reaper pass that could
 * have timed the first one out again is long over.
 */
async function observeOneTimeout(a: ServerProcess, b: ServerProcess): Promise<'ok' | 'resynced'> {
  const gql = await subscribeAt(a.url, KEYS.ops, PENDING);
  expect(gql.res.status).toBe(200);
  const rest = await restStream(b.url);
  try {
    const first = await gql.sse.nextEvent();
    expect(JSON.parse(first!.data).data.pendingQuestions.type).toBe('SNAPSHOT');

    const held = gqlAt(a.url, KEYS.agent, ASK, { input: { text: 'Quick?', timeoutSeconds: 1 }, hold: 30 });
    const { id } = await nextFrame(rest, 'interaction.add');
    const sentinel = await gqlAt(b.url, KEYS.agent, ASK, {
      input: { text: 'Sentinel', timeoutSeconds: 2 },
      hold: 0,
    });
    const sentinelId = sentinel.data.askUser.question.id as string;

    // A's feed, until the sentinel's TIMED_OUT.
    const onA: { type: string; id: string | undefined }[] = [];
    for (;;) {
      const f = await gql.sse.nextEvent();
      if (f === null || f.event !== 'next') return 'resynced';
      const ev = JSON.parse(f.data).data.pendingQuestions as { type: string; questions: { id: string }[] };
      if (ev.type === 'SNAPSHOT') return 'resynced';
      onA.push({ type: ev.type, id: ev.questions[0]?.id });
      if (ev.type === 'TIMED_OUT' && ev.questions[0]?.id === sentinelId) break;
    }
    // B's stream, until the sentinel's removal.
    const onB: { event: string; id: string; status: string }[] = [];
    for (;;) {
      const f = await rest.nextEvent();
      if (f === null) return 'resynced';
      const q = JSON.parse(f.data) as { id: string; status: string };
      onB.push({ event: f.event, id: q.id, status: q.status });
      if (f.event === 'interaction.removed' && q.id === sentinelId) break;
    }

    expect(onA.filter((e) => e.id === id)).toEqual([
      { type: 'ASKED', id },
      { type: 'TIMED_OUT', id },
    ]);
    // The add came first (read above); after it, exactly one removal.
    expect(onB.filter((e) => e.id === id)).toEqual([
      { event: 'interaction.removed', id, status: 'TIMED_OUT' },
    ]);

    const r = await held;
    expect(r.data.askUser).toMatchObject({ status: 'TIMED_OUT', question: { id, status: 'TIMED_OUT' } });
    const final = await gqlAt(b.url, KEYS.ops, QUESTION, { id });
    expect(final.data.question).toMatchObject({ id, status: 'TIMED_OUT', answer: null });
    expect(final.data.question.closedAt).not.toBeNull();
    return 'ok';
  } finally {
    await Promise.all([gql.sse.close(), rest.close()]);
  }
}

// Each case is its own process start (seconds each on a loaded machine); they run side by side.
describe.concurrent('npm start refuses an invalid setting', { timeout: 90_000 }, () => {
  it.for([
    ['INTERACTIONS_HOLD_SECONDS', 'abc'],
    ['INTERACTIONS_PUBLIC_BASE_URL', 'http://example.com'],
    ['INTERACTIONS_API_KEYS', '[{"id": "ops"'],
    ['ACCESS_CONTROL_ENABLE', 'perhaps'],
  ] as const)(
    'an invalid %s=%s stops it: exit 1 and one line naming the variable',
    async ([variable, value], { expect }) => {
      const r = await runToExit({ PORT: String(await freePort()), HOST: '127.0.0.1', [variable]: value });
      expect(r.code).toBe(1);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${variable}: \\S`));
      expect(r.stdout).toBe('');
    },
  );

  it('an unreachable Redis stops it: exit 1 and one line naming INTERACTIONS_REDIS_URL', async ({
    expect,
  }) => {
    const port = await freePort(); // nothing listens there
    const r = await runToExit({
      PORT: String(await freePort()),
      INTERACTIONS_REDIS_URL: `redis://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toEqual(['INTERACTIONS_REDIS_URL: cannot connect to Redis']);
  });
});

describe('npm start with nothing configured', () => {
  it('with no Redis it says it uses the memory store; with no keys it prints the inbox URL with #key=, and the key works', async () => {
    const p = await spawnServer({ LOG_LEVEL: 'warn' });
    try {
      await p.waitForOutput(/API key: \S+/);
      // The defaults notice is a log line: it may reach stdout just after the summary, so it is awaited too.
      const out = await p.waitForOutput(
        /INTERACTIONS_REDIS_URL, [^"]* are not set: this run uses start-time defaults/,
      );
      const inbox = /Inbox:\s+(\S+)/.exec(out)?.[1];
      expect(inbox).toBeDefined();
      const url = new URL(inbox!);
      expect(url.origin).toBe(p.url);
      expect(url.pathname).toBe('/');
      expect(url.search).toBe('');
      const key = /^#key=([A-Za-z0-9_-]{32,})$/.exec(url.hash)?.[1];
      expect(key, url.hash).toBeDefined();
      // The key rides in the fragment only: never in a query string, never in a log line.
      expect(out).not.toMatch(/[?&]key=/);
      for (const line of out.split('\n').filter((l) => l.startsWith('{'))) expect(line).not.toContain(key);

      const me = await gqlAt(p.url, key!, '{ viewer { id roles restricted } }');
      expect(me.data).toEqual({ viewer: { id: 'admin', roles: ['admin'], restricted: false } });
      const ask = await gqlAt(p.url, key!, ASK, { input: { text: 'Memory?' }, hold: 0 });
      expect(ask.data.askUser.status).toBe('PENDING');
      const other = await gqlAt(p.url, 'not-the-minted-key-000000', '{ viewer { id } }');
      expect(other.status).toBe(401);
      expect(await statusOf(`${p.url}/ready`)).toBe(200);
    } finally {
      await p.kill('SIGTERM');
    }
  }, 90_000);
});

// The SDK against a real server on Redis, over HTTP: typed answers for every format, the
// blocking loop across holds, the idempotent ask, reads, paging and the inbox feed.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  CancelledError,
  type InboxEvent,
  type InteractionsClient,
  InvalidAnswerError,
  type Question,
  TimedOutError,
} from '../../src/client/index.ts';
import type { TestServer } from '../support/server.ts';
import { backgroundAsks, clientAs, listening, questionCount, tap } from './support.ts';

describe('the SDK against a real server', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let ops: InteractionsClient;
  const background = backgroundAsks();

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = clientAs(t.url, 'ops');
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  /** askUser options that answer the question as `ops` as soon as it is asked. */
  function answeredWith(answer: unknown) {
    return {
      onAsked: (q: Question) => {
        void ops.answer(q.id, answer);
      },
    };
  }

  describe('typed answers', () => {
    it('CONFIRM gives a boolean', async () => {
      const answer = await agent.askUser({ text: 'Deploy?', format: 'CONFIRM' }, answeredWith(true));
      expectTypeOf(answer).toEqualTypeOf<boolean>();
      expect(answer).toBe(true);
    });

    it('SELECT gives the union of its options', async () => {
      const answer = await agent.askUser(
        { text: 'Where?', format: 'SELECT', options: ['staging', 'production'] },
        answeredWith('production'),
      );
      expectTypeOf(answer).toEqualTypeOf<'staging' | 'production'>();
      expect(answer).toBe('production');

      const envs = ['dev', 'prod'] as const;
      const fromConst = await agent.askUser(
        { text: 'Env?', format: 'SELECT', options: envs },
        answeredWith('dev'),
      );
      expectTypeOf(fromConst).toEqualTypeOf<'dev' | 'prod'>();
      expect(fromConst).toBe('dev');
    });

    it('TEXT (the default format) gives a string', async () => {
      const answer = await agent.askUser({ text: 'Release title?' }, answeredWith('Tai 1.0'));
      expectTypeOf(answer).toEqualTypeOf<string>();
      expect(answer).toBe('Tai 1.0');
      const explicit = await agent.askUser({ text: 'Again?', format: 'TEXT' }, answeredWith('yes'));
      expectTypeOf(explicit).toEqualTypeOf<string>();
      expect(explicit).toBe('yes');
    });

    it('FORM gives what the zod schema infers, sent as JSON Schema and parsed on return', async () => {
      const schema = z.object({
        name: z.string().min(1),
        seats: z.number().int().positive(),
        plan: z.enum(['free', 'pro']).default('free'),
      });
      let asked: Question | undefined;
      const answer = await agent.askUser(
        { text: 'Customer?', format: 'FORM', schema },
        {
          onAsked: (q) => {
            asked = q;
            void ops.answer(q.id, { name: 'Ada', seats: 3 });
          },
        },
      );
      expectTypeOf(answer).toEqualTypeOf<{ name: string; seats: number; plan: 'free' | 'pro' }>();
      // the default is filled in by zod: the person may leave it out
      expect(answer).toEqual({ name: 'Ada', seats: 3, plan: 'free' });
      expect(asked?.schema).toMatchObject({
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, seats: { type: 'integer' } },
        required: ['name', 'seats'],
      });
    });

    it('FORM with a JSON Schema object gives an object', async () => {
      const answer = await agent.askUser(
        {
          text: 'Contact?',
          format: 'FORM',
          schema: { type: 'object', properties: { email: { type: 'string' } } },
        },
        answeredWith({ email: 'ada@example.com' }),
      );
      expectTypeOf(answer).toEqualTypeOf<Record<string, unknown>>();
      expect(answer).toEqual({ email: 'ada@example.com' });
    });

    it('the server refuses an answer its JSON Schema rejects; the question stays pending', async () => {
      const schema = z.object({ seats: z.number().int() });
      const answer = await agent.askUser(
        { text: 'Seats?', format: 'FORM', schema },
        {
          onAsked: async (q) => {
            const refused = await ops.answer(q.id, { seats: 'three' }).catch((e: unknown) => e);
            expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.seats' });
            await ops.answer(q.id, { seats: 3 });
          },
        },
      );
      expect(answer).toEqual({ seats: 3 });
    });

    it('an answer that passes JSON Schema but fails a zod refinement is InvalidAnswerError', async () => {
      const schema = z.object({ code: z.string().refine((s) => s.startsWith('X'), 'must start with X') });
      const err = await agent
        .askUser({ text: 'Code?', format: 'FORM', schema }, answeredWith({ code: 'Y1' }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidAnswerError);
      expect(err).toMatchObject({ code: 'INVALID_ANSWER', field: 'answer.code', answer: { code: 'Y1' } });
    });

    it('a sensitive answer reaches the asker but is never shown on the question', async () => {
      let id = '';
      const answer = await agent.askUser(
        { text: 'Token?', sensitive: true },
        {
          onAsked: (q) => {
            id = q.id;
            void ops.answer(q.id, 's3cret');
          },
        },
      );
      expect(answer).toBe('s3cret');
      expect((await ops.question(id))?.answer).toBeNull();
    });
  });

  describe('closing without an answer', () => {
    it('TIMED_OUT throws TimedOutError with the question', async () => {
      const err = await agent
        .askUser({ text: 'Quick?', format: 'CONFIRM', timeoutSeconds: 1 })
        .catch((e) => e);
      expect(err).toBeInstanceOf(TimedOutError);
      expect(err).toMatchObject({ code: 'TIMED_OUT', question: { status: 'TIMED_OUT', text: 'Quick?' } });
    });

    it('CANCELLED throws CancelledError with the reason', async () => {
      const err = await agent
        .askUser(
          { text: 'Cancel me', format: 'CONFIRM' },
          {
            onAsked: (q) => {
              void ops.cancel(q.id, 'not needed');
            },
          },
        )
        .catch((e) => e);
      expect(err).toBeInstanceOf(CancelledError);
      expect(err).toMatchObject({
        code: 'CANCELLED',
        reason: 'not needed',
        question: { status: 'CANCELLED' },
      });
    });

    it('an abort signal stops the wait but not the question', async () => {
      const controller = new AbortController();
      let id = '';
      const err = await agent
        .askUser(
          { text: 'Abort the wait' },
          {
            signal: controller.signal,
            onAsked: (q) => {
              id = q.id;
              controller.abort(new Error('stopped'));
            },
          },
        )
        .catch((e) => e);
      expect(err).toEqual(new Error('stopped'));
      expect((await agent.question(id))?.status).toBe('PENDING');
      // and another process can re-attach to it by id
      const waiting = agent.waitForAnswer(id);
      await ops.answer(id, 'done');
      expect(await waiting).toMatchObject({ status: 'ANSWERED', answer: 'done' });
    });

    it('waitForAnswer calls onAttached once with the first read, before any hold', async () => {
      const { question } = await agent.ask({ text: 'Attach?' });
      const firsts: string[] = [];
      const controller = new AbortController();
      // Aborted at once from onAttached, as a zero wait does: the first read still counts.
      const err = await agent
        .waitForAnswer(question.id, {
          signal: controller.signal,
          onAttached: (first) => {
            firsts.push(first.status);
            controller.abort(new Error('zero wait'));
          },
        })
        .catch((e: unknown) => e);
      expect(err).toEqual(new Error('zero wait'));
      expect(firsts).toEqual(['PENDING']);

      await ops.answer(question.id, 'yes');
      const seen: unknown[] = [];
      const r = await agent.waitForAnswer(question.id, { onAttached: (first) => seen.push(first.answer) });
      expect(r).toMatchObject({ status: 'ANSWERED', answer: 'yes' });
      expect(seen).toEqual(['yes']);
    });
  });

  describe('blocking across holds and dropped connections', () => {
    it('loops on awaitAnswer while the server answers PENDING', async () => {
      const wire = tap();
      const client = clientAs(t.url, 'agent', { fetch: wire.fetch, holdSeconds: 1 });
      const firstPending = wire.next(
        (e) =>
          e.phase === 'response' &&
          e.op === 'ClientAwaitAnswer' &&
          JSON.stringify(e.body).includes('"status":"PENDING"'),
      );
      let id = '';
      const answer = client.askUser({ text: 'Held?', format: 'CONFIRM' }, { onAsked: (q) => (id = q.id) });
      await firstPending;
      await ops.answer(id, false);
      expect(await answer).toBe(false);
      const ops_ = wire.log.filter((e) => e.phase === 'request').map((e) => e.op);
      expect(ops_[0]).toBe('ClientAskUser');
      expect(ops_.filter((o) => o === 'ClientAskUser')).toHaveLength(1);
      expect(ops_.filter((o) => o === 'ClientAwaitAnswer').length).toBeGreaterThanOrEqual(2);
    });

    it('a retried ask after a lost response returns the same question: asked once', async () => {
      const server = await listening();
      try {
        const wire = tap();
        wire.dropResponses('ClientAskUser', 2);
        const retried: unknown[] = [];
        const client = clientAs(server.url, 'agent', { fetch: wire.fetch, onRetry: (e) => retried.push(e) });
        const staff = clientAs(server.url, 'ops');
        const asked: Question[] = [];
        const answer = await client.askUser(
          { text: 'Once only?', format: 'CONFIRM' },
          {
            onAsked: (q) => {
              asked.push(q);
              void staff.answer(q.id, true);
            },
          },
        );
        expect(answer).toBe(true);
        expect(retried).toHaveLength(2);
        expect(retried[0]).toMatchObject({ code: 'NETWORK_ERROR' });
        expect(asked).toHaveLength(1);
        const askResponses = wire.log.filter((e) => e.phase === 'response' && e.op === 'ClientAskUser');
        const ids = askResponses.map(
          (e) => (e.body as { data: { askUser: { question: { id: string } } } }).data,
        );
        expect(new Set(ids.map((d) => d.askUser.question.id)).size).toBe(1);
        expect(ids).toHaveLength(3);
        expect(await questionCount(server.url)).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('a caller-given idempotency key makes a second askUser attach to the first question', async () => {
      const key = `deploy-${Date.now()}`;
      let firstId = '';
      const first = agent.askUser(
        { text: 'Deploy once?', format: 'CONFIRM', idempotencyKey: key },
        { onAsked: (q) => (firstId = q.id) },
      );
      const second = agent.askUser(
        { text: 'Deploy once?', format: 'CONFIRM', idempotencyKey: key },
        {
          onAsked: (q) => {
            expect(q.id).toBe(firstId);
            void ops.answer(q.id, true);
          },
        },
      );
      expect(await Promise.all([first, second])).toEqual([true, true]);
    });
  });

  describe('reads, answers and paging', () => {
    it('question, answer, cancel and the refusals that follow', async () => {
      const question = await background.pending(agent, {
        text: 'Read me',
        format: 'SELECT',
        options: ['a', 'b'],
      });
      const read = await ops.question(question.id);
      expect(read).toMatchObject({
        id: question.id,
        text: 'Read me',
        format: 'SELECT',
        options: ['a', 'b'],
        status: 'PENDING',
      });
      const answered = await ops.answer(question.id, 'b');
      expect(answered).toMatchObject({ status: 'ANSWERED', answer: 'b', answeredBy: 'ops' });
      expect(await ops.question('no-such-question')).toBeNull();

      const other = await background.pending(agent, { text: 'Cancel via SDK' });
      const cancelled = await agent.cancel(other.id, 'changed my mind');
      expect(cancelled).toMatchObject({ status: 'CANCELLED', cancelReason: 'changed my mind' });
    });

    it('questions() iterates every page; questionsPage() gives one page and the total', async () => {
      const server = await listening();
      try {
        const a = clientAs(server.url, 'agent');
        const ids: string[] = [];
        for (let i = 0; i < 7; i++) ids.push((await background.pending(a, { text: `q${i}` })).id);
        const seen: string[] = [];
        for await (const q of a.questions({ pageSize: 3 })) seen.push(q.id);
        expect(seen).toHaveLength(7);
        expect(new Set(seen)).toEqual(new Set(ids));
        const page = await a.questionsPage({ first: 2, filter: { status: ['PENDING'] } });
        expect(page.totalCount).toBe(7);
        expect(page.questions).toHaveLength(2);
        expect(page.pageInfo.hasNextPage).toBe(true);
        const next = await a.questionsPage({ first: 2, after: page.pageInfo.endCursor! });
        expect(next.questions).toHaveLength(2);
        // newest first: the two pages follow the full listing's order
        expect([...page.questions, ...next.questions].map((q) => q.id)).toEqual(seen.slice(0, 4));
      } finally {
        await server.close();
      }
    });

    it('channels() and viewer()', async () => {
      expect(await agent.channels()).toEqual([]);
      expect(await ops.viewer()).toEqual({ id: 'ops', roles: ['operator'], restricted: false });
    });
  });

  describe('subscribeInbox', () => {
    it('yields a SNAPSHOT, then changes, and stops on close()', async () => {
      const server = await listening();
      try {
        const a = clientAs(server.url, 'agent');
        const o = clientAs(server.url, 'ops');
        const before = await background.pending(a, { text: 'Already pending' });
        const feed = o.subscribeInbox();
        const events: InboxEvent[] = [];
        let later: Question | undefined;
        for await (const ev of feed) {
          events.push(ev);
          if (ev.type === 'SNAPSHOT') {
            later = await background.pending(a, { text: 'Asked later', format: 'CONFIRM' });
          } else if (ev.type === 'ASKED') {
            await o.answer(later!.id, true);
          } else if (ev.type === 'ANSWERED') {
            feed.close();
          }
        }
        expect(events.map((e) => [e.type, e.more])).toEqual([
          ['SNAPSHOT', false],
          ['ASKED', false],
          ['ANSWERED', false],
        ]);
        expect(events[0]!.questions.map((q) => q.id)).toEqual([before.id]);
        expect(events[1]!.questions[0]).toMatchObject({
          id: later!.id,
          text: 'Asked later',
          status: 'PENDING',
        });
        expect(events[2]!.questions[0]).toMatchObject({ id: later!.id, status: 'ANSWERED' });
      } finally {
        await server.close();
      }
    });

    it('resubscribes when the server goes away and comes back: a fresh SNAPSHOT', async () => {
      const { freePort } = await import('../support/fixtures.ts');
      const port = String(await freePort());
      const first = await listening({ env: { PORT: port } });
      let second: (TestServer & { url: string }) | null = null;
      try {
        const a = clientAs(first.url, 'agent');
        const pending = await background.pending(a, { text: 'Survives' });
        const reconnects: unknown[] = [];
        const feed = clientAs(first.url, 'ops').subscribeInbox({ onReconnect: (e) => reconnects.push(e) });
        const types: string[] = [];
        for await (const ev of feed) {
          types.push(ev.type);
          expect(ev.questions.map((q) => q.id)).toEqual([pending.id]);
          if (types.length === 1) {
            await first.close();
            second = await listening({ prefix: first.prefix, env: { PORT: port } });
          } else {
            feed.close();
          }
        }
        expect(types).toEqual(['SNAPSHOT', 'SNAPSHOT']);
        expect(reconnects.length).toBeGreaterThan(0);
      } finally {
        await second?.close();
      }
    });

    it('ends with UnauthenticatedError for an unknown key', async () => {
      const { createInteractionsClient } = await import('../../src/client/index.ts');
      const feed = createInteractionsClient({ url: t.url, apiKey: 'not-a-key-0000000000' }).subscribeInbox();
      const err = await (async () => {
        for await (const _ of feed) return null;
        return null;
      })().catch((e) => e);
      expect(err).toMatchObject({ name: 'UnauthenticatedError', code: 'UNAUTHENTICATED' });
    });
  });
});

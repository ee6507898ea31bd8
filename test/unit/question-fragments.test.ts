// A large feed event executed per question (graphql/question-fragments.ts) gives the same data
// and the very same JSON bytes as one execution of the whole event, for every selection shape
// it accepts, from the cache as on the first run; shapes it does not split run whole.
import { execute } from '@graphql-tools/executor';
import { describe, expect, it } from 'vitest';
import { InboxFeedDocument } from '../../src/client/generated/graphql.ts';
import { recordOf } from '../../src/domain/question.ts';
import type { FeedEvent } from '../../src/engine/types.ts';
import type { GraphQLContext } from '../../src/graphql/builder.ts';
import { parse } from '../../src/graphql/graphql-js.ts';
import { AHEAD_MAX, executeByQuestion } from '../../src/graphql/question-fragments.ts';
import { schema } from '../../src/graphql/schema.ts';
import { specOf } from '../support/fixtures.ts';

const ctx = {
  principal: { id: 'ops', roles: ['operator'], restricted: false },
  engine: {},
  signal: new AbortController().signal,
} as unknown as GraphQLContext;

function eventOf(n: number, type: FeedEvent['type'] = 'SNAPSHOT'): FeedEvent {
  const questions = Array.from({ length: n }, (_, i) =>
    recordOf(
      specOf({
        text: `Question ${i} "quoted" \u2028 ✓`,
        format: i % 2 ? 'SELECT' : 'TEXT',
        options: i % 2 ? ['yes', 'no'] : null,
        media: i % 3 === 0 ? [{ kind: 'LINK', url: `https://example.com/${i}`, caption: 'c' }] : null,
        metadata: i % 4 === 0 ? { n: i, nested: { ok: true } } : null,
      }),
      null,
    ),
  );
  return { type, questions, more: n > 20 } as FeedEvent;
}

const SHAPES: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  plain: {
    query: 'subscription { pendingQuestions { type questions { id text format options status } more } }',
  },
  aliases: {
    query:
      'subscription S { feed: pendingQuestions { __typename kind: type a: questions { id createdAt timeoutAt } b: questions { text media { kind url caption } } } }',
  },
  fragments: {
    query: `subscription { pendingQuestions { questions { ...Q ... on Question { askedBy } __typename } more } }
      fragment Q on Question { id metadata schema link serverVerified answer }`,
  },
  variables: {
    query:
      'subscription V($withText: Boolean!) { pendingQuestions { type questions { id text @include(if: $withText) } } }',
    variables: { withText: true },
  },
};

function whole(query: string, event: FeedEvent, variables?: Record<string, unknown>) {
  return execute({
    schema,
    document: parse(query),
    rootValue: event,
    contextValue: ctx,
    variableValues: variables,
  });
}

describe('executeByQuestion', () => {
  for (const [name, { query, variables }] of Object.entries(SHAPES)) {
    it(`${name}: the same data and JSON as one execution, first run and cached`, async () => {
      const document = parse(query);
      const args = { schema, document, contextValue: ctx, variableValues: variables };
      const key = `test-${name}`;
      const event = eventOf(30);
      const expected = JSON.stringify(await whole(query, event, variables));
      const first = executeByQuestion(args, event, key);
      expect(first).not.toBeNull();
      expect(first!.json).toBe(expected);
      expect(JSON.stringify(first!.result)).toBe(expected);
      // The same questions again as new records (as a store read gives), some new ones among them.
      const again = {
        ...eventOf(0),
        questions: [...eventOf(5).questions, ...event.questions.map((q) => ({ ...q }))],
      } as FeedEvent;
      const expectedAgain = JSON.stringify(await whole(query, again, variables));
      const second = executeByQuestion(args, again, key);
      expect(second!.json).toBe(expectedAgain);
      expect(JSON.stringify(second!.result)).toBe(expectedAgain);
    });
  }

  it('a question that left PENDING is never taken from the cache', () => {
    const query = 'subscription { pendingQuestions { questions { id status answer } } }';
    const args = { schema, document: parse(query), contextValue: ctx };
    const event = eventOf(10);
    executeByQuestion(args, event, 'test-status');
    const answered = {
      ...event,
      questions: event.questions.map((q) => ({ ...q, status: 'ANSWERED' as const, answer: 'yes' })),
    } as FeedEvent;
    const r = executeByQuestion(args, answered, 'test-status');
    expect(
      JSON.parse(r!.json).data.pendingQuestions.questions.every(
        (q: { status: string }) => q.status === 'ANSWERED',
      ),
    ).toBe(true);
  });

  it('fragments or directives at the event level run whole (null)', () => {
    for (const query of [
      'subscription { pendingQuestions { ...E } } fragment E on InboxEvent { questions { id } }',
      'subscription { pendingQuestions { questions @include(if: true) { id } } }',
      'subscription { pendingQuestions { type } }',
    ]) {
      expect(
        executeByQuestion({ schema, document: parse(query), contextValue: ctx }, eventOf(10), query),
      ).toBeNull();
    }
  });

  for (const [name, { query, variables }] of Object.entries(SHAPES)) {
    it(`${name}: a backlog's one-question parts give the JSON of one execution each; the questions ahead run with the first`, async () => {
      // A vote on each question: its name resolver counts how many questions were executed.
      let named = 0;
      const counting = {
        ...ctx,
        engine: {
          nameOf: (by: string) => {
            named++;
            return by === 'alice' ? 'Alice' : null;
          },
        },
      } as unknown as GraphQLContext;
      const withVotes = query.replace(/questions \{ id /, 'questions { id votes { by byName at } ');
      const document = parse(withVotes);
      const args = { schema, document, contextValue: counting, variableValues: variables };
      const key = `test-backlog-${name}`;
      const questions = eventOf(12).questions.map((q) => ({
        ...q,
        votes: [{ by: 'alice', via: 'api', decision: 'APPROVED' as const, note: null, at: q.createdAt }],
      }));
      const parts = questions.map(
        (q, i) =>
          ({ type: 'ASKED', questions: [q], more: i < questions.length - 1, backlog: true }) as FeedEvent,
      );
      const votedInAll = withVotes !== query;
      for (const [i, part] of parts.entries()) {
        named = 0;
        const expected = JSON.stringify(
          await execute({
            schema,
            document,
            rootValue: part,
            contextValue: counting,
            variableValues: variables,
          }),
        );
        const whole = named;
        named = 0;
        const r = executeByQuestion(args, part, key, () => questions.slice(i + 1, i + 1 + AHEAD_MAX));
        expect(r!.json).toBe(expected);
        expect(JSON.stringify(r!.result)).toBe(expected);
        // The first part executes itself and the eleven after it; the others come from the cache.
        if (votedInAll) expect(named).toBe(i === 0 ? whole * questions.length : 0);
      }
    });
  }

  it('a question without an escalation ladder executes synchronously; one with a ladder runs whole', async () => {
    const ladders = {
      ...ctx,
      engine: { escalations: async () => [], nameOf: () => null },
    } as unknown as GraphQLContext;
    const document = parse(String(InboxFeedDocument));
    const args = { schema, document, contextValue: ladders };
    const event = eventOf(10);
    const plain = execute({ ...args, rootValue: event });
    expect(plain).not.toBeInstanceOf(Promise);
    expect(executeByQuestion(args, event, 'test-ladder')).not.toBeNull();
    const laddered = {
      ...event,
      questions: event.questions.map((q, i) =>
        i === 3
          ? {
              ...q,
              escalation: [{ afterSeconds: 30, action: 'REMIND' as const, channel: null, recipient: null }],
            }
          : q,
      ),
    } as FeedEvent;
    expect(executeByQuestion(args, laddered, 'test-ladder')).toBeNull();
    const r = await execute({ ...args, rootValue: laddered });
    expect((r as { errors?: unknown }).errors).toBeUndefined();
  });

  it('a backlog part with an escalation ladder runs whole without executing the questions ahead for nothing', async () => {
    let named = 0;
    const counting = {
      ...ctx,
      engine: {
        escalations: async () => [],
        nameOf: () => {
          named++;
          return null;
        },
      },
    } as unknown as GraphQLContext;
    const document = parse(String(InboxFeedDocument));
    const args = { schema, document, contextValue: counting };
    const questions = eventOf(4).questions.map((q, i) => ({
      ...q,
      votes: [{ by: 'alice', via: 'api', decision: 'APPROVED' as const, note: null, at: q.createdAt }],
      ...(i === 0
        ? { escalation: [{ afterSeconds: 30, action: 'REMIND' as const, channel: null, recipient: null }] }
        : {}),
    }));
    const part = (i: number) =>
      ({ type: 'ASKED', questions: [questions[i]], more: true, backlog: true }) as FeedEvent;
    // The laddered question answers with a promise: no split, and only it was executed.
    expect(executeByQuestion(args, part(0), 'test-ladder-ahead', () => questions.slice(1))).toBeNull();
    expect(named).toBe(1);
    const expected = JSON.stringify(await execute({ ...args, rootValue: part(1) }));
    named = 0;
    const r = executeByQuestion(args, part(1), 'test-ladder-ahead', () => questions.slice(2));
    expect(r!.json).toBe(expected);
    // The next part, without a ladder, executes itself and the two after it.
    expect(named).toBe(3);
  });
});

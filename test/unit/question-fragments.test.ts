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
import { executeByQuestion } from '../../src/graphql/question-fragments.ts';
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
        i === 3 ? { ...q, escalation: [{ afterSeconds: 30, action: 'REMIND' as const }] } : q,
      ),
    } as FeedEvent;
    expect(executeByQuestion(args, laddered, 'test-ladder')).toBeNull();
    const r = await execute({ ...args, rootValue: laddered });
    expect((r as { errors?: unknown }).errors).toBeUndefined();
  });
});

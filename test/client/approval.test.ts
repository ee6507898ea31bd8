// The SDK's askApproval (API.md §15) against a real server: the decision and the approved
// arguments typed from the zod schema (checked by tsc through expectTypeOf), an edit reaching the
// agent as approved, a rejection with its note, and a 2-of-3 quorum voted by the CLI-style
// answer of two operators through the SDK.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type Approval,
  type InteractionsClient,
  type Question,
  TimedOutError,
} from '../../src/client/index.ts';
import type { TestServer } from '../support/server.ts';
import { clientAs, listening } from './support.ts';

const refundArgs = z.object({ charge: z.string(), amount: z.number().int().min(1).max(500) });

describe('askApproval', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let ops: InteractionsClient;
  let admin: InteractionsClient;

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = clientAs(t.url, 'ops');
    admin = clientAs(t.url, 'admin');
  });
  afterAll(() => t.close());

  const answeredWith = (by: () => InteractionsClient, answer: unknown) => ({
    onAsked: (q: Question) => {
      void by().answer(q.id, answer);
    },
  });

  it('returns the decision and the approved (edited) arguments, typed from the zod schema', async () => {
    const result = await agent.askApproval(
      {
        text: 'Refund the customer?',
        action: { name: 'payments.refund', arguments: { charge: 'ch_1', amount: 100 }, editable: true },
        argumentsSchema: refundArgs,
      },
      answeredWith(() => ops, { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 25 } }),
    );
    expectTypeOf(result).toEqualTypeOf<Approval<{ charge: string; amount: number }>>();
    expect(result.decision).toBe('APPROVED');
    if (result.decision === 'APPROVED') {
      expectTypeOf(result.arguments).toEqualTypeOf<{ charge: string; amount: number }>();
      expect(result.arguments).toEqual({ charge: 'ch_1', amount: 25 });
      expect(result.edited).toBe(true);
    }
    expect(result.question.action?.argumentsSchema).toMatchObject({ type: 'object' });
  });

  it('a rejection has no arguments and keeps the note', async () => {
    const result = await agent.askApproval(
      { text: 'Drop the table?', action: { name: 'db.drop', arguments: { table: 'users' } } },
      answeredWith(() => ops, { decision: 'REJECTED', note: 'not in production' }),
    );
    expectTypeOf(result.arguments).toEqualTypeOf<Record<string, unknown> | null>();
    expect(result).toMatchObject({ decision: 'REJECTED', arguments: null, note: 'not in production' });
  });

  it('a quorum of two: the first vote leaves it pending, the second decides', async () => {
    let id = '';
    const pending = agent.askApproval(
      {
        text: 'Rotate the keys?',
        action: { name: 'keys.rotate', arguments: { scope: 'all' } },
        quorum: { approvals: 2, voters: ['ops', 'admin'] },
      },
      {
        onAsked: (q) => {
          id = q.id;
          void ops.answer(q.id, { decision: 'APPROVED' }).then((after) => {
            expect(after.status).toBe('PENDING');
            return admin.answer(q.id, { decision: 'APPROVED', note: 'second pair of eyes' });
          });
        },
      },
    );
    const result = await pending;
    expect(result.decision).toBe('APPROVED');
    expect(result.arguments).toEqual({ scope: 'all' });
    const q = await agent.question(id);
    expect(q?.votes.map((v) => v.by)).toEqual(['ops', 'admin']);
  });

  it('a timeout is TimedOutError, never a rejection', async () => {
    await expect(
      agent.askApproval({ text: 'Ship?', timeoutSeconds: 1, action: { name: 'ship', arguments: {} } }),
    ).rejects.toBeInstanceOf(TimedOutError);
  });
});

// The adapters' shared rules, on their own: a framework's tool name as an action name (the API's
// characters, 100 at most), its input as the APPROVAL's arguments object, the one-line summary
// (300 characters at most), the rejection reason, and many waits that stop together.
import { describe, expect, it } from 'vitest';
import {
  allOrNothing,
  argumentsObject,
  decisionOfQuestion,
  safeActionName,
  summaryOf,
} from '../../src/client/adapters/common.ts';
import { CancelledError, type Question, TimedOutError } from '../../src/client/index.ts';

describe('safeActionName', () => {
  it('keeps the characters the API allows and replaces the rest', () => {
    expect(safeActionName('ai-sdk.delete_branch:v2')).toBe('ai-sdk.delete_branch:v2');
    expect(safeActionName('openai.mcp.my server.rm -rf/*')).toBe('openai.mcp.my_server.rm_-rf__');
    expect(safeActionName('ai-sdk.é')).toBe('ai-sdk._');
    expect(safeActionName('')).toBe('tool');
  });

  it('keeps a name of 100 characters and cuts one of 101', () => {
    expect(safeActionName('a'.repeat(100))).toBe('a'.repeat(100));
    expect(safeActionName('b'.repeat(101))).toBe('b'.repeat(100));
  });
});

describe('argumentsObject', () => {
  it('parses a JSON object string and keeps an object', () => {
    expect(argumentsObject('{"branch":"old"}')).toEqual({ branch: 'old' });
    expect(argumentsObject({ branch: 'old' })).toEqual({ branch: 'old' });
    expect(argumentsObject('')).toEqual({});
  });

  it('keeps anything else whole under `input`', () => {
    expect(argumentsObject('DROP TABLE x')).toEqual({ input: 'DROP TABLE x' });
    expect(argumentsObject('[1,2]')).toEqual({ input: [1, 2] });
    expect(argumentsObject('"text"')).toEqual({ input: 'text' });
    expect(argumentsObject(42)).toEqual({ input: 42 });
    expect(argumentsObject(undefined)).toEqual({ input: null });
  });
});

describe('summaryOf', () => {
  it('is the tool, its source and its arguments on one line', () => {
    expect(summaryOf({ tool: 'delete_repo', input: null, source: 'github' }, { repo: 'a/b' })).toBe(
      'delete_repo (github) {"repo":"a/b"}',
    );
  });

  it('keeps 300 characters and cuts 301 with an ellipsis', () => {
    const at = summaryOf({ tool: 't', input: null }, { x: 'y'.repeat(300 - 10) });
    expect([...at]).toHaveLength(300);
    expect(at.endsWith('"}')).toBe(true);
    const past = summaryOf({ tool: 't', input: null }, { x: 'y'.repeat(300 - 9) });
    expect([...past]).toHaveLength(300);
    expect(past.endsWith('y…')).toBe(true);
  });
});

describe('decisionOfQuestion', () => {
  const base = { id: 'Q-1', answeredBy: 'alice', answeredByName: null, cancelReason: null } as const;
  const q = (over: Record<string, unknown>) => ({ ...base, ...over }) as unknown as Question;

  it('reads an approval, a rejection with its note, and a rule’s rejection', () => {
    expect(
      decisionOfQuestion(q({ status: 'ANSWERED', decision: 'APPROVED', answer: { note: 'ok' } })),
    ).toMatchObject({ approved: true, reason: 'ok' });
    expect(
      decisionOfQuestion(q({ status: 'ANSWERED', decision: 'REJECTED', answer: { note: 'not today' } })),
    ).toMatchObject({ approved: false, reason: 'Rejected by alice: not today' });
    expect(
      decisionOfQuestion(
        q({ status: 'ANSWERED', decision: 'REJECTED', answer: {}, answeredBy: 'policy:no' }),
      ),
    ).toMatchObject({ approved: false, reason: 'Rejected by policy:no' });
  });

  it('nobody decided: the error by default, a denial naming the question with "deny"', () => {
    expect(() => decisionOfQuestion(q({ status: 'TIMED_OUT' }))).toThrow(TimedOutError);
    expect(() => decisionOfQuestion(q({ status: 'CANCELLED' }))).toThrow(CancelledError);
    expect(decisionOfQuestion(q({ status: 'CANCELLED' }), 'deny')).toMatchObject({
      approved: false,
      reason: 'Not approved: the approval Q-1 was cancelled',
    });
  });
});

describe('allOrNothing', () => {
  it('the first failure stops the other waits and is the one thrown', async () => {
    const stopped: unknown[] = [];
    const failure = new Error('first');
    const run = allOrNothing([0, 1, 2], undefined, (i, signal) =>
      i === 1
        ? Promise.reject(failure)
        : new Promise((_, reject) =>
            signal.addEventListener('abort', () => {
              stopped.push(signal.reason);
              reject(signal.reason);
            }),
          ),
    );
    await expect(run).rejects.toBe(failure);
    expect(stopped).toEqual([failure, failure]);
  });

  it('the caller’s signal stops every wait', async () => {
    const outer = new AbortController();
    const run = allOrNothing(
      [0, 1],
      outer.signal,
      (_i, signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    outer.abort(new Error('caller stopped'));
    await expect(run).rejects.toThrow('caller stopped');
  });
});

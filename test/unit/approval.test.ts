// APPROVAL questions in the domain (API.md §15): every limit of the action, the quorum and the
// answer at and one past it, the digest against a vector computed with sha256sum, and what an
// answered question decided.

import { describe, expect, it } from 'vitest';
import { validateAnswer } from '../../src/domain/answer.ts';
import {
  actionDigest,
  approvedArgumentsOf,
  checkApprovalAnswer,
  decisionOf,
  editedOf,
} from '../../src/domain/approval.ts';
import { type AskContext, validateAskInput } from '../../src/domain/ask-input.ts';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { jcsDigest } from '../../src/domain/digest.ts';
import {
  ACTION_ARGUMENTS_MAX_BYTES,
  ACTION_NAME_MAX_CHARS,
  ACTION_SUMMARY_MAX_CHARS,
  APPROVAL_NOTE_MAX_CHARS,
  QUORUM_MAX,
  QUORUM_VOTERS_MAX,
} from '../../src/domain/limits.ts';
import { type ActionSpec, ANSWER_FORMATS, type QuestionRecord, recordOf } from '../../src/domain/question.ts';
import { expectBad } from '../support/domain-errors.ts';
import { specOf } from '../support/fixtures.ts';

const ctx: AskContext = { verifiers: new Set(), channels: new Set(), prepared: false };
const ask = (input: Record<string, unknown>) => validateAskInput(input, ctx);
const bad = (input: Record<string, unknown>, field: string) => expectBad(() => ask(input), field);

const refundSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, amount: { type: 'integer', minimum: 1, maximum: 500 } },
  required: ['id', 'amount'],
  additionalProperties: false,
};
const action = (over: Record<string, unknown> = {}) => ({
  name: 'payments.refund',
  arguments: { id: 'ch_1', amount: 100 },
  ...over,
});
const approval = (over: Record<string, unknown> = {}, actionOver: Record<string, unknown> = {}) => ({
  text: 'Refund ch_1?',
  format: 'APPROVAL',
  action: action(actionOver),
  ...over,
});
/** JSON arguments of exactly `bytes` UTF-8 bytes: {"a":"xxx…"}. */
const argsOfBytes = (bytes: number) => ({ a: 'x'.repeat(bytes - '{"a":""}'.length) });

describe('the action digest', () => {
  it('is sha256 of the JCS form of {name, arguments} (vector from sha256sum)', () => {
    // printf '%s' '{"arguments":{"amount":100,"id":"ch_1"},"name":"payments.refund"}' | sha256sum
    const expected = 'sha256:f88888073066f868d9d24345846edc727c5ad4a02be9aaff37de9a0ac8d196d8';
    expect(actionDigest('payments.refund', { id: 'ch_1', amount: 100 })).toBe(expected);
    expect(ask(approval()).action?.digest).toBe(expected);
  });
});

describe('validateAskInput: action', () => {
  it('keeps the action with its defaults', () => {
    expect(ask(approval()).action).toEqual({
      name: 'payments.refund',
      summary: null,
      arguments: { id: 'ch_1', amount: 100 },
      argumentsSchema: null,
      editable: false,
      digest: actionDigest('payments.refund', { id: 'ch_1', amount: 100 }),
    });
  });

  it('is required for APPROVAL and refused for every other format', () => {
    bad({ text: 'Refund?', format: 'APPROVAL' }, 'input.action');
    const own = { FORM: { schema: { type: 'object' } }, SELECT: { options: ['a'] } } as Record<
      string,
      object
    >;
    for (const format of ANSWER_FORMATS.filter((f) => f !== 'APPROVAL')) {
      bad({ text: 'x', format, action: action(), ...own[format] }, 'input.action');
    }
  });

  it('name: 1 to 100 characters of [A-Za-z0-9_.:-]', () => {
    expect(ask(approval({}, { name: 'a' })).action?.name).toBe('a');
    expect(ask(approval({}, { name: 'n'.repeat(ACTION_NAME_MAX_CHARS) })).action?.name).toHaveLength(100);
    expect(ask(approval({}, { name: 'A-z_0.9:x' })).action?.name).toBe('A-z_0.9:x');
    bad(approval({}, { name: 'n'.repeat(ACTION_NAME_MAX_CHARS + 1) }), 'input.action.name');
    bad(approval({}, { name: '' }), 'input.action.name');
    for (const name of ['has space', 'ünicode', 'a/b', 'semi;colon']) {
      bad(approval({}, { name }), 'input.action.name');
    }
    bad(approval({}, { name: 7 }), 'input.action.name');
  });

  it('summary: at most 300 characters, not blank', () => {
    const max = 's'.repeat(ACTION_SUMMARY_MAX_CHARS);
    expect(ask(approval({}, { summary: max })).action?.summary).toBe(max);
    bad(approval({}, { summary: `${max}s` }), 'input.action.summary');
    bad(approval({}, { summary: '  ' }), 'input.action.summary');
  });

  it('arguments: a JSON object of at most 64 KiB', () => {
    const atMax = argsOfBytes(ACTION_ARGUMENTS_MAX_BYTES);
    expect(JSON.stringify(atMax)).toHaveLength(ACTION_ARGUMENTS_MAX_BYTES);
    expect(ask(approval({}, { arguments: atMax })).action?.arguments).toEqual(atMax);
    bad(approval({}, { arguments: argsOfBytes(ACTION_ARGUMENTS_MAX_BYTES + 1) }), 'input.action.arguments');
    bad(approval({}, { arguments: [1] }), 'input.action.arguments');
    bad(approval({}, { arguments: null }), 'input.action.arguments');
  });

  it('argumentsSchema: required when editable, and the proposal must be valid against it', () => {
    bad(approval({}, { editable: true }), 'input.action.argumentsSchema');
    const ok = ask(approval({}, { editable: true, argumentsSchema: refundSchema })).action;
    expect(ok?.editable).toBe(true);
    expect(ok?.argumentsSchema).toEqual(refundSchema);
    bad(
      approval({}, { argumentsSchema: refundSchema, arguments: { id: 'ch_1', amount: 0 } }),
      'input.action.arguments.amount',
    );
    bad(approval({}, { argumentsSchema: { type: 'nonsense' } }), 'input.action.argumentsSchema');
  });

  it('refuses unknown action fields', () => {
    bad(approval({}, { extra: 1 }), 'input.action.extra');
  });
});

describe('validateAskInput: quorum', () => {
  it('is kept for APPROVAL and CONFIRM, with rejections defaulting to 1', () => {
    expect(ask(approval({ quorum: { approvals: 2 } })).quorum).toEqual({
      approvals: 2,
      rejections: 1,
      voters: null,
    });
    expect(ask({ text: 'Ship?', format: 'CONFIRM', quorum: { approvals: 1, rejections: 2 } }).quorum).toEqual(
      {
        approvals: 1,
        rejections: 2,
        voters: null,
      },
    );
  });

  it('is refused for the other formats', () => {
    bad({ text: 'x', quorum: { approvals: 1 } }, 'input.quorum');
    bad({ text: 'x', format: 'FORM', schema: { type: 'object' }, quorum: { approvals: 1 } }, 'input.quorum');
  });

  it('approvals and rejections: 1 to 20', () => {
    expect(
      ask(approval({ quorum: { approvals: QUORUM_MAX, rejections: QUORUM_MAX } })).quorum?.approvals,
    ).toBe(20);
    expect(ask(approval({ quorum: { approvals: 1, rejections: 1 } })).quorum?.rejections).toBe(1);
    bad(approval({ quorum: { approvals: 0 } }), 'input.quorum.approvals');
    bad(approval({ quorum: { approvals: QUORUM_MAX + 1 } }), 'input.quorum.approvals');
    bad(approval({ quorum: { approvals: 1.5 } }), 'input.quorum.approvals');
    bad(approval({ quorum: { approvals: 1, rejections: 0 } }), 'input.quorum.rejections');
    bad(approval({ quorum: { approvals: 1, rejections: QUORUM_MAX + 1 } }), 'input.quorum.rejections');
  });

  it('voters: 1 to 100 distinct non-blank names, at least as many as approvals', () => {
    const many = Array.from({ length: QUORUM_VOTERS_MAX }, (_, i) => `v${i}`);
    expect(ask(approval({ quorum: { approvals: 2, voters: many } })).quorum?.voters).toHaveLength(100);
    bad(approval({ quorum: { approvals: 2, voters: [...many, 'one-more'] } }), 'input.quorum.voters');
    bad(approval({ quorum: { approvals: 1, voters: [] } }), 'input.quorum.voters');
    bad(approval({ quorum: { approvals: 2, voters: ['a', 'a'] } }), 'input.quorum.voters[1]');
    bad(approval({ quorum: { approvals: 1, voters: [' '] } }), 'input.quorum.voters[0]');
    bad(approval({ quorum: { approvals: 3, voters: ['a', 'b'] } }), 'input.quorum.voters');
  });

  it('refuses an editable action that needs more than one approval, and sensitive questions', () => {
    const editable = { editable: true, argumentsSchema: refundSchema };
    expect(ask(approval({ quorum: { approvals: 1, rejections: 2 } }, editable)).quorum?.approvals).toBe(1);
    bad(approval({ quorum: { approvals: 2 } }, editable), 'input.quorum.approvals');
    bad(approval({ sensitive: true, quorum: { approvals: 2 } }), 'input.quorum');
  });
});

const proposed = (over: Partial<ActionSpec> = {}): ActionSpec => ({
  name: 'payments.refund',
  summary: null,
  arguments: { id: 'ch_1', amount: 100 },
  argumentsSchema: refundSchema,
  editable: true,
  digest: actionDigest('payments.refund', { id: 'ch_1', amount: 100 }),
  ...over,
});
const target = (a: ActionSpec = proposed()) => ({
  format: 'APPROVAL' as const,
  options: null,
  schema: null,
  action: a,
});
const answerBad = (answer: unknown, field: string, a?: ActionSpec) =>
  expectBad(() => validateAnswer(target(a), answer), field);

describe('validateAnswer: APPROVAL', () => {
  it('an approval carries the proposed arguments; a rejection none', () => {
    expect(validateAnswer(target(), { decision: 'APPROVED' })).toEqual({
      decision: 'APPROVED',
      arguments: { id: 'ch_1', amount: 100 },
    });
    expect(validateAnswer(target(), { decision: 'REJECTED', note: 'too much' })).toEqual({
      decision: 'REJECTED',
      note: 'too much',
    });
  });

  it('an edit replaces the arguments when valid against the schema', () => {
    expect(validateAnswer(target(), { decision: 'APPROVED', arguments: { id: 'ch_1', amount: 50 } })).toEqual(
      {
        decision: 'APPROVED',
        arguments: { id: 'ch_1', amount: 50 },
      },
    );
    answerBad({ decision: 'APPROVED', arguments: { id: 'ch_1', amount: 501 } }, 'answer.arguments.amount');
    answerBad({ decision: 'APPROVED', arguments: { id: 'ch_1' } }, 'answer.arguments.amount');
    answerBad({ decision: 'APPROVED', arguments: 'no' }, 'answer.arguments');
  });

  it('refuses arguments with a rejection, and on an action that is not editable', () => {
    answerBad({ decision: 'REJECTED', arguments: { id: 'ch_1', amount: 50 } }, 'answer.arguments');
    answerBad(
      { decision: 'APPROVED', arguments: { id: 'ch_1', amount: 50 } },
      'answer.arguments',
      proposed({ editable: false }),
    );
  });

  it('decision must be APPROVED or REJECTED, and the answer an object with known keys', () => {
    answerBad({ decision: 'MAYBE' }, 'answer.decision');
    answerBad({}, 'answer.decision');
    answerBad(true, 'answer');
    answerBad({ decision: 'APPROVED', extra: 1 }, 'answer.extra');
  });

  it('note: at most 2,000 characters', () => {
    const max = 'n'.repeat(APPROVAL_NOTE_MAX_CHARS);
    expect(validateAnswer(target(), { decision: 'REJECTED', note: max })).toEqual({
      decision: 'REJECTED',
      note: max,
    });
    answerBad({ decision: 'REJECTED', note: `${max}n` }, 'answer.note');
    answerBad({ decision: 'REJECTED', note: 5 }, 'answer.note');
  });

  it('checkApprovalAnswer needs the action', () => {
    expectBad(() => checkApprovalAnswer(null, { decision: 'APPROVED' }), 'answer');
  });
});

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
function approvalRecord(over: Partial<QuestionRecord> = {}): QuestionRecord {
  const spec = {
    ...specOf({ id: 'q1', text: 'Refund?', format: 'APPROVAL', createdAt: T0 }),
    action: proposed(),
  };
  return { ...recordOf(spec, null), ...over };
}

describe('what an answered question decided', () => {
  it('APPROVAL: decision, the approved arguments, and whether they were edited', () => {
    const edited = approvalRecord({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { id: 'ch_1', amount: 50 } },
      answeredBy: 'ops',
      answeredAt: T0 + 1000,
    });
    expect(decisionOf(edited)).toBe('APPROVED');
    expect(approvedArgumentsOf(edited)).toEqual({ id: 'ch_1', amount: 50 });
    expect(editedOf(edited)).toBe(true);
    const asIs = approvalRecord({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { amount: 100, id: 'ch_1' } },
    });
    expect(editedOf(asIs)).toBe(false);
    const rejected = approvalRecord({ status: 'ANSWERED', answer: { decision: 'REJECTED' } });
    expect(decisionOf(rejected)).toBe('REJECTED');
    expect(editedOf(rejected)).toBe(false);
  });

  it('CONFIRM: true approves and false rejects', () => {
    const confirm = (answer: boolean) =>
      ({ ...recordOf(specOf({ format: 'CONFIRM' }), null), status: 'ANSWERED', answer }) as QuestionRecord;
    expect(decisionOf(confirm(true))).toBe('APPROVED');
    expect(decisionOf(confirm(false))).toBe('REJECTED');
  });

  it('a timeout decides nothing: no decision, and the receipt says TIMED_OUT without one', () => {
    const timedOut = approvalRecord({ status: 'TIMED_OUT', closedAt: T0 + 5000 });
    expect(decisionOf(timedOut)).toBeNull();
    expect(editedOf(timedOut)).toBeNull();
    const claims = receiptClaimsOf(timedOut, 'https://hitl.example');
    expect(claims?.outcome).toEqual({ status: 'TIMED_OUT', at: '2026-12-01T12:00:05.000Z' });
    expect(claims?.question.actionDigest).toBe(proposed().digest);
  });

  it('the receipt of an edited approval carries both digests and the decision', () => {
    const q = approvalRecord({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { id: 'ch_1', amount: 50 } },
      answeredBy: 'ops',
      answeredAt: T0 + 1000,
      votes: [{ by: 'ops', via: 'api', decision: 'APPROVED', note: 'halved', at: T0 + 1000 }],
    });
    const claims = receiptClaimsOf(q, 'https://hitl.example');
    expect(claims?.question.actionDigest).toBe(actionDigest('payments.refund', { id: 'ch_1', amount: 100 }));
    expect(claims?.outcome.decision).toBe('APPROVED');
    expect(claims?.outcome.approvedActionDigest).toBe(
      jcsDigest({ name: 'payments.refund', arguments: { amount: 50, id: 'ch_1' } }),
    );
    expect(claims?.outcome.votes).toEqual([
      { by: 'ops', decision: 'APPROVED', at: '2026-12-01T12:00:01.000Z' },
    ]);
    expect(JSON.stringify(claims)).not.toContain('halved');
  });
});

// One question as the store takes it, for the figures that time the store or the signer directly
// (a CONFIRM asked now, due in an hour): the same question for every figure that needs one.
import { randomUUID } from 'node:crypto';
import type { QuestionSpec } from '../../src/domain/question.ts';

export function confirmSpec(): QuestionSpec {
  const now = Date.now();
  return {
    id: randomUUID(),
    text: 'Deploy build 1234 to production?',
    format: 'CONFIRM',
    options: null,
    schema: null,
    link: null,
    verifier: null,
    media: null,
    groupId: null,
    audience: null,
    channel: null,
    recipient: null,
    sensitive: false,
    askedBy: 'agent',
    idempotencyKey: null,
    createdAt: now,
    timeoutAt: now + 3_600_000,
  };
}

// One builder for the inbox's client-side Question in unit tests: a pending CONFIRM with every
// field set, numbered per builder so each test file gets its own sequence. The file chooses how
// ids and deadlines follow the number, since its sort and lookup cases rely on them.
import type { Question } from '../../src/inbox/lib/model.ts';

export interface QuestionNumbering {
  id(n: number): string;
  timeoutAt(n: number): string;
}

export function questionBuilder(numbering: QuestionNumbering): (over?: Partial<Question>) => Question {
  let seq = 0;
  return (over = {}) => {
    seq++;
    return {
      id: numbering.id(seq),
      text: `Question ${seq}`,
      format: 'CONFIRM',
      options: null,
      schema: null,
      link: null,
      serverVerified: false,
      media: null,
      groupId: null,
      audience: null,
      routedTo: null,
      channel: null,
      recipient: null,
      sensitive: false,
      metadata: null,
      notify: null,
      escalations: [],
      status: 'PENDING',
      askedBy: 'agent',
      createdAt: new Date(Date.UTC(2025, 0, 1, 12, 0, seq)).toISOString(),
      timeoutAt: numbering.timeoutAt(seq),
      answer: null,
      answeredBy: null,
      answeredByName: null,
      onBehalfOf: null,
      answeredAt: null,
      closedAt: null,
      cancelReason: null,
      action: null,
      quorum: null,
      votes: [],
      decision: null,
      edited: null,
      execution: null,
      ...over,
    };
  };
}

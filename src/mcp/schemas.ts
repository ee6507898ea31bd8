// The tools' input and output schemas (API.md §13). Inputs are snake_case and strict (an
// unknown argument is refused by name, arguments.ts); the shapes here check types only: every
// question rule is checked once, by the service, like any ask.
import { z } from 'zod';
import { ANSWER_FORMATS, QUESTION_STATUSES } from '../domain/question.ts';
import { withJsonSchemaOnce } from './schema-json.ts';

/** Longest wait one tool call may ask for: several MCP clients cut a call at about 60 s. */
export const WAIT_MAX_SECONDS = 300;
export const WAIT_DEFAULT_SECONDS = 45;
export const LIST_MAX = 100;
export const LIST_DEFAULT = 20;

const STATUSES = QUESTION_STATUSES;

const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(WAIT_MAX_SECONDS)
  .optional()
  .describe(
    `Seconds to wait for the answer before returning PENDING (0 to ${WAIT_MAX_SECONDS}, default ${WAIT_DEFAULT_SECONDS}).`,
  );

export const askUserInput = z.strictObject({
  text: z.string().describe('The question, as the person will read it.'),
  format: z
    .enum(ANSWER_FORMATS)
    .optional()
    .describe(
      'How the person answers (default TEXT). CONFIRM answers true/false. APPROVAL (with action) answers {decision: "APPROVED" | "REJECTED", arguments, note}: run answer.arguments only when APPROVED.',
    ),
  action: z
    .strictObject({
      name: z
        .string()
        .describe('What you want to do: 1–100 characters of A-Z a-z 0-9 _ . : - (e.g. payments.refund).'),
      summary: z.string().optional().describe('One line for people, at most 300 characters.'),
      arguments: z
        .record(z.string(), z.unknown())
        .describe('The proposed arguments (at most 64 KiB as JSON).'),
      arguments_schema: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('A JSON Schema of the arguments; required when editable.'),
      editable: z.boolean().optional().describe('May the approver change the arguments before approving?'),
      assurance: z
        .enum(['STANDARD', 'HIGH'])
        .optional()
        .describe(
          'HIGH: only the approver, with their passkey in the inbox, can approve it (default STANDARD).',
        ),
      requested_by: z
        .string()
        .optional()
        .describe(
          'The person you act for (an identity): they never answer or vote on it, nor do their delegates (separation of duties).',
        ),
      executors: z
        .array(z.string())
        .optional()
        .describe('Principal ids, besides you, that may read it and consume the approval (at most 10).'),
      valid_seconds: z
        .number()
        .int()
        .optional()
        .describe('How long the approval may be consumed, counted from the decision (1–2,592,000 s).'),
    })
    .optional()
    .describe('APPROVAL (required there): the action you ask permission for.'),
  quorum: z
    .strictObject({
      approvals: z.number().int().describe('Distinct approvals needed, 1–20.'),
      rejections: z
        .number()
        .int()
        .optional()
        .describe('Distinct rejections that reject it, 1–20 (default 1).'),
      voters: z.array(z.string()).optional().describe('Who may vote; absent: anyone who may answer.'),
    })
    .optional()
    .describe('APPROVAL and CONFIRM: several approvers; each answer is a vote.'),
  options: z.array(z.string()).optional().describe('SELECT: the choices.'),
  schema: z.record(z.string(), z.unknown()).optional().describe('FORM: a JSON Schema the answer must match.'),
  link: z.string().optional().describe('EXTERNAL: a URL template holding {callback_url}.'),
  verifier: z
    .strictObject({ name: z.string(), config: z.unknown().optional() })
    .optional()
    .describe('EXTERNAL: a webhook verifier that checks the provider’s signature.'),
  channel: z.string().optional().describe('A configured channel to deliver the question through.'),
  recipient: z.string().optional().describe('The channel recipient.'),
  audience: z.string().optional().describe('Who may answer (a principal id).'),
  group_id: z.string().optional().describe('Groups related questions.'),
  media: z
    .array(
      z.strictObject({
        kind: z.enum(['IMAGE', 'LINK']),
        url: z.string(),
        caption: z.string().optional(),
      }),
    )
    .optional()
    .describe('Images or links shown with the question.'),
  timeout_seconds: z.number().int().optional().describe('How long the question stays answerable.'),
  sensitive: z.boolean().optional().describe('The answer is a secret: returned once, never stored.'),
  idempotency_key: z
    .string()
    .optional()
    .describe('Asking again with the same key returns the same question instead of a second one.'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Your own JSON object (e.g. a run id), returned with the question and in its resume webhook.'),
  notify: z
    .string()
    .optional()
    .describe('A resume-webhook endpoint named in the server manifest, called when the question resolves.'),
  escalation: z
    .array(
      z.strictObject({
        after_seconds: z.number().int(),
        action: z.enum(['REMIND', 'REROUTE']),
        channel: z.string().optional(),
        recipient: z.string().optional(),
      }),
    )
    .optional()
    .describe(
      'Reminders and escalation while nobody answers: up to 10 steps, each at least 10 s after the ask, increasing, before the timeout. REROUTE delivers to another channel as well.',
    ),
  escalation_policy: z
    .string()
    .optional()
    .describe('A named escalation policy of the server manifest (not with escalation).'),
  wait_seconds: waitSeconds,
  answer_here: z
    .boolean()
    .optional()
    .describe(
      'Also ask the user of this MCP client, in the client (form elicitation), when the client supports it. Not for sensitive questions, media or editable APPROVALs.',
    ),
});

export const awaitAnswerInput = z.strictObject({
  id: z.string().describe('The question id returned by ask_user.'),
  wait_seconds: waitSeconds,
});

export const idInput = z.strictObject({ id: z.string().describe('The question id.') });

export const listQuestionsInput = z.strictObject({
  status: z.array(z.enum(STATUSES)).optional().describe('Only questions in these states.'),
  first: z
    .number()
    .int()
    .min(1)
    .max(LIST_MAX)
    .optional()
    .describe(`How many, newest first (1 to ${LIST_MAX}, default ${LIST_DEFAULT}).`),
  after: z.string().optional().describe('The end_cursor of the previous page.'),
});

export const cancelQuestionInput = z.strictObject({
  id: z.string().describe('The question id.'),
  reason: z.string().optional().describe('Why, shown with the cancelled question.'),
});

// The output schemas are converted to JSON Schema once per process (schema-json.ts).
export const waitOutput = withJsonSchemaOnce(
  z.object({
    status: z.enum(STATUSES),
    id: z.string(),
    answer: z.unknown(),
    /** The signed decision receipt once closed (API.md §16); null while PENDING or when there is none. */
    receipt: z.string().nullable(),
  }),
);

/** The GraphQL `Question` shape; extra fields pass so both adapters' questions fit. */
const question = z.looseObject({
  id: z.string(),
  text: z.string(),
  format: z.string(),
  status: z.enum(STATUSES),
  askedBy: z.string(),
  createdAt: z.string(),
  timeoutAt: z.string(),
  answer: z.unknown(),
  /** The escalation ladder (API.md §18): each step and, once fired, when and how it went. */
  escalations: z
    .array(
      z.looseObject({
        afterSeconds: z.number().int(),
        action: z.enum(['REMIND', 'REROUTE']),
        channel: z.string().nullable(),
        recipient: z.string().nullable(),
        firedAt: z.string().nullable(),
        outcome: z.string().nullable(),
      }),
    )
    .optional(),
});

export const getQuestionOutput = withJsonSchemaOnce(z.object({ question: question.nullable() }));
export const listQuestionsOutput = withJsonSchemaOnce(
  z.object({
    questions: z.array(question),
    totalCount: z.number().int(),
    endCursor: z.string().nullable(),
  }),
);
export const cancelQuestionOutput = withJsonSchemaOnce(z.object({ question }));

// Question: one human-in-the-loop interaction, as every principal who may see it sees it.
// The verifier binding and the idempotency key stay server-side; a sensitive answer is never shown.
import { decisionOf, editedOf } from '../../domain/approval.ts';
import { isServerVerified, type QuestionRecord } from '../../domain/question.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar, JSONScalar } from '../scalars.ts';
import { Action, Quorum, Vote } from './approval.ts';
import { AnswerFormat, Decision, QuestionStatus } from './enums.ts';
import { EscalationStep } from './escalation.ts';
import { MediaItem } from './media-item.ts';
import { AppliedPolicyRule } from './policy.ts';

/** Optional labels shown as given; null when absent. */
type OptionalText = 'groupId' | 'audience' | 'channel' | 'recipient' | 'answeredBy' | 'cancelReason';

export const Question = builder.objectRef<QuestionRecord>('Question').implement({
  description: 'A question asked of a person, with its state and, once answered, its answer.',
  fields: (t) => {
    const optionalText = (name: OptionalText, description: string) =>
      t.exposeString(name, { nullable: true, description });
    const moment = (name: 'createdAt' | 'timeoutAt', description: string) =>
      t.field({ type: DateTime, description, resolve: (q) => q[name] });
    const optionalMoment = (name: 'answeredAt' | 'closedAt', description: string) =>
      t.field({ type: DateTime, nullable: true, description, resolve: (q) => q[name] });
    return {
      id: t.exposeID('id', { description: 'The question’s id.' }),
      text: t.exposeString('text', { description: 'What the person is asked.' }),
      format: t.expose('format', { type: AnswerFormat, description: 'What kind of answer it takes.' }),
      options: t.exposeStringList('options', {
        nullable: true,
        description: 'SELECT: the options to choose from, in order. Null for other formats.',
      }),
      schema: t.field({
        type: JSONObjectScalar,
        nullable: true,
        description:
          'The JSON Schema the answer must satisfy: always for FORM, for EXTERNAL when the payload is validated.',
        resolve: (q) => q.schema,
      }),
      link: t.string({
        nullable: true,
        description:
          'EXTERNAL: the URL the person visits (it embeds the callback URL). Null when `serverVerified`.',
        resolve: (q) => (isServerVerified(q) ? null : q.link),
      }),
      serverVerified: t.boolean({
        description: 'EXTERNAL and bound to a webhook verifier: the answer arrives signed by the provider.',
        resolve: (q) => isServerVerified(q),
      }),
      media: t.field({
        type: [MediaItem],
        nullable: true,
        description: 'Images and links shown with the question. Null when it has none.',
        resolve: (q) => q.media,
      }),
      groupId: optionalText('groupId', 'A label the asker gave to group related questions.'),
      audience: optionalText(
        'audience',
        'The principal id the question is addressed to; null when it is unaddressed.',
      ),
      channel: optionalText('channel', 'The channel that delivered the question, if any.'),
      recipient: optionalText('recipient', 'Who the channel delivered it to, if the asker named one.'),
      sensitive: t.exposeBoolean('sensitive', {
        description: 'The answer reaches only the asker, once, and is never stored or shown here.',
      }),
      metadata: t.field({
        type: JSONObjectScalar,
        nullable: true,
        description: 'The JSON object the asker attached (`metadata`), or null.',
        resolve: (q) => q.metadata ?? null,
      }),
      notify: t.string({
        nullable: true,
        description: 'The resume-webhook endpoint called when it resolves, or null.',
        resolve: (q) => q.notify ?? null,
      }),
      escalations: t.field({
        type: [EscalationStep],
        description: 'The escalation ladder with what each fired step recorded; empty without one.',
        // Most questions have no ladder: answered synchronously, so executing them stays
        // synchronous (a promise here made every feed event's execution async, and the
        // SNAPSHOT's per-question cache and the backlog's direct writes gave way to it).
        resolve: (q, _args, ctx) => (q.escalation?.length ? ctx.engine.escalations(q) : []),
      }),
      routedTo: t.string({
        nullable: true,
        description:
          'An `oncall:<group>` question: who is on duty for it — resolved when it was asked and again at each escalation step that fired; null for other audiences or when nobody was on duty.',
        // Synchronous unless a ladder may have rerouted it: the inbox's feed reads this field
        // for every question, and a promise per question made the SNAPSHOT's execution async.
        resolve: (q, _args, ctx) => {
          if (q.routedTo === undefined) return null;
          if (!q.escalation?.length) return q.routedTo;
          const initial = q.routedTo;
          return ctx.engine.escalations(q).then((steps) => {
            const fired = steps.filter((s) => s.routedTo !== undefined);
            return fired.length > 0 ? (fired.at(-1)?.routedTo ?? null) : initial;
          });
        },
      }),
      status: t.expose('status', { type: QuestionStatus, description: 'Where the question is in its life.' }),
      askedBy: t.exposeString('askedBy', { description: 'The principal id of the asker.' }),
      createdAt: moment('createdAt', 'When it was asked.'),
      timeoutAt: moment('timeoutAt', 'When it times out if nobody answers.'),
      answer: t.field({
        type: JSONScalar,
        nullable: true,
        description: 'The answer: null while pending, and always null when `sensitive`.',
        resolve: (q) => (q.sensitive || q.status !== 'ANSWERED' ? null : (q.answer ?? null)),
      }),
      answeredBy: optionalText(
        'answeredBy',
        'Who answered: a principal id, or "callback" for the public callback door.',
      ),
      answeredByName: t.string({
        nullable: true,
        description:
          'The name of who answered, where one is known (a signed-in person, a channel user the channel named); ' +
          '`answeredBy` stays the stable id. Null otherwise.',
        resolve: (q, _args, ctx) => (q.answeredBy ? ctx.engine.nameOf(q.answeredBy) : null),
      }),
      answeredAt: optionalMoment('answeredAt', 'When it was answered.'),
      closedAt: optionalMoment('closedAt', 'When it timed out or was cancelled.'),
      cancelReason: optionalText('cancelReason', 'The reason given when it was cancelled, if any.'),
      action: t.field({
        type: Action,
        nullable: true,
        description: 'APPROVAL: what the agent proposes to do. Null for other formats.',
        resolve: (q) => q.action ?? null,
      }),
      quorum: t.field({
        type: Quorum,
        nullable: true,
        description: 'The quorum that decides it, when the asker set one.',
        resolve: (q) => q.quorum ?? null,
      }),
      votes: t.field({
        type: [Vote],
        description: 'The votes cast so far (questions with a quorum), oldest first.',
        resolve: (q) => q.votes ?? [],
      }),
      decision: t.field({
        type: Decision,
        nullable: true,
        description:
          'APPROVAL and CONFIRM: what was decided, once ANSWERED (CONFIRM true = APPROVED). Null while pending, after a timeout or cancel, and when `sensitive`.',
        resolve: (q) => (q.sensitive ? null : decisionOf(q)),
      }),
      edited: t.boolean({
        nullable: true,
        description:
          'APPROVAL, once decided: whether the approved arguments differ from the proposal. Null otherwise.',
        resolve: (q) => (q.sensitive ? null : editedOf(q)),
      }),
      policy: t.field({
        type: AppliedPolicyRule,
        nullable: true,
        description:
          'APPROVAL: the enforced policy rule that decided it (ALLOW, DENY) or added scrutiny (ASK). Null when no rule applied.',
        resolve: (q) => q.policy ?? null,
      }),
      policyShadow: t.field({
        type: [AppliedPolicyRule],
        description:
          'APPROVAL: the SHADOW rules that matched, and what each would have done. Empty when none.',
        resolve: (q) => q.policyShadow ?? [],
      }),
      receipt: t.string({
        nullable: true,
        description:
          'The signed decision receipt (a compact JWS, EdDSA) once the question has left PENDING; ' +
          'verify it with the keys at `/.well-known/jwks.json`. Null while pending.',
        resolve: (q, _args, ctx) => ctx.engine.receipt(q),
      }),
    };
  },
});

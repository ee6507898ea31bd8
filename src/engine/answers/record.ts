// The one answer path (API.md §3, §5.3, §15). Every answer, whatever door it came by — GraphQL
// and REST, MCP elicitation, the callback door, each channel — is recorded here: the door only
// finds the question, says who is answering and what they gave, and maps the outcome to its wire
// format. So a rule about who may decide is written once, here, and holds on every door.
//
// In order: an EXTERNAL question takes answers through its callback door only; a question no
// longer pending refuses, unless this is a retry of the answer or vote this identity gave
// (domain/answer-retry.ts); the value is validated; a question with a quorum takes it as a vote,
// any other is claimed through the one guard (a sensitive answer only in the one-read reply
// slot); a counted answer keeps the answerer's name and leaves this process's announced ones.
import { validateAnswer } from '../../domain/answer.ts';
import { repeatsAnswer, repeatsVote } from '../../domain/answer-retry.ts';
import { decisionOfAnswer } from '../../domain/approval.ts';
import { DomainError, isDomainError, notFound, storeUnavailable } from '../../domain/errors.ts';
import type { GrantRequest } from '../../domain/policy/grant.ts';
import type { Principal, Role } from '../../domain/principal.ts';
import type { AnswerEvidence, QuestionRecord } from '../../domain/question.ts';
import { isPlainObject } from '../../domain/values.ts';
import { type EngineContext, refusal } from '../context.ts';
import { createNameRemembering } from '../people/names.ts';
import type { PolicyOutcome } from '../policies/apply.ts';
import { createGrantGiving, grantRefusalKind, splitGrant } from '../policies/grants.ts';
import { audienceRefusal, quorumFor } from './addressees.ts';
import { actingAnswerer, forWhom } from './on-behalf.ts';
import type { AnswerOutcome } from './outcome.ts';
import { separationRefusal } from './separation.ts';
import { evidenceFor, type StepUpProof } from './step-up.ts';

type RuleDecision = Extract<PolicyOutcome, { kind: 'decided' }>;

/** Who is answering, as the door established it. */
export interface Answerer {
  /** The identity recorded (`answeredBy`, a vote's `by`): a principal id, `mcp:<id>`, `callback`, `<channel>:<user>`. */
  id: string;
  /** The door: `api`, `mcp`, `callback` or `channel:<name>` (a vote's `via`). */
  via: string;
  /** The display name the door was given for this identity (cleaned), kept when the answer counts. */
  name?: string | null;
  /** The key or session behind an `api` answer: whether it may give a grant (API.md §20). */
  principal?: Pick<Principal, 'roles' | 'restricted'>;
  /** A principal's roles (the in-client doors); absent for channel, callback and MCP answerers. */
  roles?: readonly Role[];
  /** The groups a principal brought (API.md §22); the configured ones are looked up by `id` too. */
  groups?: readonly string[];
  /** Set by the path itself (on-behalf.ts), never by a door: the person a delegate answers for. */
  onBehalfOf?: string;
}

export interface RecordOptions {
  /** `q` is this process's announced copy, perhaps closed since: an invalid answer reads it again first. */
  announced?: boolean;
  /** The door could not read an answer from what it was given: refused as this, unless the question is closed. */
  unreadable?: DomainError;
  /** A passkey assertion the inbox's passkey door verified (API.md §23): HIGH approvals need it. */
  stepUp?: StepUpProof;
}

/** UNAVAILABLE on an answer: the claim may be applied when the store resumes. */
export const ANSWER_UNKNOWN =
  'the store did not respond; your answer may have been recorded — retrying is safe';
export const ALREADY_VOTED = 'you have already voted';

/** Whether an answer to `q` is a vote rather than a claim. */
export function takesVotes(q: Pick<QuestionRecord, 'quorum'>): boolean {
  return q.quorum !== null && q.quorum !== undefined;
}

/** The note a vote carries (APPROVAL's `note`), or null. */
function noteOf(value: unknown): string | null {
  return isPlainObject(value) && typeof value.note === 'string' ? value.note : null;
}

export type RecordAnswer = (
  q: QuestionRecord,
  by: Answerer,
  value: unknown,
  opts?: RecordOptions,
) => Promise<AnswerOutcome>;

/** The one answer path, as the engine's parts use it. */
export interface AnswerPath {
  record: RecordAnswer;
  /** What follows an answer that counted: the name kept, the announcement forgotten (one-step paths too). */
  counted(q: QuestionRecord, by: Answerer): Promise<void>;
  /**
   * A question a policy rule decided at ask time (API.md §20), resolved in the claim step that
   * writes DECIDED_BY_POLICY in place of ANSWERED. Its answer is the proposal, `{decision,
   * arguments}` as an approver's would be, by `policy:<rule id>`.
   */
  decideByRule(q: QuestionRecord, ruled: RuleDecision): Promise<QuestionRecord>;
}

export function createRecordAnswer(ctx: EngineContext): AnswerPath {
  const rememberName = createNameRemembering(ctx.people, ctx.clock);
  const grants = createGrantGiving(ctx);

  async function counted(q: QuestionRecord, by: Answerer): Promise<void> {
    if (q.status !== 'PENDING') ctx.announced.forget(q.id);
    if (by.name) await rememberName(by.id, by.name);
    // Only a link question reads further (one field test for every other answer).
    if (q.linkFor !== undefined) await linked(q, by);
  }

  /**
   * A link question (API.md §22) answered "yes" from its own channel records the link: that
   * answer is what proves the person reads there. A "yes" through any other door (the inbox, the
   * callback page, REST, MCP) links nothing, nor does a "no".
   */
  async function linked(q: QuestionRecord, by: Answerer): Promise<void> {
    const person = q.linkFor;
    if (!person || !ctx.channelLinks || q.channel === null || q.recipient === null) return;
    if (q.status !== 'ANSWERED' || q.answer !== true || by.via !== `channel:${q.channel}`) return;
    const r = await ctx.channelLinks.confirm(person, q.channel, q.recipient, by.id, by.via);
    // Never the recipient or the person in the log (§22: recipients stay out of logs).
    if (r === 'full')
      ctx.logger.warn(
        { questionId: q.id, channel: q.channel },
        'channel link not recorded: the person already has the most links',
      );
  }

  /**
   * A question already closed: a retry of the answer or vote this identity gave gets the
   * question as it stands; anything else is refused with why.
   */
  function afterClose(q: QuestionRecord, by: Answerer, given: unknown): AnswerOutcome {
    if (isRetry(q, by, given)) return { kind: 'repeat', question: q };
    return { kind: 'closed', question: q, error: refusal(q, by.id) };
  }

  /** Whether `given` (as the door read it, unvalidated) is what `by` already answered or voted. */
  function isRetry(q: QuestionRecord, by: Answerer, given: unknown): boolean {
    let value: unknown;
    try {
      value = validateAnswer(q, given);
    } catch {
      return false;
    }
    // The identity whose answer closed it: the whole value must match (edited arguments too).
    if (q.answeredBy === by.id) return repeatsAnswer(q, by.id, value);
    const decision = decisionOfAnswer(q.format, value);
    return decision !== null && repeatsVote(q, by.id, decision, noteOf(value));
  }

  async function unknownOnTimeout<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (isDomainError(err) && err.code === 'UNAVAILABLE') throw storeUnavailable(ANSWER_UNKNOWN);
      throw err;
    }
  }

  async function vote(
    q: QuestionRecord,
    by: Answerer,
    value: unknown,
    given: unknown,
    evidence: AnswerEvidence | null,
  ): Promise<AnswerOutcome> {
    const quorum = q.quorum;
    const decision = decisionOfAnswer(q.format, value);
    if (!quorum || decision === null) {
      return {
        kind: 'invalid',
        error: new DomainError('BAD_USER_INPUT', 'this answer is not a vote', 'answer'),
      };
    }
    const now = ctx.clock();
    const r = await unknownOnTimeout(() =>
      ctx.store.vote(q.id, {
        vote: { by: by.id, via: by.via, decision, note: noteOf(value), at: now, ...forWhom(by), ...evidence },
        quorum: quorumFor(quorum, by, ctx.directory),
        answer: value,
        now,
        retentionMs: ctx.retentionMs,
      }),
    );
    switch (r.kind) {
      case 'missing':
        return { kind: 'notFound' };
      case 'forbidden':
        return {
          kind: 'forbidden',
          error: new DomainError('FORBIDDEN', 'you are not among the voters of this question'),
        };
      case 'voted':
        // A retry of this identity's own vote is a success that counts nothing (API.md §15).
        if (repeatsVote(r.question, by.id, decision, noteOf(value)))
          return { kind: 'repeat', question: r.question };
        return { kind: 'forbidden', error: new DomainError('ALREADY_ANSWERED', ALREADY_VOTED) };
      case 'lost':
        ctx.announced.forget(q.id);
        return afterClose(r.question, by, given);
      case 'decided':
        await counted(r.question, by);
        return { kind: 'recorded', question: r.question };
      case 'counted':
        await counted(r.question, by);
        return { kind: 'voted', question: r.question };
      default:
        return r satisfies never;
    }
  }

  async function claim(
    q: QuestionRecord,
    by: Answerer,
    value: unknown,
    given: unknown,
    evidence: AnswerEvidence | null,
  ): Promise<AnswerOutcome> {
    const r = await unknownOnTimeout(() =>
      ctx.claim(q.id, {
        status: 'ANSWERED',
        answer: q.sensitive ? null : value,
        reply: q.sensitive ? value : undefined,
        answeredBy: by.id,
        ...forWhom(by),
        evidence,
      }),
    );
    if (r.kind === 'missing') return { kind: 'notFound' };
    if (r.kind === 'lost') return afterClose(r.question, by, given);
    await counted(r.question, by);
    return { kind: 'recorded', question: r.question };
  }

  async function record(
    q: QuestionRecord,
    by: Answerer,
    sent: unknown,
    opts: RecordOptions = {},
  ): Promise<AnswerOutcome> {
    // A grant rides an approval (API.md §20): the answer is checked and stored without it.
    const { given, grant } = splitGrant(q, sent);
    if (q.format === 'EXTERNAL' && by.via !== 'callback') {
      return {
        kind: 'invalid',
        error: new DomainError('WRONG_DOOR', 'an EXTERNAL question is answered through its callback URL'),
      };
    }
    if (q.status !== 'PENDING') return afterClose(q, by, given);
    // Who may decide (API.md §2, §22): the question's addressees, then separation of duties.
    // A delegate answers for the person who handed them the question (API.md §22); the person
    // a rotation routed it to may hand it on too, so the addressee check reads who acts for whom.
    const acting = await actingAnswerer(ctx.store.delegations, ctx.clock(), q, by);
    const refused =
      audienceRefusal(q, acting, ctx.directory) ?? (await separationRefusal(q, by, ctx.clock(), ctx.actsFor));
    if (refused) return { kind: 'forbidden', error: refused };
    let value: unknown;
    try {
      if (opts.unreadable) throw opts.unreadable;
      value = validateAnswer(q, given);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      // A closed question says so before an invalid answer does, as it would after a read.
      if (opts.announced) {
        const now = await ctx.store.get(q.id);
        if (!now) return { kind: 'notFound' };
        if (now.status !== 'PENDING') return afterClose(now, by, given);
      }
      return { kind: 'invalid', error: err };
    }
    // What the person was shown, and the step-up a HIGH approval needs (API.md §23).
    const checked = evidenceFor(ctx, q, by, value, opts.stepUp);
    if ('refused' in checked) return { kind: 'forbidden', error: checked.refused };
    const { evidence } = checked;
    let granting: GrantRequest | null = null;
    if (grant !== undefined) {
      try {
        granting = await grants.check(q, by, value, grant);
      } catch (err) {
        const kind = grantRefusalKind(err);
        if (kind === null || !isDomainError(err)) throw err;
        return { kind, error: err };
      }
    }
    const outcome = takesVotes(q)
      ? await vote(q, acting, value, given, evidence)
      : await claim(q, acting, value, given, evidence);
    // A grant given as a delegate is given for the person they acted for (it lapses with the delegation).
    if (granting && outcome.kind === 'recorded') await grants.give(outcome.question, acting, granting);
    return outcome;
  }

  async function decideByRule(q: QuestionRecord, ruled: RuleDecision): Promise<QuestionRecord> {
    const answer =
      ruled.decision === 'APPROVED'
        ? { decision: ruled.decision, arguments: q.action!.arguments }
        : { decision: ruled.decision };
    const claimed = await ctx.claim(q.id, {
      status: 'ANSWERED',
      answer: q.sensitive ? null : answer,
      ...(q.sensitive ? { reply: answer } : {}),
      answeredBy: `policy:${ruled.rule.id}`,
      policy: {
        ruleId: ruled.rule.id,
        version: ruled.rule.version,
        effect: ruled.rule.effect,
        actionDigest: q.action!.digest,
      },
    });
    if (claimed.kind === 'missing') throw notFound();
    return claimed.question;
  }

  return { record, counted, decideByRule };
}

/** The question an answer leaves, for doors that return it (GraphQL, REST, MCP); a refusal is thrown. */
export function questionOrThrow(o: AnswerOutcome): QuestionRecord {
  switch (o.kind) {
    case 'recorded':
    case 'voted':
    case 'repeat':
      return o.question;
    case 'closed':
    case 'invalid':
    case 'forbidden':
      throw o.error;
    case 'notFound':
      throw notFound();
    default:
      return o satisfies never;
  }
}

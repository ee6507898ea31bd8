// Reminders and escalation ladders (API.md §18): the steps an asker (or a manifest policy)
// attaches to a question, checked before anything is stored. Pure: the caller passes the
// channel names and the policies that exist.
import { badInput } from './errors.ts';
import { exceedsChars, isBlank, LABEL_MAX_CHARS } from './limits.ts';
import { isPlainObject, listChoices, own } from './values.ts';

export const ESCALATION_ACTIONS = ['REMIND', 'REROUTE'] as const;
export type EscalationAction = (typeof ESCALATION_ACTIONS)[number];

/** Most steps one ladder has. */
export const ESCALATION_MAX_STEPS = 10;
/** The earliest a step may fire, in seconds after the question was asked. */
export const ESCALATION_MIN_AFTER_SECONDS = 10;

/** One rung of the ladder, as asked and as kept with the question's spec. */
export interface EscalationStep {
  afterSeconds: number;
  action: EscalationAction;
  /** REROUTE: the channel it is delivered to as well; null for REMIND. */
  channel: string | null;
  /** REROUTE: who on that channel (the channel's defaultRecipient when null). */
  recipient: string | null;
}

/** What a fired step recorded: when, and `DELIVERED` or why it failed. */
export interface FiredStep {
  firedAt: number;
  outcome: string;
  /** An `oncall:<group>` question (API.md §22): who was on duty when the step fired. */
  routedTo?: string | null;
}

/** The outcome of a step whose every delivery went through. */
export const DELIVERED = 'DELIVERED';
/** Longest outcome kept (a failure's cause is cut). */
export const OUTCOME_MAX_CHARS = 200;

const STEP_KEYS = new Set(['afterSeconds', 'action', 'channel', 'recipient']);

function checkStep(raw: unknown, field: string, channels: ReadonlySet<string>): EscalationStep {
  if (!isPlainObject(raw)) throw badInput('a step must be an object', field);
  for (const key of Object.keys(raw)) {
    if (!STEP_KEYS.has(key)) {
      throw badInput(`unknown field (expected: ${listChoices(STEP_KEYS)})`, `${field}.${key.slice(0, 64)}`);
    }
  }
  const after = own(raw, 'afterSeconds');
  if (typeof after !== 'number' || !Number.isSafeInteger(after)) {
    throw badInput('afterSeconds must be a whole number of seconds', `${field}.afterSeconds`);
  }
  if (after < ESCALATION_MIN_AFTER_SECONDS) {
    throw badInput(`afterSeconds must be at least ${ESCALATION_MIN_AFTER_SECONDS}`, `${field}.afterSeconds`);
  }
  const action = own(raw, 'action');
  if (typeof action !== 'string' || !(ESCALATION_ACTIONS as readonly string[]).includes(action)) {
    throw badInput(`action must be one of ${listChoices(ESCALATION_ACTIONS)}`, `${field}.action`);
  }
  const channel = own(raw, 'channel') ?? null;
  const recipient = own(raw, 'recipient') ?? null;
  if (channel !== null && typeof channel !== 'string')
    throw badInput('channel must be a string', `${field}.channel`);
  if (recipient !== null && typeof recipient !== 'string') {
    throw badInput('recipient must be a string', `${field}.recipient`);
  }
  if (action === 'REMIND') {
    // A reminder goes where the question already went; a new place is a REROUTE.
    if (channel !== null) throw badInput('REMIND takes no channel (use REROUTE)', `${field}.channel`);
    if (recipient !== null) throw badInput('REMIND takes no recipient (use REROUTE)', `${field}.recipient`);
    return { afterSeconds: after, action: 'REMIND', channel: null, recipient: null };
  }
  if (channel === null) throw badInput('REROUTE needs a channel', `${field}.channel`);
  if (!channels.has(channel)) {
    const known = channels.size ? `configured: ${listChoices(channels)}` : 'the manifest names none';
    throw badInput(`unknown channel (${known})`, `${field}.channel`);
  }
  if (recipient !== null) {
    if (isBlank(recipient)) throw badInput('recipient must not be blank', `${field}.recipient`);
    if (exceedsChars(recipient, LABEL_MAX_CHARS)) {
      throw badInput(`recipient must be at most ${LABEL_MAX_CHARS} characters`, `${field}.recipient`);
    }
  }
  return { afterSeconds: after, action: 'REROUTE', channel, recipient };
}

/**
 * A ladder as given (`input.escalation`, or a manifest policy): at most ESCALATION_MAX_STEPS
 * steps, each at least ESCALATION_MIN_AFTER_SECONDS after the ask, strictly increasing,
 * REROUTE to a configured channel. Whether it fits before the timeout is checked by
 * `checkLadderTiming` once the timeout is known.
 */
export function checkEscalationSteps(
  raw: unknown,
  field: string,
  channels: ReadonlySet<string>,
): EscalationStep[] {
  if (!Array.isArray(raw)) throw badInput('escalation must be a list of steps', field);
  if (raw.length > ESCALATION_MAX_STEPS) {
    throw badInput(`escalation must have at most ${ESCALATION_MAX_STEPS} steps`, field);
  }
  const steps = raw.map((s, i) => checkStep(s, `${field}[${i}]`, channels));
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]!.afterSeconds <= steps[i - 1]!.afterSeconds) {
      throw badInput(
        `afterSeconds must be strictly increasing (step ${i - 1} fires after ${steps[i - 1]!.afterSeconds})`,
        `${field}[${i}].afterSeconds`,
      );
    }
  }
  return steps;
}

/** Every step must fire before the question times out (a step at the deadline never would). */
export function checkLadderTiming(
  steps: readonly EscalationStep[],
  timeoutSeconds: number,
  field: string,
): void {
  steps.forEach((s, i) => {
    if (s.afterSeconds >= timeoutSeconds) {
      throw badInput(
        `afterSeconds must be before the question times out (${timeoutSeconds} s)`,
        `${field}[${i}].afterSeconds`,
      );
    }
  });
}

/**
 * The ladder of an ask: `escalation` or the policy `escalationPolicy` names (exclusive), or
 * none. A policy that is not defined is refused with the defined ones.
 */
export function ladderOf(
  escalation: unknown,
  policy: unknown,
  ctx: { channels: ReadonlySet<string>; policies: ReadonlyMap<string, readonly EscalationStep[]> },
): { steps: EscalationStep[]; field: string } | null {
  const given = escalation !== undefined && escalation !== null;
  const named = policy !== undefined && policy !== null;
  if (given && named)
    throw badInput('escalation and escalationPolicy are exclusive', 'input.escalationPolicy');
  if (given) {
    const steps = checkEscalationSteps(escalation, 'input.escalation', ctx.channels);
    return steps.length ? { steps, field: 'input.escalation' } : null;
  }
  if (!named) return null;
  if (typeof policy !== 'string')
    throw badInput('escalationPolicy must be a string', 'input.escalationPolicy');
  const steps = ctx.policies.get(policy);
  if (!steps) {
    const known = ctx.policies.size
      ? `defined: ${listChoices(ctx.policies.keys())}`
      : 'the manifest defines none';
    throw badInput(`unknown escalation policy (${known})`, 'input.escalationPolicy');
  }
  return steps.length ? { steps: steps.map((s) => ({ ...s })), field: 'input.escalationPolicy' } : null;
}

/** When each step of a question asked at `createdAt` is due (epoch ms). */
export function dueTimesOf(createdAt: number, steps: readonly EscalationStep[]): number[] {
  return steps.map((s) => createdAt + s.afterSeconds * 1000);
}

/** An outcome as recorded: DELIVERED, or the failure on one line, cut short. */
export function outcomeOf(failure: string | null): string {
  if (failure === null) return DELIVERED;
  const line = failure.replace(/\s+/g, ' ').trim() || 'failed';
  const text = `FAILED: ${line}`;
  return text.length > OUTCOME_MAX_CHARS ? `${text.slice(0, OUTCOME_MAX_CHARS - 1)}…` : text;
}

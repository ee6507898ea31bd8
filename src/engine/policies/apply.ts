// What the policy rules do to an ask (API.md §20), between validation and the store: an
// enforced ALLOW or DENY decides it (nothing is delivered), an ASK adds scrutiny, SHADOW rules
// are only recorded. APPROVAL questions only; every other format is asked as written.
import type { ValidatedAsk } from '../../domain/ask-input.ts';
import type { EscalationStep } from '../../domain/escalation.ts';
import { decide, type PolicyIndex } from '../../domain/policy/decide.ts';
import type { PolicyRule } from '../../domain/policy/rule.ts';
import type { Decision, PolicyRef, QuorumSpec } from '../../domain/question.ts';
import type { EngineObserver } from '../ports.ts';

export type PolicyOutcome =
  /** Ask it as written, perhaps with more scrutiny; `policy` and `shadow` go on the spec. */
  | { kind: 'ask'; v: ValidatedAsk; audience: string | null; policy: PolicyRef | null; shadow: PolicyRef[] }
  /** A rule decided it: store it, resolve it at once, deliver nothing. */
  | {
      kind: 'decided';
      v: ValidatedAsk;
      rule: PolicyRule;
      decision: Decision;
      policy: PolicyRef;
      shadow: PolicyRef[];
    };

export interface PolicyInputs {
  index: PolicyIndex;
  askedBy: string;
  audience: string | null;
  now: number;
  escalationPolicies: ReadonlyMap<string, readonly EscalationStep[]> | undefined;
  observer: Pick<EngineObserver, 'policyDecision'>;
  /** The recipient as the channel's default fills it in (what a channel user's grant compares). */
  recipient?: string | null;
  /** Rules to leave out: grants the store refused to use (see grants.ts). */
  skip?: ReadonlySet<string>;
}

const refOf = (r: PolicyRule): PolicyRef => ({ ruleId: r.id, version: r.version, effect: r.effect });

/** The highest quorum of the agent's and the matching ASK rules' (a lower one is ignored). */
function strictestQuorum(agent: QuorumSpec | null, asks: readonly PolicyRule[]): QuorumSpec | null {
  let best = agent;
  for (const rule of asks) {
    const q = rule.ask?.quorum;
    if (q && (best === null || q.approvals > best.approvals)) best = q;
  }
  return best;
}

/** An ASK rule's routing replaces the agent's where given; quorum only ever rises. */
function withScrutiny(
  v: ValidatedAsk,
  audience: string | null,
  recorded: PolicyRule,
  asks: readonly PolicyRule[],
  escalationPolicies: PolicyInputs['escalationPolicies'],
): { v: ValidatedAsk; audience: string | null } {
  const ask = recorded.ask;
  const out: ValidatedAsk = { ...v };
  // A quorum is refused on sensitive questions (the votes would tell the answer): routing still applies.
  if (!v.sensitive) out.quorum = strictestQuorum(v.quorum, asks);
  // Several approvers would approve different arguments (§15): the action becomes non-editable.
  if (out.quorum && out.quorum.approvals > 1 && out.action?.editable) {
    out.action = { ...out.action, editable: false };
  }
  // Any matching ASK rule may demand separation of duties (§20, §22): the action carries it.
  if (
    out.action &&
    asks.some((r) => (r.ask as { requireSeparateRequester?: boolean } | null)?.requireSeparateRequester)
  ) {
    out.action = { ...out.action, requireSeparateRequester: true };
  }
  // Any matching ASK rule may demand step-up (§20, §23): the action becomes HIGH (never lowered).
  if (out.action && demandsStepUp(asks)) out.action = { ...out.action, assurance: 'HIGH' };
  if (ask?.channel) {
    if (ask.channel !== v.channel) out.recipient = null;
    out.channel = ask.channel;
  }
  if (ask?.escalationPolicy) {
    const steps = escalationPolicies?.get(ask.escalationPolicy);
    if (steps?.length)
      out.escalation = { steps: steps.map((s) => ({ ...s })), field: 'input.escalationPolicy' };
  }
  return { v: out, audience: ask?.audience ?? audience };
}

/** Whether one of these ASK rules demands a passkey step-up (`ask.assurance: HIGH`). */
function demandsStepUp(asks: readonly PolicyRule[]): boolean {
  return asks.some((r) => r.ask?.assurance === 'HIGH');
}

/** Applies the rules to a validated ask (called once per ask; rules were compiled before). */
export function applyPolicies(v: ValidatedAsk, inputs: PolicyInputs): PolicyOutcome {
  const asWritten = { kind: 'ask' as const, v, audience: inputs.audience, policy: null, shadow: [] };
  if (v.format !== 'APPROVAL' || !v.action || inputs.index.rules.length === 0) return asWritten;
  const d = decide(
    inputs.index,
    {
      askedBy: inputs.askedBy,
      action: v.action,
      // What a grant must stay within (domain/policy/grant.ts): rules look at action and asker only.
      sensitive: v.sensitive,
      quorum: v.quorum,
      audience: inputs.audience,
      channel: v.channel,
      recipient: inputs.recipient === undefined ? v.recipient : inputs.recipient,
    },
    inputs.now,
    inputs.skip,
  );
  const shadow = d.shadow.map(refOf);
  for (const r of d.shadow) inputs.observer.policyDecision?.(r.effect, 'SHADOW');
  const rule = d.recorded;
  if (rule === null) return { ...asWritten, shadow };
  // A HIGH approval needs a person's passkey (API.md §23): a rule cannot give it, so it is asked
  // — also when a matching ASK rule is what makes it HIGH: that rule asks, with its scrutiny.
  // The metric counts what took effect: an ALLOW that a HIGH approval overrides is an ASK.
  const stepUp = rule.effect === 'ALLOW' ? d.asks.find((r) => r.ask?.assurance === 'HIGH') : undefined;
  if (stepUp) {
    inputs.observer.policyDecision?.('ASK', 'ENFORCE');
    const scrutiny = withScrutiny(v, inputs.audience, stepUp, d.asks, inputs.escalationPolicies);
    return { kind: 'ask', ...scrutiny, policy: refOf(stepUp), shadow };
  }
  if (rule.effect === 'ALLOW' && v.action.assurance === 'HIGH') {
    inputs.observer.policyDecision?.('ASK', 'ENFORCE');
    return { ...asWritten, shadow };
  }
  inputs.observer.policyDecision?.(rule.effect, 'ENFORCE');
  if (rule.effect === 'ASK') {
    const scrutiny = withScrutiny(v, inputs.audience, rule, d.asks, inputs.escalationPolicies);
    return { kind: 'ask', ...scrutiny, policy: refOf(rule), shadow };
  }
  // Decided here: nothing goes to a channel, no ladder runs, no push is sent.
  const decided: ValidatedAsk = { ...v, channel: null, recipient: null, escalation: null };
  return {
    kind: 'decided',
    v: decided,
    rule,
    decision: rule.effect === 'ALLOW' ? 'APPROVED' : 'REJECTED',
    policy: refOf(rule),
    shadow,
  };
}

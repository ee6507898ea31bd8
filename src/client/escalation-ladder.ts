// A question's escalation ladder as one line for people (API.md §18): what already happened
// and what comes next, e.g. "reminded 10 min ago · escalated to oncall-sms in 20 min". Shared
// by the inbox card and the CLI's `show`; pure, times in epoch ms.

export interface LadderStep {
  afterSeconds: number;
  action: 'REMIND' | 'REROUTE';
  channel: string | null;
  recipient: string | null;
  /** When it fired; null while it has not. */
  firedAt: number | null;
  outcome: string | null;
}

/** "now", "45 s", "10 min", "3 h", "2 d": the rough size of a span. */
export function roughSpan(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

function where(step: LadderStep): string {
  const to = step.recipient ? `${step.channel} (${step.recipient})` : `${step.channel}`;
  return `to ${to}`;
}

/**
 * The last fired step (how long ago, and whether it failed) and the next one to come (in how
 * long); empty when the question has no ladder. A question that is no longer pending shows
 * only what fired: nothing comes next.
 */
export function ladderLine(
  steps: readonly LadderStep[],
  createdAt: number,
  now: number,
  pending: boolean,
): string {
  if (steps.length === 0) return '';
  const parts: string[] = [];
  const fired = steps.filter((s) => s.firedAt !== null);
  const last = fired.at(-1);
  if (last && last.firedAt !== null) {
    const verb = last.action === 'REMIND' ? 'reminded' : `escalated ${where(last)}`;
    const failed = last.outcome !== null && last.outcome !== 'DELIVERED' ? ' (failed)' : '';
    parts.push(`${verb} ${roughSpan(now - last.firedAt)} ago${failed}`);
  }
  const next = pending ? steps.find((s) => s.firedAt === null) : undefined;
  if (next) {
    const at = createdAt + next.afterSeconds * 1000;
    const verb = next.action === 'REMIND' ? 'reminder' : `escalates ${where(next)}`;
    parts.push(at <= now ? `${verb} due now` : `${verb} in ${roughSpan(at - now)}`);
  }
  if (parts.length === 0) parts.push(`${steps.length} step${steps.length === 1 ? '' : 's'}, none fired`);
  return parts.join(' · ');
}

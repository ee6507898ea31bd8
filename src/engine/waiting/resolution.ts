// Waits, across as many holds as it takes, until a question leaves PENDING: the engine side
// of the questionResolved subscription. Returns null when the signal aborts first.
import { HOLD_MAX_SECONDS } from '../../domain/call-args.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AskResult, Interactions } from '../types.ts';

export async function awaitResolution(
  engine: Interactions,
  principal: Principal,
  id: string,
  signal: AbortSignal,
): Promise<AskResult | null> {
  for (;;) {
    const r = await engine.awaitAnswer(principal, id, { holdSeconds: HOLD_MAX_SECONDS, signal });
    if (r.status !== 'PENDING') return r;
    if (signal.aborted) return null;
  }
}

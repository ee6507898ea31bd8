// The audit log's chaining worker (API.md §17, issue 46): a state change writes its entry as a
// numbered draft in its own atomic step, and the hash chain is added here, in seq order and in
// batches, off the change's path. One instance at a time chains in the background (it holds
// the store's lease, renewed every pass; a holder that dies lets it lapse and another takes
// over, picking up whatever that one left unchained: a batch is written whole or not at all).
// Reads still chain before they answer, whoever holds the lease, so none ever sees a draft.
import { randomUUID } from 'node:crypto';
import type { QuestionStore } from '../store/types.ts';
import type { Logger } from './logger.ts';

/** How often the worker chains: the drafts a read may have to chain itself stay a few hundred. */
export const AUDIT_CHAIN_INTERVAL_MS = 250;
/** How long the lease lasts unrenewed: how long chaining waits for reads after its holder dies. */
export const AUDIT_CHAIN_LEASE_MS = 5000;

export interface AuditChainerOptions {
  store: QuestionStore;
  logger: Logger;
  intervalMs?: number;
  leaseMs?: number;
}

export interface AuditChainer {
  start(): void;
  stop(): void;
  /** One pass: take or renew the lease, and chain when this instance holds it. */
  pass(): Promise<boolean>;
}

export function createAuditChainer(o: AuditChainerOptions): AuditChainer {
  const owner = randomUUID();
  const intervalMs = o.intervalMs ?? AUDIT_CHAIN_INTERVAL_MS;
  const leaseMs = o.leaseMs ?? AUDIT_CHAIN_LEASE_MS;
  let timer: NodeJS.Timeout | null = null;
  let running = false;

  async function pass(): Promise<boolean> {
    if (!(await o.store.audit.lease(owner, leaseMs))) return false;
    await o.store.audit.chain();
    return true;
  }

  function schedule(): void {
    timer = setTimeout(async () => {
      if (running) {
        try {
          await pass();
        } catch (err) {
          // After stop() the store may be closing under the pass: nothing to report then.
          if (running) o.logger.error({ err }, 'audit chaining failed; retrying next interval');
        }
      }
      if (running) schedule();
    }, intervalMs);
    timer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    pass,
  };
}

// The reaper's prune trims the audit log to INTERACTIONS_AUDIT_RETENTION_DAYS (API.md §17):
// oldest first, the first kept entry still chained to the last trimmed one.
import { describe, expect, it } from 'vitest';
import { auditHashOf } from '../../src/domain/audit.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { createReaper } from '../../src/engine/reaper.ts';
import { createWaiterRegistry } from '../../src/engine/waiting/waiters.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { specOf } from '../support/fixtures.ts';

const DAY = 86_400_000;

describe('the reaper trims the audit log', () => {
  it('drops entries past the audit retention, keeps the rest chained', async () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    let now = t0;
    const store = createMemoryStore({ clock: () => now });
    for (let i = 0; i < 3; i++) {
      await store.create(specOf({ createdAt: t0 + i, timeoutAt: t0 + 60_000 }), {
        maxPending: 10,
        retentionMs: 400 * DAY,
      });
    }
    const before = (await store.audit.page({ first: 10 })).entries;
    now = t0 + 10 * DAY;
    const reaper = createReaper({
      store,
      waiters: createWaiterRegistry(),
      clock: () => now,
      logger: silentLogger,
      retentionMs: 400 * DAY,
      auditRetentionMs: 5 * DAY,
      intervalMs: 60_000,
      sweepIntervalMs: 3_600_000,
    });
    await reaper.tick();
    const after = (await store.audit.page({ first: 10 })).entries;
    // The three asks are older than five days; their timeouts (written by this tick) are kept.
    expect(after.map((e) => [e.seq, e.type])).toEqual([
      [4, 'TIMED_OUT'],
      [5, 'TIMED_OUT'],
      [6, 'TIMED_OUT'],
    ]);
    expect(after[0]!.prev).toBe(before[2]!.hash);
    for (const e of after) expect(e.hash).toBe(auditHashOf(e));
  });
});

// The embedded store for one process: the same contract as the Redis store, held in Maps.
// Each operation runs to completion synchronously, which makes it atomic in one process;
// announcements are delivered in order on the microtask queue, like a subscriber would.
import { auditViaOf } from '../domain/audit.ts';
import { isPlainExternal } from '../domain/callback-payload.ts';
import { takesOneStepAnswer } from '../domain/channel-answer.ts';
import { DELIVERED } from '../domain/escalation.ts';
import type { ClosedStatus } from '../domain/question.ts';
import { decodeCursor, encodeCursor, isAfterNewestFirst } from './listing.ts';
import { createQuestion } from './memory-create.ts';
import { createMemoryDelegations } from './memory-delegations.ts';
import { createMemoryDeliveries } from './memory-deliveries.ts';
import { createMemoryExecution } from './memory-execution.ts';
import { createMemoryGrants } from './memory-grants.ts';
import { createMemoryLinks } from './memory-links.ts';
import { createMemoryPeople } from './memory-people.ts';
import { createMemoryPolicies } from './memory-policies.ts';
import { createMemoryTables, type MemoryTables, record } from './memory-tables.ts';
import {
  claimAuditOf,
  oneStepClaimOf,
  resolutionOf,
  timedOutResolution,
  voteDecisionOf,
  votedAuditDetail,
} from './resolution.ts';
import type {
  ClaimInput,
  ClaimResult,
  ListFilter,
  Page,
  PageRequest,
  QuestionStore,
  RateCount,
  RateHits,
  VoteInput,
  VoteResult,
} from './types.ts';
import { checkSeenKey, eventOf, REPLY_GRACE_MS } from './types.ts';

export interface MemoryStoreOptions {
  clock?: () => number;
  /** Internal (the bench's "log off"): false records no audit entries. */
  audit?: boolean;
  /** How long the asker may re-read a sensitive answer after the first read (default REPLY_GRACE_MS). */
  replyGraceMs?: number;
}

function listPage(t: MemoryTables, filter: ListFilter, page: PageRequest): Page {
  const cursor = page.after ? decodeCursor(page.after) : null;
  const all = t.sorted(filter).reverse();
  const rest = cursor ? all.filter((x) => isAfterNewestFirst(x.cursor, cursor)) : all;
  const items = rest.slice(0, page.first);
  const last = items.at(-1);
  return {
    items: items.map((x) => record(x.e)),
    totalCount: all.length,
    hasNextPage: rest.length > items.length,
    endCursor: last ? encodeCursor(last.cursor) : null,
  };
}

/** Fixed-window counters with their expiry; expired ones are swept as the map grows. */
function createRateCounters() {
  const windows = new Map<string, { count: number; endsAt: number }>();
  let sweepAt = 1024;
  return {
    hit(c: RateCount, now: number): RateHits {
      let w = windows.get(c.key);
      if (!w || w.endsAt <= now) {
        if (windows.size >= sweepAt) {
          for (const [k, v] of windows) if (v.endsAt <= now) windows.delete(k);
          sweepAt = Math.max(1024, windows.size * 2);
        }
        w = { count: 0, endsAt: now + c.windowMs };
        windows.set(c.key, w);
      }
      w.count += 1;
      return { count: w.count, ttlMs: w.endsAt - now };
    },
  };
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): QuestionStore {
  const t = createMemoryTables(opts.clock ?? Date.now, opts.audit ?? true);
  const replyGraceMs = opts.replyGraceMs ?? REPLY_GRACE_MS;
  let closed = false;

  const counters = createRateCounters();

  /** The one guard (synchronous, so a lookup and its claim are one atomic step). */
  function claim(id: string, input: ClaimInput): ClaimResult {
    const e = t.entry(id);
    if (!e) return { kind: 'missing' };
    if (e.resolution) return { kind: 'lost', question: record(e) };
    if (input.now >= e.spec.timeoutAt && input.status !== 'TIMED_OUT') {
      const timedOut = timedOutResolution(input.now);
      return { kind: 'lost', question: t.resolve(id, e, timedOut, input.retentionMs, input.now) };
    }
    const r = resolutionOf(input);
    if (r.status === 'ANSWERED' && input.reply !== undefined) {
      t.replies.set(id, { value: input.reply, expiresAt: input.now + input.retentionMs });
    }
    return { kind: 'won', question: t.resolve(id, e, r, input.retentionMs, input.now, claimAuditOf(input)) };
  }

  /** One vote: the same checks and order as vote.lua, in one synchronous step. */
  function vote(id: string, input: VoteInput): VoteResult {
    const e = t.entry(id);
    if (!e) return { kind: 'missing' };
    if (e.resolution) return { kind: 'lost', question: record(e) };
    if (input.now >= e.spec.timeoutAt) {
      const timedOut = timedOutResolution(input.now);
      return { kind: 'lost', question: t.resolve(id, e, timedOut, input.retentionMs, input.now) };
    }
    const { vote: v, quorum } = input;
    // Whose vote it is: the person a delegate acts for, else the caster (API.md §22).
    const person = v.onBehalfOf ?? v.by;
    if (quorum.voters && !quorum.voters.includes(person)) return { kind: 'forbidden' };
    const votes = e.votes ?? [];
    // One vote per person, whoever cast it, and one vote per caster, whoever it was for.
    if (votes.some((x) => (x.onBehalfOf ?? x.by) === person || x.by === v.by)) {
      return { kind: 'voted', question: record(e) };
    }
    e.votes = [...votes, v];
    // The vote's own entry: who and what they decided, never the note (it is free text).
    t.audit.append('VOTED', id, v.by, auditViaOf(v.by, e.spec.channel), votedAuditDetail(v), input.now);
    const same = e.votes.filter((x) => x.decision === v.decision).length;
    const needed = v.decision === 'APPROVED' ? quorum.approvals : quorum.rejections;
    if (same < needed) {
      const q = record(e);
      t.announce(eventOf('UPDATED', q));
      return { kind: 'counted', question: q };
    }
    const { resolution: r, detail } = voteDecisionOf(input);
    const decided = { actor: v.by, detail };
    return { kind: 'decided', question: t.resolve(id, e, r, input.retentionMs, input.now, decided) };
  }

  const deliveries = createMemoryDeliveries(t);
  const execution = createMemoryExecution(t);
  return {
    kind: 'memory',
    outbox: t.outbox.outbox,
    deliveries,
    links: createMemoryLinks(t),
    people: createMemoryPeople(t.clock, t.audit.append),
    policies: createMemoryPolicies(t.audit.append),
    grants: createMemoryGrants(t.audit.append),
    delegations: createMemoryDelegations(t.audit.append),
    audit: t.audit.log,

    create: async (spec, o) => createQuestion(t, spec, o),

    claim: async (id, input) => claim(id, input),

    vote: async (id, input) => vote(id, input),

    consume: async (id, input) => execution.consume(id, input),

    report: async (id, input) => execution.report(id, input),

    async ticketStep(ticketHash, step) {
      const hits = step.count ? counters.hit(step.count, t.clock()) : null;
      if (hits && step.count && hits.count > step.count.max) return { kind: 'limited', hits };
      const id = t.alive(t.tickets, ticketHash);
      const e = id ? t.entry(id) : undefined;
      if (!id || !e) return { kind: 'missing', hits };
      if (!step.answer || !isPlainExternal(e.spec)) return { kind: 'other', question: record(e), hits };
      const r = claim(id, { ...step.answer, status: 'ANSWERED' });
      if (r.kind === 'missing') return { kind: 'missing', hits };
      if (r.kind === 'won') return { kind: 'won', hits };
      return { kind: 'lost', status: r.question.status as ClosedStatus, hits };
    },

    async channelAnswer(id, input) {
      const e = t.entry(id);
      if (!e) return { kind: 'missing' };
      // Read now, in the same synchronous step as the claim (the read has no await inside).
      const delivery = deliveries.get(id, input.place);
      if (e.resolution || !takesOneStepAnswer(e.spec, input.place, input.format)) {
        return { kind: 'other', question: record(e), delivery: await delivery };
      }
      const r = claim(id, oneStepClaimOf(input));
      if (r.kind === 'missing') return { kind: 'missing' };
      // Lost here only to its deadline: TIMED_OUT now, as channel-answer.lua answers it.
      return { kind: r.kind === 'won' ? 'won' : 'other', question: r.question, delivery: await delivery };
    },

    async get(id) {
      const e = t.entry(id);
      return e ? record(e) : null;
    },

    async getWithDelivery(id, place) {
      const e = t.entry(id);
      return e ? { question: record(e), delivery: await deliveries.get(id, place) } : null;
    },

    async getMany(ids) {
      return ids.map((id) => {
        const e = t.entry(id);
        return e ? record(e) : null;
      });
    },

    async statuses(ids) {
      return ids.map((id) => {
        const e = t.entry(id);
        return e ? (e.resolution?.status ?? 'PENDING') : null;
      });
    },

    pending: async (filter) => t.sorted({ ...filter, status: ['PENDING'] }).map((x) => record(x.e)),
    pendingIds: async (filter) => t.sorted({ ...filter, status: ['PENDING'] }).map((x) => x.cursor.id),
    list: async (filter, page) => listPage(t, filter, page),
    countPending: async () => t.pendingIds.size,

    async usage(principalId) {
      const mine = t.heldBy(principalId);
      return {
        pending: mine.pending,
        reserved: t.reservedCount(principalId),
        mediaBytes: mine.mediaBytes,
        totalPending: t.pendingIds.size,
        totalMediaBytes: t.totals.mediaBytes,
      };
    },

    async questionForTicket(ticketHash) {
      const id = t.alive(t.tickets, ticketHash);
      const e = id ? t.entry(id) : undefined;
      return e ? record(e) : null;
    },

    async reserve(r, opts) {
      const cap = opts.maxPendingPerPrincipal;
      if (cap !== undefined && t.heldBy(r.owner).pending + t.reservedCount(r.owner) + 1 > cap) return 'limit';
      t.addReservation(r.owner, r.id, r.ticketHash, r.expiresAt);
      return 'reserved';
    },

    async takeReply(id) {
      const v = t.replies.get(id);
      if (!v || v.expiresAt <= t.clock()) {
        t.replies.delete(id);
        return undefined;
      }
      // Kept for the grace after the first read (never lengthened), as in the Redis store.
      if (replyGraceMs <= 0) t.replies.delete(id);
      else v.expiresAt = Math.min(v.expiresAt, t.clock() + replyGraceMs);
      return { value: v.value };
    },

    async expireDue(now, retentionMs, limit) {
      let n = 0;
      for (const id of [...t.pendingIds]) {
        if (n >= limit) break;
        const e = t.entry(id);
        if (e && !e.resolution && e.spec.timeoutAt <= now) {
          t.resolve(id, e, timedOutResolution(now), retentionMs, now);
          n++;
        }
      }
      return n;
    },

    async addTicket(id, ticketHash) {
      const e = t.entry(id);
      if (!e || e.resolution) return false;
      t.tickets.set(ticketHash, { value: id, expiresAt: e.expiresAt });
      return true;
    },

    async escalateDue(now, limit) {
      const due = [...t.escalations]
        .filter(([, at]) => at <= now)
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit);
      let n = 0;
      for (const [member] of due) {
        t.escalations.delete(member);
        const at = member.lastIndexOf('#');
        const id = member.slice(0, at);
        const e = t.entry(id);
        if (!e || e.resolution) continue;
        const before = t.outbox.size();
        t.outbox.enqueue(id, [`escalate:${member.slice(at + 1)}`], now);
        if (t.outbox.size() > before) n++;
      }
      return n;
    },

    async recordEscalation(id, step, fired, audit) {
      const e = t.entry(id);
      if (!e || e.fired.has(step)) return false;
      e.fired.set(step, {
        firedAt: fired.firedAt,
        outcome: fired.outcome,
        ...(fired.routedTo !== undefined ? { routedTo: fired.routedTo } : {}),
      });
      if (!e.resolution) t.announce(eventOf('UPDATED', record(e)));
      // Its audit entry in the same step, as escalation-record.lua writes it.
      t.audit.append(
        audit.action === 'REROUTE' ? 'ESCALATED' : 'REMINDED',
        id,
        null,
        null,
        {
          step,
          action: audit.action,
          delivered: fired.outcome === DELIVERED,
          ...(audit.channel ? { channel: audit.channel } : {}),
        },
        fired.firedAt,
      );
      return true;
    },

    async escalations(id) {
      return new Map(t.entry(id)?.fired ?? []);
    },

    prune: async () => t.prune(),

    async seenOnce(key, now, ttlMs) {
      checkSeenKey(key, ttlMs);
      const cur = t.seen.get(key);
      if (cur && cur.expiresAt > now) return { first: false, at: cur.value };
      t.seen.set(key, { value: now, expiresAt: now + ttlMs });
      return { first: true, at: now };
    },

    async listen(listener) {
      t.listeners.add(listener);
      return () => t.listeners.delete(listener);
    },

    ping: async () => !closed,

    async close() {
      closed = true;
      t.listeners.clear();
    },
  };
}

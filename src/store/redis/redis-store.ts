// The Redis store: every state change is one Lua script that also PUBLISHes its
// announcement, so a change is never committed without it. One subscriber connection per
// process (owned by the composition root) feeds the listeners.

import type { Redis } from 'ioredis';
import { answerAuditDetail } from '../../domain/audit.ts';
import { DELIVERED, ESCALATION_MAX_STEPS } from '../../domain/escalation.ts';
import type { ClosedStatus, QuestionStatus } from '../../domain/question.ts';
import { OUTBOX_ITEM_TTL_MS } from '../outbox.ts';
import { decodeFired, decodeRecord, encodeFired, encodeResolution } from '../record-codec.ts';
import {
  claimAuditOf,
  oneStepClaimOf,
  resolutionOf,
  voteDecisionOf,
  votedAuditDetail,
} from '../resolution.ts';
import { checkSeenKey, type QuestionStore, REPLY_GRACE_MS } from '../types.ts';
import { createRedisAudit } from './audit.ts';
import type { RedisClient } from './client.ts';
import { createRedisDelegations } from './delegations.ts';
import { createRedisDeliveries, deliveryFieldsOf, deliveryFrom } from './deliveries.ts';
import { createRedisExecution } from './execution.ts';
import { createRedisGrants } from './grants.ts';
import { hashTaggedPrefix } from './key-prefix.ts';
import { createRedisLinks } from './links.ts';
import { createRedisOutbox } from './outbox.ts';
import { readPending, readPendingIds, readRecords } from './pending-reader.ts';
import { createRedisPeople } from './people.ts';
import { createRedisPolicies } from './policies.ts';
import { createArgs, createResult, fromTriple, listPage } from './script-io.ts';
import { createScriptRunner, type Reply } from './scripts.ts';
import { createSubscription } from './subscription.ts';
import { reportingUnavailable } from './unavailable.ts';

export interface RedisStoreOptions {
  /** Commands and scripts: a single Redis (standalone or through Sentinel) or a Cluster. */
  redis: RedisClient;
  /** A connection used only for SUBSCRIBE. */
  subscriber: RedisClient;
  /** Key prefix; on a Cluster it gets a hash tag when it has none (see key-prefix.ts). */
  prefix: string;
  /** Internal (the bench's "log off"): false records no audit entries. */
  audit?: boolean;
  /** Longest a ping may take before the store counts as unreachable. */
  pingTimeoutMs?: number;
  /** How long the asker may re-read a sensitive answer after the first read (default REPLY_GRACE_MS). */
  replyGraceMs?: number;
  /**
   * Replicas that must hold a won claim before it is acknowledged (Redis WAIT; 0 = none). Not
   * on a Cluster. When they do not confirm within REPLICA_WAIT_TIMEOUT_MS the claim is still
   * acknowledged: it is committed on the primary and cannot be taken back.
   */
  waitReplicas?: number;
}

/** Longest a won claim waits for its replicas (only with waitReplicas). */
export const REPLICA_WAIT_TIMEOUT_MS = 500;

/** Questions one prune script unindexes (a few ms each). */
const PRUNE_BATCH = 250;
/** Questions one backfill script indexes. */
const BACKFILL_BATCH = 500;
/**
 * The listing indexes' layout; ensureIndexes builds them once per version (key ixv). 2: routedTo
 * (rt) is indexed too, read from the spec of on-call questions stored before.
 */
const INDEX_VERSION = '2';

/** The Redis store, plus its one-off upkeep at start. */
export interface RedisQuestionStore extends QuestionStore {
  /**
   * Indexes questions stored before the listing indexes existed, in short batches, once (a
   * version key records it). Returns how many questions it read.
   */
  ensureIndexes(): Promise<number>;
}

async function pingWithin(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then((r) => r === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function createRedisStore(opts: RedisStoreOptions): RedisQuestionStore {
  const { redis } = opts;
  const prefix = redis.isCluster ? hashTaggedPrefix(opts.prefix) : opts.prefix;
  const run = createScriptRunner(redis, prefix, opts.audit ?? true);
  const replyGraceMs = opts.replyGraceMs ?? REPLY_GRACE_MS;
  const waitReplicas = opts.waitReplicas ?? 0;
  const subscription = createSubscription(opts.subscriber, `${prefix}events`);

  // A command Redis never answered may still be applied: UNAVAILABLE, not INTERNAL.
  return reportingUnavailable<RedisQuestionStore>({
    kind: 'redis',
    outbox: reportingUnavailable(createRedisOutbox(run)),
    deliveries: reportingUnavailable(createRedisDeliveries(redis, prefix, run)),
    links: reportingUnavailable(createRedisLinks(redis, prefix, run)),
    people: reportingUnavailable(createRedisPeople(redis, prefix, run)),
    policies: reportingUnavailable(createRedisPolicies(redis, prefix, run)),
    grants: reportingUnavailable(createRedisGrants(redis, prefix, run)),
    delegations: reportingUnavailable(createRedisDelegations(redis, prefix, run)),
    audit: reportingUnavailable(createRedisAudit(redis, prefix, run)),

    async create(spec, o) {
      return createResult(spec, (await run('create', createArgs(spec, o))) as Reply[]);
    },

    async claim(id, input) {
      const hasReply = input.status === 'ANSWERED' && input.reply !== undefined;
      const audit = claimAuditOf(input);
      const reply = (await run('claim', [
        id,
        input.status,
        encodeResolution(resolutionOf(input)),
        input.now,
        input.retentionMs,
        hasReply ? JSON.stringify(input.reply) : '',
        hasReply ? '1' : '0',
        audit.actor ?? '',
        JSON.stringify(audit.detail),
        audit.type ?? '',
      ])) as Reply[];
      if (reply[0] === 'missing') return { kind: 'missing' };
      // WAIT covers every earlier write of this connection, the claim's among them.
      if (reply[0] === 'won' && waitReplicas > 0 && !redis.isCluster) {
        await (redis as Redis).wait(waitReplicas, REPLICA_WAIT_TIMEOUT_MS);
      }
      return { kind: reply[0] === 'won' ? 'won' : 'lost', question: fromTriple(reply, 1) };
    },

    async vote(id, input) {
      const { vote: v, quorum } = input;
      const decided = voteDecisionOf(input);
      const reply = (await run('vote', [
        id,
        v.onBehalfOf ?? v.by,
        JSON.stringify(v),
        v.decision,
        quorum.approvals,
        quorum.rejections,
        quorum.voters ? JSON.stringify(quorum.voters) : '',
        encodeResolution(decided.resolution),
        input.now,
        input.retentionMs,
        JSON.stringify(decided.detail),
        v.by,
        JSON.stringify(votedAuditDetail(v)),
      ])) as Reply[];
      switch (reply[0]) {
        case 'missing':
          return { kind: 'missing' };
        case 'forbidden':
          return { kind: 'forbidden' };
        case 'decided':
          if (waitReplicas > 0 && !redis.isCluster) {
            await (redis as Redis).wait(waitReplicas, REPLICA_WAIT_TIMEOUT_MS);
          }
          return { kind: 'decided', question: fromTriple(reply, 1) };
        case 'counted':
          return { kind: 'counted', question: fromTriple(reply, 1) };
        case 'voted':
          return { kind: 'voted', question: fromTriple(reply, 1) };
        default:
          return { kind: 'lost', question: fromTriple(reply, 1) };
      }
    },

    ...createRedisExecution(run),

    async ticketStep(ticketHash, step) {
      const { answer, count } = step;
      const resolution = answer ? encodeResolution(resolutionOf({ ...answer, status: 'ANSWERED' })) : '';
      const reply = (await run('answerTicket', [
        ticketHash,
        answer?.now ?? 0,
        answer?.retentionMs ?? 0,
        resolution,
        count?.key ?? '',
        count?.windowMs ?? 0,
        count?.max ?? 0,
        JSON.stringify(answer ? answerAuditDetail(answer.answer) : {}),
      ])) as Reply[];
      const hits = count ? { count: Number(reply[1]), ttlMs: Math.max(Number(reply[2]), 0) } : null;
      switch (reply[0]) {
        case 'won':
          // As claim(): a won claim is acknowledged once its replicas hold it.
          if (waitReplicas > 0 && !redis.isCluster) {
            await (redis as Redis).wait(waitReplicas, REPLICA_WAIT_TIMEOUT_MS);
          }
          return { kind: 'won', hits };
        case 'lost':
          return { kind: 'lost', status: reply[3] as ClosedStatus, hits };
        case 'other':
          return { kind: 'other', question: fromTriple(reply, 3), hits };
        case 'limited':
          return { kind: 'limited', hits };
        default:
          return { kind: 'missing', hits };
      }
    },

    async channelAnswer(id, input) {
      const claim = oneStepClaimOf(input);
      const reply = (await run('channelAnswer', [
        id,
        input.place,
        input.format,
        encodeResolution(resolutionOf(claim)),
        input.now,
        input.retentionMs,
        input.answeredBy,
        JSON.stringify(claimAuditOf(claim).detail),
      ])) as Reply[];
      if (reply[0] === 'missing') return { kind: 'missing' };
      const won = reply[0] === 'won';
      // won: spec, res, then the delivery fields; other: spec, status, res, then the delivery fields.
      const question = won
        ? decodeRecord(reply[1] as string, 'ANSWERED', reply[2] as string)
        : fromTriple(reply, 1);
      const delivery = deliveryFrom(reply.slice(won ? 3 : 4) as (string | null)[], input.place);
      if (won && waitReplicas > 0 && !redis.isCluster) {
        // As claim(): a won claim is acknowledged once its replicas hold it.
        await (redis as Redis).wait(waitReplicas, REPLICA_WAIT_TIMEOUT_MS);
      }
      return { kind: won ? 'won' : 'other', question, delivery };
    },

    async get(id) {
      const [spec, st, res] = await redis.hmget(`${prefix}q:${id}`, 'spec', 'st', 'res');
      return spec && st ? decodeRecord(spec, st, res) : null;
    },

    async getWithDelivery(id, place) {
      const fields = await redis.hmget(`${prefix}q:${id}`, 'spec', 'st', 'res', ...deliveryFieldsOf(place));
      const [spec, st, res] = fields;
      if (!spec || !st) return null;
      return {
        question: decodeRecord(spec, st, res ?? null),
        delivery: deliveryFrom(fields.slice(3), place),
      };
    },

    getMany: (ids) => readRecords(redis, prefix, ids),
    async statuses(ids) {
      if (ids.length === 0) return [];
      const reply = (await run('statuses', [...ids])) as string[];
      return reply.map((st) => (st === '' ? null : (st as QuestionStatus)));
    },
    pending: (filter) => readPending(redis, prefix, filter),
    pendingIds: (filter) => readPendingIds(redis, prefix, filter),
    list: (filter, page) => listPage(run, filter, page),

    async usage(principalId) {
      const [n, b, total, all, reserved] = (await redis
        .multi()
        .hget(`${prefix}held:n`, principalId)
        .hget(`${prefix}held:b`, principalId)
        .get(`${prefix}held:total`)
        .zcard(`${prefix}pending`)
        // The reservations alive now (reserve.lua scores them by expiresAt).
        .zcount(`${prefix}prepby:${principalId}`, `(${Date.now()}`, '+inf')
        .exec()) as [Error | null, unknown][];
      const num = (r: [Error | null, unknown] | undefined): number => Math.max(Number(r?.[1] ?? 0) || 0, 0);
      return {
        pending: num(n),
        reserved: num(reserved),
        mediaBytes: num(b),
        totalPending: num(all),
        totalMediaBytes: num(total),
      };
    },

    async questionForTicket(ticketHash) {
      const reply = (await run('ticket', [ticketHash])) as Reply[] | null;
      return reply ? fromTriple(reply, 0) : null;
    },

    async reserve(r, opts) {
      const reply = await run('reserve', [
        r.id,
        r.owner,
        r.ticketHash,
        r.expiresAt,
        opts.now,
        opts.maxPendingPerPrincipal ?? '',
      ]);
      return reply === 'limit' ? 'limit' : 'reserved';
    },

    async takeReply(id) {
      const raw = (await run('reply', [id, replyGraceMs])) as string | null;
      return raw === null ? undefined : { value: JSON.parse(raw) };
    },

    async expireDue(now, retentionMs, limit) {
      return Number(await run('expire', [now, retentionMs, limit]));
    },

    async addTicket(id, ticketHash) {
      return Number(await run('ticketAdd', [id, ticketHash])) === 1;
    },

    async escalateDue(now, limit) {
      return Number(await run('escalate', [now, limit, OUTBOX_ITEM_TTL_MS]));
    },

    async recordEscalation(id, step, fired, audit) {
      const args = [
        id,
        step,
        encodeFired(fired),
        fired.firedAt,
        audit.action,
        audit.channel ?? '',
        fired.outcome === DELIVERED ? '1' : '0',
      ];
      return Number(await run('escalationRecord', args)) === 1;
    },

    async escalations(id) {
      const fields = Array.from({ length: ESCALATION_MAX_STEPS }, (_, i) => `e${i}`);
      return decodeFired(await redis.hmget(`${prefix}q:${id}`, ...fields));
    },

    async prune(now, retentionMs) {
      // Short scripts, as many as it takes: each unindexes its batch from every listing index.
      while (Number(await run('prune', [now - retentionMs, PRUNE_BATCH])) === PRUNE_BATCH);
    },

    async seenOnce(key, now, ttlMs) {
      checkSeenKey(key, ttlMs);
      // One command: set when absent (NX) and hand back what was there (GET; Redis 7.0+).
      const before = (await redis.call(
        'SET',
        `${prefix}seen:${key}`,
        String(now),
        'PX',
        String(ttlMs),
        'NX',
        'GET',
      )) as string | null;
      return before === null ? { first: true, at: now } : { first: false, at: Number(before) };
    },

    async countPending() {
      return redis.zcard(`${prefix}pending`);
    },

    async ensureIndexes() {
      let n = 0;
      for (;;) {
        const read = Number(await run('indexBackfill', [INDEX_VERSION, BACKFILL_BATCH]));
        if (read < 0) return n;
        n += read;
      }
    },

    listen: (listener) => subscription.listen(listener),
    ping: () => pingWithin(redis, opts.pingTimeoutMs ?? 1000),
    close: () => subscription.close(),
  });
}

// The Redis store: every state change is one Lua script that also PUBLISHes its
// announcement, so a change is never committed without it. One subscriber connection per
// process (owned by the composition root) feeds the listeners.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { QuestionRecord, QuestionSpec, Resolution } from '../../domain/question.ts';
import { idempotencySlot } from '../idempotency.ts';
import { decodeCursor, encodeCursor, matchesFilter, onlyPending } from '../listing.ts';
import { decodeEvent, decodeRecord, encodeResolution, encodeSpec } from '../record-codec.ts';
import type {
  ClaimInput,
  ClaimResult,
  CreateOptions,
  CreateResult,
  ListFilter,
  Page,
  PageRequest,
  QuestionStore,
  Reservation,
  StoreListener,
} from '../types.ts';

const common = readFileSync(new URL('./common.lua', import.meta.url), 'utf8');

function script(name: string): { source: string; sha: string } {
  const source = `${common}\n${readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8')}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = {
  create: script('create'),
  claim: script('claim'),
  expire: script('expire'),
  list: script('list'),
  prune: script('prune'),
  ticket: script('ticket'),
};

type Reply = string | number | null | Reply[];

/** Questions read per pipeline when listing the pending backlog. */
const PENDING_BATCH = 500;

export interface RedisStoreOptions {
  /** Commands and scripts. */
  redis: Redis;
  /** A connection used only for SUBSCRIBE. */
  subscriber: Redis;
  prefix: string;
  /** Longest a ping may take before the store counts as unreachable. */
  pingTimeoutMs?: number;
}

function opt(v: string | null): string {
  return v === null ? '' : `=${v}`;
}

export function createRedisStore(opts: RedisStoreOptions): QuestionStore {
  const { redis, subscriber, prefix } = opts;
  const channel = `${prefix}events`;
  const listeners = new Set<StoreListener>();
  let subscribed: Promise<void> | null = null;
  let lostConnection = false;

  async function run(s: { source: string; sha: string }, args: (string | number)[]): Promise<Reply> {
    try {
      return (await redis.evalsha(s.sha, 0, prefix, ...args)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.eval(s.source, 0, prefix, ...args)) as Reply;
    }
  }

  function fromTriple(r: Reply[], at: number): QuestionRecord {
    return decodeRecord(r[at] as string, r[at + 1] as string, r[at + 2] as string | null);
  }

  /** One page, newest first, filtered before paging inside one script (honest totalCount). */
  async function scan(filter: ListFilter, source: 'pending' | 'all', page: PageRequest) {
    const cursor = page.after ? decodeCursor(page.after) : null;
    const reply = (await run(SCRIPTS.list, [
      source,
      page.first,
      cursor ? cursor.createdAt : '',
      cursor ? cursor.id : '',
      (filter.status ?? []).join(','),
      opt(filter.groupId ?? null),
      opt(filter.audience ?? null),
      opt(filter.channel ?? null),
      opt(filter.askedBy ?? null),
    ])) as Reply[];
    const items: QuestionRecord[] = [];
    for (let i = 2; i < reply.length; i += 3) items.push(fromTriple(reply, i));
    return { items, totalCount: Number(reply[0]), hasNextPage: Number(reply[1]) === 1 };
  }

  function onMessage(ch: string, message: string): void {
    if (ch !== channel) return;
    const ev = decodeEvent(message);
    if (!ev) return;
    for (const l of listeners) l.event(ev);
  }

  // Pub/sub is at-most-once: after a reconnect, resubscribe first, then tell every
  // listener to re-read what it holds.
  function onClose(): void {
    lostConnection = true;
  }
  async function onReady(): Promise<void> {
    if (!lostConnection || !subscribed) return;
    lostConnection = false;
    await subscriber.subscribe(channel);
    for (const l of listeners) l.resync();
  }
  const readyHandler = (): void => {
    onReady().catch(() => {
      lostConnection = true;
    });
  };

  return {
    kind: 'redis',

    async create(spec: QuestionSpec, o: CreateOptions): Promise<CreateResult> {
      const ttl = Math.max(spec.timeoutAt - spec.createdAt, 0) + o.retentionMs;
      const reply = (await run(SCRIPTS.create, [
        spec.id,
        encodeSpec(spec),
        spec.createdAt,
        spec.timeoutAt,
        ttl,
        o.maxPending,
        spec.audience ?? '',
        spec.groupId ?? '',
        spec.channel ?? '',
        spec.askedBy,
        o.ticketHash ?? '',
        spec.idempotencyKey ? idempotencySlot(spec.askedBy, spec.idempotencyKey) : '',
        o.preparedId ?? '',
      ])) as Reply[];
      switch (reply[0]) {
        case 'created':
          return { kind: 'created', question: decodeRecord(encodeSpec(spec), 'PENDING', null) };
        case 'existing':
          return { kind: 'existing', question: fromTriple(reply, 1) };
        case 'limit':
          return { kind: 'limit' };
        default:
          return { kind: 'no-reservation' };
      }
    },

    async claim(id: string, input: ClaimInput): Promise<ClaimResult> {
      const answered = input.status === 'ANSWERED';
      const resolution: Resolution = {
        status: input.status,
        answer: answered ? (input.answer ?? null) : null,
        answeredBy: answered ? (input.answeredBy ?? null) : null,
        answeredAt: answered ? input.now : null,
        closedAt: answered ? null : input.now,
        cancelReason: input.status === 'CANCELLED' ? (input.cancelReason ?? null) : null,
      };
      const hasReply = answered && input.reply !== undefined;
      const reply = (await run(SCRIPTS.claim, [
        id,
        input.status,
        encodeResolution(resolution),
        input.now,
        input.retentionMs,
        hasReply ? JSON.stringify(input.reply) : '',
        hasReply ? '1' : '0',
      ])) as Reply[];
      if (reply[0] === 'missing') return { kind: 'missing' };
      return { kind: reply[0] === 'won' ? 'won' : 'lost', question: fromTriple(reply, 1) };
    },

    async get(id: string): Promise<QuestionRecord | null> {
      const [spec, st, res] = await redis.hmget(`${prefix}q:${id}`, 'spec', 'st', 'res');
      return spec && st ? decodeRecord(spec, st, res) : null;
    },

    async getMany(ids: readonly string[]): Promise<(QuestionRecord | null)[]> {
      if (ids.length === 0) return [];
      const pipe = redis.pipeline();
      for (const id of ids) pipe.hmget(`${prefix}q:${id}`, 'spec', 'st', 'res');
      const results = (await pipe.exec()) ?? [];
      return results.map(([err, v]) => {
        const [spec, st, res] = (err ? [] : v) as (string | null)[];
        return spec && st ? decodeRecord(spec, st, res ?? null) : null;
      });
    },

    // Read in pipelined batches rather than one script: a snapshot needs no atomic view
    // (feeds reconcile changes that land during the read), and a script over 10,000 pending
    // questions would stall Redis for every instance. Small fields first, records for matches.
    async pending(filter: ListFilter): Promise<QuestionRecord[]> {
      const ids = await redis.zrange(`${prefix}pending`, 0, -1);
      const want: ListFilter = { ...filter, status: ['PENDING'] };
      const out: QuestionRecord[] = [];
      for (let i = 0; i < ids.length; i += PENDING_BATCH) {
        const batch = ids.slice(i, i + PENDING_BATCH);
        const pipe = redis.pipeline();
        for (const id of batch) pipe.hmget(`${prefix}q:${id}`, 'st', 'grp', 'aud', 'chan', 'by');
        const metas = (await pipe.exec()) ?? [];
        const matching = batch.filter((_id, j) => {
          const [err, v] = metas[j] ?? [null, []];
          const [status, groupId, audience, channel, askedBy] = (err ? [] : v) as (string | null)[];
          if (!status || !askedBy) return false;
          const meta = {
            status,
            groupId: groupId || null,
            audience: audience || null,
            channel: channel || null,
            askedBy,
          };
          return matchesFilter(meta as Parameters<typeof matchesFilter>[0], want);
        });
        for (const q of await this.getMany(matching)) if (q?.status === 'PENDING') out.push(q);
      }
      return out;
    },

    async list(filter: ListFilter, page: PageRequest): Promise<Page> {
      const r = await scan(filter, onlyPending(filter) ? 'pending' : 'all', page);
      const last = r.items.at(-1);
      return {
        items: r.items,
        totalCount: r.totalCount,
        hasNextPage: r.hasNextPage,
        endCursor: last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      };
    },

    async questionForTicket(ticketHash: string): Promise<QuestionRecord | null> {
      const reply = (await run(SCRIPTS.ticket, [ticketHash])) as Reply[] | null;
      return reply ? fromTriple(reply, 0) : null;
    },

    async reserve(r: Reservation): Promise<void> {
      await redis.set(`${prefix}prep:${r.id}`, r.ticketHash, 'PXAT', r.expiresAt);
    },

    async takeReply(id: string): Promise<{ value: unknown } | undefined> {
      const raw = await redis.getdel(`${prefix}reply:${id}`);
      return raw === null ? undefined : { value: JSON.parse(raw) };
    },

    async expireDue(now: number, retentionMs: number, limit: number): Promise<number> {
      return Number(await run(SCRIPTS.expire, [now, retentionMs, limit]));
    },

    async prune(now: number, retentionMs: number): Promise<void> {
      await run(SCRIPTS.prune, [now - retentionMs]);
    },

    async listen(listener: StoreListener): Promise<() => void> {
      listeners.add(listener);
      if (!subscribed) {
        subscriber.on('message', onMessage);
        subscriber.on('close', onClose);
        subscriber.on('ready', readyHandler);
        subscribed = subscriber.subscribe(channel).then(() => undefined);
      }
      await subscribed;
      return () => listeners.delete(listener);
    },

    async ping(): Promise<boolean> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), opts.pingTimeoutMs ?? 1000);
      });
      try {
        return await Promise.race([redis.ping().then((r) => r === 'PONG'), timeout]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },

    async close(): Promise<void> {
      listeners.clear();
      if (subscribed) {
        subscriber.off('message', onMessage);
        subscriber.off('close', onClose);
        subscriber.off('ready', readyHandler);
        // Only while connected: offline, ioredis would queue it and shutdown would hang.
        if (subscriber.status === 'ready') await subscriber.unsubscribe(channel).catch(() => undefined);
      }
    },
  };
}

// What the Redis store sends its scripts and reads back, beside the store's methods: the
// create script's arguments and reply, and the listing script's page (read from the listing
// indexes inside one script, so totalCount is honest).
import { askedAuditDetail } from '../../domain/audit.ts';
import type { QuestionRecord, QuestionSpec } from '../../domain/question.ts';
import { mediaBytesOf, type QuotaLimit } from '../../domain/quotas.ts';
import { idempotencySlot } from '../idempotency.ts';
import { decodeCursor, encodeCursor } from '../listing.ts';
import { checkFollowUps, OUTBOX_ITEM_TTL_MS } from '../outbox.ts';
import { decodeRecord, encodeSpec } from '../record-codec.ts';
import type { CreateOptions, CreateResult, ListFilter, Page, PageRequest } from '../types.ts';
import type { Reply, ScriptRunner } from './scripts.ts';

function opt(v: string | null): string {
  return v === null ? '' : `=${v}`;
}

export function fromTriple(r: Reply[], at: number): QuestionRecord {
  return decodeRecord(r[at] as string, r[at + 1] as string, r[at + 2] as string | null);
}

/** A cap as create.lua takes it: absent when there is none (JSON has no Infinity). */
function cap(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/**
 * The create script's arguments: the spec as its own argument (stored and announced byte for
 * byte), then one JSON object create.lua reads by name with one `cjson.decode`. An absent field
 * means "none" (no cap, no ticket, no ladder): JSON has no undefined, and Lua's nil is the
 * script's "not set", so nothing is sent for it.
 */
export function createArgs(spec: QuestionSpec, o: CreateOptions): [string, string] {
  const followUps = checkFollowUps(o.followUps);
  const askFollowUps = checkFollowUps(o.askFollowUps);
  const args: CreateScriptArgs = {
    id: spec.id,
    createdAt: spec.createdAt,
    timeoutAt: spec.timeoutAt,
    ttlMs: Math.max(spec.timeoutAt - spec.createdAt, 0) + o.retentionMs,
    maxPending: cap(o.maxPending),
    format: spec.format,
    askedBy: spec.askedBy,
    mediaBytes: mediaBytesOf(spec.media),
    outboxTtlMs: OUTBOX_ITEM_TTL_MS,
    askedDetail: askedAuditDetail(spec),
    audience: spec.audience || undefined,
    groupId: spec.groupId || undefined,
    channel: spec.channel || undefined,
    routedTo: spec.routedTo || undefined,
    ticketHash: o.ticketHash || undefined,
    idempotencySlot: spec.idempotencyKey ? idempotencySlot(spec.askedBy, spec.idempotencyKey) : undefined,
    preparedId: o.preparedId || undefined,
    joinWhilePending: o.joinWhilePending === true || undefined,
    followUps: followUps.length > 0 ? followUps.join('\n') : undefined,
    askFollowUps: askFollowUps.length > 0 ? askFollowUps.join('\n') : undefined,
    maxPendingPerPrincipal: cap(o.maxPendingPerPrincipal),
    maxMediaBytesPerPrincipal: cap(o.maxMediaBytesPerPrincipal),
    maxMediaBytes: cap(o.maxMediaBytes),
    maxOutbox: cap(o.maxOutbox),
    escalationDue: o.escalationDue && o.escalationDue.length > 0 ? o.escalationDue : undefined,
  };
  return [encodeSpec(spec), JSON.stringify(args)];
}

/** What create.lua reads from its JSON argument, by name (undefined fields are not sent). */
interface CreateScriptArgs {
  id: string;
  createdAt: number;
  timeoutAt: number;
  ttlMs: number;
  maxPending: number | undefined;
  format: string;
  askedBy: string;
  mediaBytes: number;
  outboxTtlMs: number;
  askedDetail: unknown;
  audience: string | undefined;
  groupId: string | undefined;
  channel: string | undefined;
  /** An on-call question's person on duty (API.md §22): indexed for their delegate's listing. */
  routedTo: string | undefined;
  ticketHash: string | undefined;
  idempotencySlot: string | undefined;
  preparedId: string | undefined;
  joinWhilePending: true | undefined;
  followUps: string | undefined;
  askFollowUps: string | undefined;
  maxPendingPerPrincipal: number | undefined;
  maxMediaBytesPerPrincipal: number | undefined;
  maxMediaBytes: number | undefined;
  maxOutbox: number | undefined;
  escalationDue: readonly number[] | undefined;
}

export function createResult(spec: QuestionSpec, reply: Reply[]): CreateResult {
  switch (reply[0]) {
    case 'created':
      return { kind: 'created', question: decodeRecord(encodeSpec(spec), 'PENDING', null) };
    case 'existing':
      return { kind: 'existing', question: fromTriple(reply, 1) };
    case 'limit':
      return { kind: 'limit', limit: reply[1] as QuotaLimit };
    default:
      return { kind: 'no-reservation' };
  }
}

/** One page, newest first, read from the listing indexes inside one script (honest totalCount). */
export async function listPage(run: ScriptRunner, filter: ListFilter, page: PageRequest): Promise<Page> {
  const cursor = page.after ? decodeCursor(page.after) : null;
  const reply = (await run('list', [
    page.first,
    cursor ? cursor.createdAt : '',
    cursor ? cursor.id : '',
    (filter.status ?? []).join(','),
    opt(filter.groupId ?? null),
    opt(filter.audience ?? null),
    opt(filter.channel ?? null),
    opt(filter.askedBy ?? null),
    opt(filter.routedTo ?? null),
  ])) as Reply[];
  const items: QuestionRecord[] = [];
  for (let i = 2; i < reply.length; i += 3) items.push(fromTriple(reply, i));
  const last = items.at(-1);
  return {
    items,
    totalCount: Number(reply[0]),
    hasNextPage: Number(reply[1]) === 1,
    endCursor: last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

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

export function createArgs(spec: QuestionSpec, o: CreateOptions): (string | number)[] {
  const ttl = Math.max(spec.timeoutAt - spec.createdAt, 0) + o.retentionMs;
  return [
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
    checkFollowUps(o.followUps).join('\n'),
    OUTBOX_ITEM_TTL_MS,
    o.maxPendingPerPrincipal ?? '',
    o.maxMediaBytesPerPrincipal ?? '',
    o.maxMediaBytes ?? '',
    mediaBytesOf(spec.media),
    spec.format,
    o.maxOutbox ?? '',
    JSON.stringify(askedAuditDetail(spec)),
    (o.escalationDue ?? []).join(','),
    checkFollowUps(o.askFollowUps).join('\n'),
  ];
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

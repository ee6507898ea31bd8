// The pending backlog, read in pipelined batches rather than one script: a snapshot needs no
// atomic view (feeds reconcile changes that land during the read), and a script over 10,000
// pending questions would stall Redis for every instance. The source is the narrowest listing
// index the filter names; small fields first (the rest of the filter), records for matches.

import type { QuestionRecord } from '../../domain/question.ts';
import { matchesFilter } from '../listing.ts';
import { decodeRecord } from '../record-codec.ts';
import type { ListFilter } from '../types.ts';
import type { RedisClient } from './client.ts';

/** Questions read per pipeline when listing the pending backlog. */
const PENDING_BATCH = 500;

export async function readRecords(
  redis: RedisClient,
  prefix: string,
  ids: readonly string[],
): Promise<(QuestionRecord | null)[]> {
  if (ids.length === 0) return [];
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(`${prefix}q:${id}`, 'spec', 'st', 'res');
  const results = (await pipe.exec()) ?? [];
  return results.map(([err, v]) => {
    const [spec, st, res] = (err ? [] : v) as (string | null)[];
    return spec && st ? decodeRecord(spec, st, res ?? null) : null;
  });
}

async function matchingIds(
  redis: RedisClient,
  prefix: string,
  batch: readonly string[],
  want: ListFilter,
): Promise<string[]> {
  const pipe = redis.pipeline();
  // rt only when the filter names it (a delegate's read): other readers' batches stay as they were.
  const fields =
    want.routedTo != null ? ['st', 'grp', 'aud', 'chan', 'by', 'rt'] : ['st', 'grp', 'aud', 'chan', 'by'];
  for (const id of batch) pipe.hmget(`${prefix}q:${id}`, ...fields);
  const metas = (await pipe.exec()) ?? [];
  return batch.filter((_id, j) => {
    const [err, v] = metas[j] ?? [null, []];
    const [status, groupId, audience, channel, askedBy, routedTo] = (err ? [] : v) as (string | null)[];
    if (!status || !askedBy) return false;
    const meta = {
      status,
      groupId: groupId || null,
      audience: audience || null,
      channel: channel || null,
      askedBy,
      routedTo: routedTo || null,
    };
    return matchesFilter(meta as Parameters<typeof matchesFilter>[0], want);
  });
}

/**
 * The smallest-looking index that holds every match: a field's PENDING index when the filter
 * names one (a visibility scope always does for restricted keys and agents), else `pending`.
 */
function pendingSource(prefix: string, f: ListFilter): string {
  if (f.routedTo != null) return `${prefix}ix:rt:PENDING:${f.routedTo}`;
  if (f.audience != null) return `${prefix}ix:aud:PENDING:${f.audience}`;
  if (f.askedBy != null) return `${prefix}ix:by:PENDING:${f.askedBy}`;
  if (f.groupId != null) return `${prefix}ix:grp:PENDING:${f.groupId}`;
  if (f.channel != null) return `${prefix}ix:chan:PENDING:${f.channel}`;
  return `${prefix}pending`;
}

/** How many fields the filter matches on (each has its own PENDING index). */
function conditionCount(f: ListFilter): number {
  return [f.groupId, f.audience, f.channel, f.askedBy, f.routedTo].filter((v) => v != null).length;
}

export async function readPending(
  redis: RedisClient,
  prefix: string,
  filter: ListFilter,
): Promise<QuestionRecord[]> {
  const ids = await redis.zrange(pendingSource(prefix, filter), 0, -1);
  const want: ListFilter = { ...filter, status: ['PENDING'] };
  const exact = conditionCount(filter) <= 1;
  const out: QuestionRecord[] = [];
  for (let i = 0; i < ids.length; i += PENDING_BATCH) {
    const batch = ids.slice(i, i + PENDING_BATCH);
    const matching = exact ? batch : await matchingIds(redis, prefix, batch, want);
    for (const q of await readRecords(redis, prefix, matching)) if (q?.status === 'PENDING') out.push(q);
  }
  return out;
}

/** The matching ids only (small fields, never a record), for readers that fetch records in their own batches. */
export async function readPendingIds(
  redis: RedisClient,
  prefix: string,
  filter: ListFilter,
): Promise<string[]> {
  const ids = await redis.zrange(pendingSource(prefix, filter), 0, -1);
  // The source index is the whole answer when the filter names at most one field (an
  // operator's backlog, a restricted key's audience, an agent's own): kept by the same atomic
  // steps that change a status; a record gone meanwhile is skipped by its reader.
  if (conditionCount(filter) <= 1) return ids;
  const want: ListFilter = { ...filter, status: ['PENDING'] };
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += PENDING_BATCH) {
    out.push(...(await matchingIds(redis, prefix, ids.slice(i, i + PENDING_BATCH), want)));
  }
  return out;
}

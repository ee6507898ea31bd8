// The pending backlog as a feed's SNAPSHOT reads it: the matching ids first (small), then the
// records in parts of about one byte budget each, so a connecting subscriber holds about one
// part of questions however large the backlog, and a backlog within the budget is one part. Records resolved since the ids were read
// are skipped; the feed's known-ids rule reconciles what changed meanwhile.
// A record this process holds from its announcement (announced.ts) is taken from there, and
// only the others are read: a pending question's spec never changes, and the feed listens
// before it reads, so a resolution after the announced copy was taken reaches the feed as an
// event (the copy is dropped in the same step that dispatches it to the feeds).
import { canSee, visibilityScope } from '../../domain/access.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { mediaBytesOf } from '../../domain/quotas.ts';
import type { QuestionStore } from '../../store/types.ts';
import { pendingIdsScoped } from './scoped.ts';

/**
 * Roughly how many bytes of questions one batch may hold, counted as sizeOf counts them (a
 * 1 MiB-media question is read alone past it).
 */
export const BACKLOG_BATCH_BYTES = 4 * 1024 * 1024;
/** First read's size, before the reader has seen how large questions are. */
const FIRST_BATCH = 8;
const MAX_BATCH = 500;

/**
 * What a question weighs in a batch: the UTF-8 bytes of its record as JSON, what a store keeps
 * and a transport serializes (its media counted without copying them). An estimate of 1 KiB a
 * question besides its text and media made the first part of a backlog of small questions
 * about half of 4 MiB, and sent the rest as twice as many one-question parts.
 */
export function sizeOf(q: QuestionRecord): number {
  if (!q.media?.length) return Buffer.byteLength(JSON.stringify(q));
  return Buffer.byteLength(JSON.stringify({ ...q, media: null })) + mediaBytesOf(q.media);
}

/** What this process holds of a pending question without a read (engine/waiting/announced.ts). */
export type HeldRecord = (id: string) => QuestionRecord | undefined;

/** The records of `ids`, in order: held ones as they are, the rest in one read. */
async function recordsOf(
  store: QuestionStore,
  ids: readonly string[],
  held: HeldRecord | undefined,
): Promise<(QuestionRecord | null)[]> {
  if (!held) return store.getMany(ids);
  const out: (QuestionRecord | null)[] = ids.map((id) => held(id) ?? null);
  const missing = ids.filter((_id, i) => out[i] === null);
  if (missing.length === 0) return out;
  const read = await store.getMany(missing);
  let m = 0;
  for (let i = 0; i < out.length; i++) if (out[i] === null) out[i] = read[m++] ?? null;
  return out;
}

/**
 * The next read's size: as many questions of the last read's average size as fill the `room`
 * left in the part, so a part ends close past its budget rather than up to a read past it.
 */
function nextSize(count: number, bytes: number, room: number): number {
  if (count === 0) return FIRST_BATCH;
  return Math.max(1, Math.min(MAX_BATCH, Math.ceil(room / (bytes / count))));
}

/**
 * Yields the backlog in parts of about `budget` bytes each: records are read in growing
 * sub-batches and gathered until the part is full, so a backlog that fits in one budget
 * arrives whole in the first part (the SNAPSHOT), and a larger one holds one part at a time.
 */
export async function* readBacklog(
  store: QuestionStore,
  p: Principal,
  budget = BACKLOG_BATCH_BYTES,
  held?: HeldRecord,
): AsyncGenerator<QuestionRecord[]> {
  const scope = visibilityScope(p);
  if (scope === 'none') return;
  const ids = await pendingIdsScoped(store, scope);
  let size = FIRST_BATCH;
  let part: QuestionRecord[] = [];
  let bytes = 0;
  for (let i = 0; i < ids.length; ) {
    const batch = ids.slice(i, i + size);
    const records = await recordsOf(store, batch, held);
    i += batch.length;
    // A delegate's rotations were read whole (scoped.ts): only what is routed to its people stays.
    const live = records.filter(
      (q): q is QuestionRecord => q?.status === 'PENDING' && (scope.routed === undefined || canSee(p, q)),
    );
    let read = 0;
    for (const q of live) {
      part.push(q);
      read += sizeOf(q);
    }
    bytes += read;
    if (bytes >= budget) {
      yield part;
      part = [];
      bytes = 0;
    }
    size = nextSize(live.length, read, budget - bytes);
  }
  if (part.length > 0) yield part;
}

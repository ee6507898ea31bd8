// How a question travels through Redis and announcements: the spec as JSON written once at
// ask time, and the resolution as JSON written by the claim. Lua only moves these strings
// (cjson would mangle numbers and empty arrays in answers), so they are encoded here.
import type { FiredStep } from '../domain/escalation.ts';
import type { QuestionRecord, QuestionSpec, QuestionStatus, Resolution, Vote } from '../domain/question.ts';
import { recordOf } from '../domain/question.ts';
import { eventOf, type StoreEvent, type StoreEventType } from './types.ts';

/** What `res` holds while a question with a quorum is pending. */
interface PendingVotes {
  votes?: Vote[];
}

export function encodeSpec(spec: QuestionSpec): string {
  return JSON.stringify(spec);
}

export function encodeResolution(r: Resolution): string {
  return JSON.stringify(r);
}

export function decodeRecord(
  spec: string,
  status: string,
  resolution: string | null | undefined,
): QuestionRecord {
  const s = JSON.parse(spec) as QuestionSpec;
  // A pending question's `res` holds only the votes cast so far (vote.lua), if any.
  if (status === 'PENDING' || !resolution) {
    return recordOf(s, null, resolution ? (JSON.parse(resolution) as PendingVotes).votes : null);
  }
  const r = JSON.parse(resolution) as Resolution;
  return recordOf(s, { ...r, status: status as Exclude<QuestionStatus, 'PENDING'> });
}

const EVENT_TYPES = new Set<StoreEventType>(['ASKED', 'UPDATED', 'ANSWERED', 'TIMED_OUT', 'CANCELLED']);

/** A fired escalation step as the record keeps it (JSON, written once). */
export function encodeFired(f: FiredStep): string {
  return JSON.stringify({
    firedAt: f.firedAt,
    outcome: f.outcome,
    ...(f.routedTo !== undefined ? { routedTo: f.routedTo } : {}),
  });
}

/** The fired steps from the record's `e0`…`e9` fields (in step order; absent: not fired). */
export function decodeFired(fields: readonly (string | null | undefined)[]): Map<number, FiredStep> {
  const out = new Map<number, FiredStep>();
  fields.forEach((text, i) => {
    if (!text) return;
    try {
      const f = JSON.parse(text) as FiredStep;
      if (typeof f.firedAt === 'number' && typeof f.outcome === 'string') out.set(i, f);
    } catch {
      // Written by encodeFired only; a field that does not parse is left out, not fatal.
    }
  });
  return out;
}

/** The first line of a resolution's announcement (common.lua): what can be read without the spec. */
interface ResolutionHead {
  type: StoreEventType;
  id: string;
  format: QuestionRecord['format'];
  createdAt: number;
  followUps: boolean;
  res: Resolution;
}

/**
 * An announcement as published by the Lua scripts. A resolution is two lines, its head (type,
 * id, format, createdAt, whether follow-ups were enqueued, the resolution) and then the spec;
 * JSON.stringify never writes a raw newline, so the first one ends the head. The spec, most of
 * the bytes, is parsed only when a consumer reads `question`. ASKED, UPDATED (its `res` the
 * votes so far) and a resolution of a question stored before heads existed are one JSON object
 * {"type":…,"spec":…,"res":…|null}.
 */
export function decodeEvent(message: string): StoreEvent | null {
  try {
    const nl = message.indexOf('\n');
    if (nl >= 0) return lazyEvent(JSON.parse(message.slice(0, nl)) as ResolutionHead, message.slice(nl + 1));
    const m = JSON.parse(message) as { type: StoreEventType; spec: QuestionSpec; res: Resolution | null };
    if (!EVENT_TYPES.has(m.type) || !m.spec) return null;
    // UPDATED carries the pending question's votes in `res` (vote.lua).
    if (m.type === 'UPDATED')
      return eventOf(m.type, recordOf(m.spec, null, (m.res as PendingVotes | null)?.votes));
    return eventOf(m.type, recordOf(m.spec, m.res));
  } catch {
    return null;
  }
}

function lazyEvent(h: ResolutionHead, spec: string): StoreEvent | null {
  if (
    !EVENT_TYPES.has(h.type) ||
    h.type === 'ASKED' ||
    h.type === 'UPDATED' ||
    !h.res ||
    typeof h.id !== 'string'
  )
    return null;
  let question: QuestionRecord | undefined;
  return {
    type: h.type,
    head: {
      id: h.id,
      format: h.format,
      createdAt: h.createdAt,
      answeredAt: h.res.answeredAt,
      closedAt: h.res.closedAt,
      answeredBy: h.res.answeredBy,
    },
    followUps: h.followUps,
    get question(): QuestionRecord {
      // A spec that no longer parses was written by no version of this store; it cannot happen.
      question ??= recordOf(JSON.parse(spec) as QuestionSpec, h.res);
      return question;
    },
  };
}

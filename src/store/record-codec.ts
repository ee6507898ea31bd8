// How a question travels through Redis and announcements: the spec as JSON written once at
// ask time, and the resolution as JSON written by the claim. Lua only moves these strings
// (cjson would mangle numbers and empty arrays in answers), so they are encoded here.
import type { QuestionRecord, QuestionSpec, QuestionStatus, Resolution } from '../domain/question.ts';
import { recordOf } from '../domain/question.ts';
import type { StoreEvent, StoreEventType } from './types.ts';

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
  if (status === 'PENDING' || !resolution) return recordOf(s, null);
  const r = JSON.parse(resolution) as Resolution;
  return recordOf(s, { ...r, status: status as Exclude<QuestionStatus, 'PENDING'> });
}

const EVENT_TYPES = new Set<StoreEventType>(['ASKED', 'ANSWERED', 'TIMED_OUT', 'CANCELLED']);

/** An announcement as published by the Lua scripts: {"type":…,"spec":…,"res":…|null}. */
export function decodeEvent(message: string): StoreEvent | null {
  try {
    const m = JSON.parse(message) as { type: StoreEventType; spec: QuestionSpec; res: Resolution | null };
    if (!EVENT_TYPES.has(m.type) || !m.spec) return null;
    return { type: m.type, question: recordOf(m.spec, m.res) };
  } catch {
    return null;
  }
}

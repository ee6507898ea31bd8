// How the CLI prints: plain tables and detail blocks for people, JSON for scripts. No colours,
// no terminal tricks: output is the same in a terminal, a pipe and a log file.

import { ladderLine } from '../client/escalation-ladder.ts';
import type { InboxEvent, Question } from '../client/index.ts';
import { presentOn } from '../domain/presentation.ts';
import { fitWidth } from '../domain/values.ts';

/** The longest TEXT cell in a table; the full text is in `show`. */
const TEXT_CELL_MAX = 60;

/** One line of at most `max` characters (code points), with an ellipsis when cut. */
export function oneLine(text: string, max = TEXT_CELL_MAX): string {
  return fitWidth(text.replace(/\s+/g, ' ').trim(), max);
}

/** Columns padded to their widest cell, two spaces apart; no trailing spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** `2025-01-31T12:00:00.000Z` → `2025-01-31 12:00:00Z`: readable, still UTC and unambiguous. */
export function shortTime(iso: string | null): string {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** An answer as one line: strings as they are, anything else as JSON. */
export function answerText(answer: unknown): string {
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

/** Who claimed it (API.md §22): present on the reads that ask for it (list, show, claim). */
function claimOf(q: Question): { claimedBy?: string | null; claimedAt?: string | null } {
  return q as { claimedBy?: string | null; claimedAt?: string | null };
}

export function questionsTable(questions: readonly Question[]): string {
  return table(
    ['ID', 'STATUS', 'FORMAT', 'ASKED BY', 'CREATED', 'CLAIMED BY', 'TEXT'],
    questions.map((q) => [
      q.id,
      q.status,
      q.format,
      q.askedBy,
      shortTime(q.createdAt),
      claimOf(q).claimedBy ?? '',
      oneLine(q.text),
    ]),
  );
}

/** Every field the question has, one per line. */
/** The ladder in one line (domain/escalation-ladder.ts); null without one. */
function escalationText(q: Question, now = Date.now()): string | null {
  const steps = q.escalations ?? [];
  if (steps.length === 0) return null;
  const ladder = steps.map((s) => ({ ...s, firedAt: s.firedAt === null ? null : Date.parse(s.firedAt) }));
  return ladderLine(ladder, Date.parse(q.createdAt), now, q.status === 'PENDING');
}

/** One step: when and what, then what it did once it fired. */
function stepText(s: NonNullable<Question['escalations']>[number]): string {
  const what =
    s.action === 'REMIND' ? 'remind' : `reroute to ${s.channel}${s.recipient ? ` (${s.recipient})` : ''}`;
  const done = s.firedAt === null ? 'not fired' : `fired ${shortTime(s.firedAt)}: ${s.outcome ?? ''}`;
  return `+${s.afterSeconds}s ${what}, ${done}`;
}

/**
 * An APPROVAL's action as the approver needs it in a terminal: what it is, each argument on its
 * own line (so a long one is not lost in one JSON blob), whether it may be edited, and how it
 * ended (with changes or not, the votes, the run).
 */
function approvalRows(q: Question): [string, string | null][] {
  const a = q.action;
  if (!a) return [];
  // From the one presentation object the answer's presentedDigest digests (API.md §23).
  const shown = presentOn('cli', a, a.arguments ?? {});
  const args = typeof shown.arguments === 'string' ? [] : Object.entries(shown.arguments);
  // The arguments approved, where the approver changed them: shown as "proposed → approved".
  const answer = q.answer as { arguments?: Record<string, unknown> } | null | undefined;
  const approved = q.edited && answer && typeof answer.arguments === 'object' ? answer.arguments : null;
  const rows: [string, string | null][] = [
    ['Action', shown.name],
    [
      'Summary',
      shown.summary ? `${shown.summary}${q.edited ? ' (proposed; the arguments were changed)' : ''}` : null,
    ],
    ['Arguments', args.length === 0 ? '(none)' : ''],
    ...args.map(([k, v]): [string, string] => [`  ${k}`, argumentText(v, approved, k)]),
    ['Editable', a.editable ? 'yes (approve changed arguments with answer --arguments <file.json>)' : 'no'],
    ['Decision', q.decision ? `${q.decision}${q.edited ? ' with changes' : ''}` : null],
    ['Quorum', q.quorum ? `${q.quorum.approvals} to approve, ${q.quorum.rejections} to reject` : null],
    ...(q.votes ?? []).map((v): [string, string] => [
      'Vote',
      `${v.decision} by ${v.byName ? `${v.byName} (${v.by})` : v.by} via ${v.via}, ${shortTime(v.at)}${v.note ? `: ${oneLine(v.note)}` : ''}`,
    ]),
    ['Executed', executionText(q)],
  ];
  return rows;
}

/** One argument: its value, or "proposed → approved" where the approver changed it. */
function argumentText(proposed: unknown, approved: Record<string, unknown> | null, key: string): string {
  if (!approved || !Object.hasOwn(approved, key)) return answerText(proposed);
  const now = answerText(approved[key]);
  const was = answerText(proposed);
  return now === was ? now : `${was} → ${now}`;
}

/** "consumed 2026-… by agent-1 · succeeded 2026-…", or null before the approval was used. */
function executionText(q: Question): string | null {
  const e = q.execution;
  if (!e?.consumedAt) return null;
  const ran = `consumed ${shortTime(e.consumedAt)}${e.consumedBy ? ` by ${e.consumedBy}` : ''}`;
  return e.outcome ? `${ran} · ${e.outcome.toLowerCase()} ${shortTime(e.reportedAt)}` : ran;
}

export function questionDetail(q: Question): string {
  const rows: [string, string | null][] = [
    ['ID', q.id],
    ['Status', q.status],
    ['Format', q.format],
    ['Text', q.text],
    ['Options', q.options ? q.options.join(', ') : null],
    ['Schema', q.schema ? JSON.stringify(q.schema) : null],
    ['Link', q.link],
    ['Verified', q.serverVerified ? 'yes (the provider signs its callback)' : null],
    ...(q.media ?? []).map((m): [string, string] => [
      'Media',
      `${m.kind} ${oneLine(m.url, 100)}${m.caption ? ` (${m.caption})` : ''}`,
    ]),
    ['Group', q.groupId],
    ['Audience', q.audience],
    ['Channel', q.channel],
    ['Recipient', q.recipient],
    ['Sensitive', q.sensitive ? 'yes (the answer is never shown)' : null],
    ['Asked by', q.askedBy],
    ['Created', shortTime(q.createdAt)],
    ['Times out', shortTime(q.timeoutAt)],
    ['Answer', q.answer === null || q.answer === undefined ? null : answerText(q.answer)],
    // The name where the server knows one, with the stable id beside it.
    [
      'Answered by',
      q.answeredByName && q.answeredBy ? `${q.answeredByName} (${q.answeredBy})` : q.answeredBy,
    ],
    ['For', q.onBehalfOf ?? null],
    [
      'Claimed by',
      claimOf(q).claimedBy ? `${claimOf(q).claimedBy} (${shortTime(claimOf(q).claimedAt ?? '')})` : null,
    ],
    ['Answered at', q.answeredAt ? shortTime(q.answeredAt) : null],
    ['Closed at', q.closedAt ? shortTime(q.closedAt) : null],
    ['Reason', q.cancelReason],
    ...approvalRows(q),
    ['Escalation', escalationText(q)],
    ...(q.escalations ?? []).map((s, i): [string, string] => [`  step ${i + 1}`, stepText(s)]),
  ];
  const shown = rows.filter(
    (r): r is [string, string] => r[1] !== null && (r[1] !== '' || r[0] === 'Arguments'),
  );
  const width = Math.max(...shown.map(([k]) => k.length));
  return `${shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`;
}

const FORMAT_WIDTH = 'EXTERNAL'.length;
const ASKER_WIDTH = 16;

/**
 * One inbox event as lines: the time and type, then the question(s). `backlog`: the event
 * continues a SNAPSHOT that said `more` (its questions are listed as the SNAPSHOT's are).
 */
export function eventLines(ev: InboxEvent, now: Date = new Date(), backlog = false): string {
  const time = now.toISOString().slice(11, 19);
  // Fixed-width columns (ids are UUIDs, formats at most 8 letters, askers clipped), so the text
  // column starts at the same place on every line.
  const describe = (q: Question): string =>
    [
      q.id,
      q.format.padEnd(FORMAT_WIDTH),
      oneLine(q.askedBy, ASKER_WIDTH).padEnd(ASKER_WIDTH),
      oneLine(q.text),
      ...(q.answer != null ? [`→ ${oneLine(answerText(q.answer))}`] : []),
    ].join('  ');
  const line = (at: string, label: string, rest: string): string => `${at}  ${label.padEnd(9)}  ${rest}\n`;
  const blank = ' '.repeat(time.length);
  const pendingLines = (): string => ev.questions.map((q) => line(blank, 'PENDING', describe(q))).join('');
  if (ev.type === 'SNAPSHOT') {
    const count = `${ev.questions.length} pending${ev.more ? ' (more follow)' : ''}`;
    return line(time, 'SNAPSHOT', count) + pendingLines();
  }
  if (backlog) return pendingLines();
  return ev.questions.map((q) => line(time, ev.type, describe(q))).join('');
}

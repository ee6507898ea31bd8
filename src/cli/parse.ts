// Parsers for option values: each refuses a bad value with a one-line usage error (exit 2).
import { InvalidArgumentError } from 'commander';
import type { AnswerFormat, EscalationStepInput, QuestionStatus } from '../client/index.ts';

const STATUSES: readonly QuestionStatus[] = ['PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'];
/**
 * Every format the server's schema names (the SDK's generated AnswerFormat), with what `tai ask`
 * needs for it. A Record, not a list: a format added to the server fails to compile here once
 * `npm run codegen` has run, until it is described.
 */
export const FORMAT_NEEDS: Record<AnswerFormat, string> = {
  TEXT: 'free text',
  CONFIRM: 'yes or no',
  SELECT: 'one of the --option values',
  FORM: 'a JSON object valid against --schema',
  EXTERNAL: 'answered through --link',
  APPROVAL: 'approve or reject --action',
};
export const FORMATS = Object.keys(FORMAT_NEEDS) as AnswerFormat[];

export function parseJsonArg(what: string) {
  return (value: string): unknown => {
    try {
      return JSON.parse(value);
    } catch {
      throw new InvalidArgumentError(
        `${what} must be JSON, e.g. '"yes"', true, '"production"' or '{"name":"Ada"}'.`,
      );
    }
  };
}

export function parseWhole(min: number, max: number) {
  return (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}

export function parseStatuses(value: string): QuestionStatus[] | null {
  if (value.trim().toLowerCase() === 'all') return null;
  const picked = value.split(',').map((s) => s.trim().toUpperCase());
  for (const s of picked) {
    if (!STATUSES.includes(s as QuestionStatus)) {
      throw new InvalidArgumentError(`expected "all" or a comma-separated list of ${STATUSES.join(', ')}.`);
    }
  }
  return picked as QuestionStatus[];
}

export function parseFormat(value: string): AnswerFormat {
  const f = value.trim().toUpperCase();
  if (!FORMATS.includes(f as AnswerFormat)) {
    throw new InvalidArgumentError(`expected one of ${FORMATS.map((x) => x.toLowerCase()).join(', ')}.`);
  }
  return f as AnswerFormat;
}

export function parseUrl(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL, e.g. http://127.0.0.1:4000.');
  }
  return value;
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const SPAN_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "90", "90s", "10m", "2h", "1d": seconds (the server checks the bounds and the order). */
function spanSeconds(value: string): number | null {
  const m = /^(\d{1,9})([smhd]?)$/.exec(value.trim());
  if (!m) return null;
  return Number(m[1]) * (SPAN_UNITS[m[2] || 's'] ?? 1);
}

const STEP_USAGE =
  'expected <after>:remind or <after>:reroute:<channel>[:<recipient>], <after> as 90, 90s, 10m, 2h or 1d (e.g. 10m:remind, 1h:reroute:oncall-sms).';

/**
 * One `--escalate` step: `<after>:remind` or `<after>:reroute:<channel>[:<recipient>]`. The
 * recipient is everything after the third colon, so addresses holding colons pass whole.
 */
export function parseEscalationStep(
  value: string,
  previous: EscalationStepInput[] = [],
): EscalationStepInput[] {
  const [after = '', action = '', channel, ...rest] = value.split(':');
  const afterSeconds = spanSeconds(after);
  const verb = action.trim().toUpperCase();
  if (afterSeconds === null) throw new InvalidArgumentError(STEP_USAGE);
  if (verb === 'REMIND' && channel === undefined) {
    return [...previous, { afterSeconds, action: 'REMIND' }];
  }
  if (verb === 'REROUTE' && channel) {
    const recipient = rest.join(':');
    return [...previous, { afterSeconds, action: 'REROUTE', channel, ...(recipient ? { recipient } : {}) }];
  }
  throw new InvalidArgumentError(STEP_USAGE);
}

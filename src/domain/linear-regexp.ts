// JSON Schema `pattern`s come from callers and are run on answers that may arrive through
// the public callback door. A backtracking engine lets `^(a+)+$` stall the process; RE2
// matches in linear time. Patterns RE2 cannot express (lookaround, backreferences) fail to
// compile, so the schema is refused at ask time instead of being slow at answer time.
//
// Linear is not cheap enough on its own: RE2's cost is about (string length × compiled program
// size), and counted repetition blows the program up (`(.*){1,999}` is ~5,000 instructions).
// So a pattern's program is bounded when the schema is compiled (at ask time), and the work of
// all pattern tests in one validation is bounded by a budget counted in the same unit.
import { RE2JS } from 're2js';

/** The largest compiled RE2 program a schema pattern may have (`[a-z0-9]{1,255}` is 511). */
export const PATTERN_PROGRAM_MAX = 1000;
/**
 * Pattern work allowed for one validation, in (characters tested × program size), summed over
 * every pattern test it runs. A 64 KiB string against `^[a-z]+$` (6) costs ~400,000; a pattern of the largest size may run on ~500 characters.
 */
export const PATTERN_WORK_MAX = 500_000;

export interface RegExpLike {
  test(s: string): boolean;
  toString(): string;
}

/** Thrown by a pattern test when the validation in progress has spent its budget. */
export class PatternBudgetExceeded extends Error {
  constructor() {
    super('pattern work budget exceeded');
    this.name = 'PatternBudgetExceeded';
  }
}

/** Work left in the validation in progress; null outside `withPatternBudget` (each test then gets a full budget). */
let remaining: number | null = null;

function spend(cost: number): void {
  if (remaining === null) {
    if (cost > PATTERN_WORK_MAX) throw new PatternBudgetExceeded();
    return;
  }
  remaining -= cost;
  if (remaining < 0) throw new PatternBudgetExceeded();
}

/** Runs `fn` (synchronous) with one shared pattern budget for every pattern test inside it. */
export function withPatternBudget<T>(fn: () => T): T {
  const outer = remaining;
  remaining = PATTERN_WORK_MAX;
  try {
    return fn();
  } finally {
    remaining = outer;
  }
}

function compile(pattern: string, flags: string): RegExpLike {
  const re = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  const size = re.programSize();
  if (size > PATTERN_PROGRAM_MAX) {
    throw new Error(
      `pattern is too complex (compiled size ${size}, at most ${PATTERN_PROGRAM_MAX}; use smaller repetition counts)`,
    );
  }
  return {
    test(s: string): boolean {
      // +1: even the empty string runs the program once.
      spend((s.length + 1) * size);
      return re.matcher(s).find();
    },
    // Ajv keys its compiled patterns by toString(): it must name the pattern.
    toString: () => `/${pattern}/${flags}`,
  };
}

/** An Ajv `code.regExp` engine. */
export const linearRegExp = Object.assign(compile, { code: 'linearRegExp' });

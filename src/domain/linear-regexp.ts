// JSON Schema `pattern`s come from callers and are run on answers that may arrive through
// the public callback door. A backtracking engine lets `^(a+)+$` stall the process; RE2
// matches in linear time. Patterns RE2 cannot express (lookaround, backreferences) fail to
// compile, so the schema is refused at ask time instead of being slow at answer time.
import { RE2JS } from 're2js';

export interface RegExpLike {
  test(s: string): boolean;
  toString(): string;
}

function compile(pattern: string, flags: string): RegExpLike {
  const re = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  // Ajv keys its compiled patterns by toString(): it must name the pattern.
  return { test: (s: string) => re.matcher(s).find(), toString: () => `/${pattern}/${flags}` };
}

/** An Ajv `code.regExp` engine. */
export const linearRegExp = Object.assign(compile, { code: 'linearRegExp' });

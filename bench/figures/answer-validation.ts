// Figure 5: how long one answer's validation can block the event loop (issue 10 item 2). A
// question's schema comes from the asker and its answer from anyone holding the callback URL,
// so each hostile schema below (as large as an ask allows) meets its worst answer (as large as
// the callback door accepts, 64 KiB), in this process, through the same `validateAnswer` the
// doors call. The value is the slowest case; it stands beside the aim the issue sets, 50 ms.
// Each case's median and maximum are kept in the parameters.

import { validateAnswer } from '../../src/domain/answer.ts';
import { compileJsonSchema } from '../../src/domain/json-schema.ts';
import { PATTERN_WORK_MAX } from '../../src/domain/linear-regexp.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { median, round } from '../lib/stats.ts';

const AIM_MS = 50;
/** The callback door's default body cap: no answer that reaches validation is larger. */
const BODY_MAX = 65_536;
const RUNS = 15;
const WARMUP = 3;
/** The largest program a pattern may compile to (1,000 instructions, PATTERN_PROGRAM_MAX). */
const BIG = '(.*){1,199}abcd';

interface Case {
  name: string;
  schema: Record<string, unknown>;
  answer: unknown;
}

const str = (pattern: string, extra: Record<string, unknown> = {}) => ({ type: 'string', pattern, ...extra });
/** The longest string of `fill` that fits in one body, with room for the JSON around it. */
const longest = (fill: string): string => fill.repeat(Math.floor((BODY_MAX - 64) / fill.length));

function cases(): Case[] {
  const atBudget = Math.floor(PATTERN_WORK_MAX / 1000) - 1;
  return [
    {
      name: 'largest pattern, longest string within the budget (no match)',
      schema: { type: 'object', properties: { v: str(BIG) } },
      answer: { v: 'x'.repeat(atBudget) },
    },
    {
      name: 'largest pattern, longest string within the budget of near-matches (abc…)',
      schema: { type: 'object', properties: { v: str(BIG) } },
      answer: { v: 'abc'.repeat(Math.floor(atBudget / 3)) },
    },
    {
      name: 'largest pattern, 64 KiB string (refused by the budget)',
      schema: { type: 'object', properties: { v: str(BIG) } },
      answer: { v: longest('x') },
    },
    {
      name: 'cheap pattern, 64 KiB string',
      schema: { type: 'object', properties: { v: str('^[a-z]*$') } },
      answer: { v: longest('a') },
    },
    {
      name: 'largest pattern on every item of a 64 KiB array of short strings',
      schema: { type: 'object', properties: { v: { type: 'array', items: str(BIG) } } },
      answer: { v: Array.from({ length: Math.floor(BODY_MAX / 6) }, () => 'xy') },
    },
    {
      name: 'largest pattern on every property name of a 64 KiB object',
      schema: { type: 'object', patternProperties: { [BIG]: {} }, additionalProperties: false },
      answer: Object.fromEntries(Array.from({ length: Math.floor(BODY_MAX / 10) }, (_, i) => [`k${i}`, 0])),
    },
    {
      name: 'forty largest patterns stacked with allOf on one string',
      schema: {
        type: 'object',
        // 996 instructions of repetition and three literals each: 999, just under the cap.
        properties: {
          v: {
            allOf: Array.from({ length: 40 }, (_, i) =>
              str(`(.*){1,199}a${i.toString(36).padStart(2, '0')}`),
            ),
          },
        },
      },
      answer: { v: 'x'.repeat(atBudget) },
    },
    {
      name: 'uniqueItems on a 64 KiB array of distinct numbers',
      schema: { type: 'object', properties: { v: { type: 'array', uniqueItems: true } } },
      answer: { v: Array.from({ length: Math.floor(BODY_MAX / 7) }, (_, i) => i) },
    },
    ...['email', 'uri', 'date-time', 'regex', 'hostname', 'ipv6'].map((format) => ({
      name: `format ${format}, 64 KiB string`,
      schema: { type: 'object', properties: { v: { type: 'string', format } } },
      answer: { v: longest(format === 'uri' ? 'a:a' : 'a.a-') },
    })),
  ];
}

function timeOne(c: Case): number {
  const started = process.hrtime.bigint();
  try {
    validateAnswer({ format: 'FORM', options: null, schema: c.schema }, c.answer);
  } catch {
    // A refusal is an outcome like any other: its cost is what is measured.
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function answerValidation(ctx: BenchContext): Promise<Section> {
  const perCase: Record<string, { medianMs: number; maxMs: number }> = {};
  let worst = { name: '', maxMs: 0 };
  for (const c of cases()) {
    // The schema compiles at ask time, not on the answer: compiled (and cached) before the clock runs.
    compileJsonSchema(c.schema, 'input.schema');
    for (let i = 0; i < WARMUP; i++) timeOne(c);
    const samples = Array.from({ length: RUNS }, () => timeOne(c));
    const maxMs = round(Math.max(...samples));
    perCase[c.name] = { medianMs: round(median(samples)), maxMs };
    if (maxMs > worst.maxMs) worst = { name: c.name, maxMs };
    ctx.log(`  ${c.name}: median ${perCase[c.name]!.medianMs} ms, max ${maxMs} ms`);
  }
  return {
    title: 'Worst answer validation',
    about:
      "Each hostile schema (the largest pattern program an ask accepts, that pattern on every item or property name, forty of them stacked, uniqueItems, the string formats) meets its worst answer as large as the callback door accepts (64 KiB), validated in-process by the same `validateAnswer` the doors call, after the schema was compiled as it is at ask time. The value is the slowest single validation over every case (15 runs each after 3 warm-ups): how long one hostile answer can block the event loop. It stands beside the aim of issue 10 item 2, 50 ms (a ratio below 1 meets it). Each case's median and maximum are in results.json.",
    figures: [
      figure({
        name: 'worst answer validation (hostile schema, 64 KiB)',
        value: worst.maxMs,
        unit: 'ms',
        floorName: 'aim',
        floor: AIM_MS,
        floorUnit: 'ms',
        parameters: {
          worstCase: worst.name,
          runs: RUNS,
          warmup: WARMUP,
          bodyBytes: BODY_MAX,
          cases: perCase,
        },
      }),
    ],
  };
}

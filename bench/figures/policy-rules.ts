// What 1,000 policy rules add to an ask (API.md §20, "Cost"): the same APPROVAL ask, in this
// process on the memory store, through an engine holding no rules and one holding 1,000 (900
// exact-action rules with argument schemas, on other actions, and 100 globs that do not match),
// in alternating rounds after a warm-up. Deciding is a pure function of the rule set and the
// question (indexed by exact action name), so the extra is the lookup and the globs tried. The
// value is the median over rounds of (p50 with 1,000 rules − p50 with none), beside the aim, 100 µs.
import { manifestPolicyRule } from '../../src/domain/policy/rule.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { median, round } from '../lib/stats.ts';

const AIM_US = 100;
const RULES = 1000;
const GLOBS = 100;
const ROUNDS = 12;
const PER_ROUND = 400;
const WARMUP = 400;
const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };

function rules() {
  return Array.from({ length: RULES }, (_, i) =>
    manifestPolicyRule(
      i < RULES - GLOBS
        ? {
            id: `rule-${i}`,
            effect: i % 3 === 0 ? 'DENY' : 'ALLOW',
            match: {
              action: `service${i}.operation`,
              arguments: { type: 'object', properties: { amount: { type: 'number', maximum: i } } },
            },
          }
        : { id: `glob-${i}`, effect: 'ASK', match: { action: `team${i}.*` } },
      `policies[${i}]`,
    ),
  );
}

function engineWith(policies: ReturnType<typeof rules>) {
  return createInteractions({
    store: createMemoryStore(),
    settings: {
      answerTimeoutSeconds: 3600,
      holdSeconds: 0,
      retentionSeconds: 3600,
      maxPending: 1_000_000,
      maxPendingPerPrincipal: 1_000_000,
      reaperIntervalMs: 3_600_000,
      sweepIntervalMs: 3_600_000,
      publicBaseUrl: null,
    },
    policies,
  });
}

const input = {
  text: 'Refund?',
  format: 'APPROVAL',
  action: { name: 'payments.refund', arguments: { amount: 40, currency: 'EUR' } },
};

async function p50(engine: ReturnType<typeof engineWith>, n: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    await engine.ask(AGENT, input, { holdSeconds: 0 });
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return median(samples);
}

export async function policyRules(ctx: BenchContext): Promise<Section> {
  const none = engineWith([]);
  const many = engineWith(rules());
  await none.start();
  await many.start();
  try {
    await p50(none, WARMUP);
    await p50(many, WARMUP);
    const extras: number[] = [];
    const withNone: number[] = [];
    const withMany: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so neither gains from the other's warm caches.
      let noneP50: number;
      let manyP50: number;
      if (r % 2) {
        manyP50 = await p50(many, PER_ROUND);
        noneP50 = await p50(none, PER_ROUND);
      } else {
        noneP50 = await p50(none, PER_ROUND);
        manyP50 = await p50(many, PER_ROUND);
      }
      withNone.push(noneP50);
      withMany.push(manyP50);
      extras.push(manyP50 - noneP50);
    }
    const extra = round(median(extras));
    ctx.log(
      `  ask p50: ${round(median(withNone))} µs with no rules, ${round(median(withMany))} µs with ${RULES}`,
    );
    return {
      title: 'Policy rules at ask time',
      about: `The same APPROVAL ask (holdSeconds 0, an action no rule matches) in this process on the memory store, through an engine with no policy rules and one with ${RULES} (${RULES - GLOBS} exact-action rules with argument schemas, on other actions, and ${GLOBS} globs that do not match), in ${ROUNDS} alternating rounds of ${PER_ROUND} asks after ${WARMUP} warm-up asks each. The value is the median over rounds of (p50 with ${RULES} rules − p50 with none): what deciding adds to an ask. It stands beside the aim of API.md §20, ${AIM_US} µs (a ratio below 1 meets it). Both p50s are in results.json.`,
      figures: [
        figure({
          name: `ask with ${RULES.toLocaleString('en')} policy rules, p50 extra over none`,
          value: extra,
          unit: 'µs',
          floorName: 'aim',
          floor: AIM_US,
          floorUnit: 'µs',
          parameters: {
            rules: RULES,
            globs: GLOBS,
            rounds: ROUNDS,
            perRound: PER_ROUND,
            p50NoneUs: round(median(withNone)),
            p50ManyUs: round(median(withMany)),
          },
        }),
      ],
    };
  } finally {
    await none.stop();
    await many.stop();
  }
}

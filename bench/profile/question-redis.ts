// Redis work per question, for the scale-on-paper figures in docs/ARCHITECTURE.md (issue 46):
// questions asked and answered through an engine in this process on a private redis-server, 16
// at once, with the audit log off and on, and APPROVAL questions decided at ask time by an ALLOW
// rule (API.md §20). Per question: the scripts and commands Redis ran (INFO commandstats, the
// scripts' own commands included), its CPU (INFO cpu), and the same for chaining the question's
// audit entries afterwards. Not part of `npm run bench`:
//   npx tsx bench/profile/question-redis.ts [questions] [rounds]
import { Redis } from 'ioredis';
import { manifestPolicyRule } from '../../src/domain/policy/rule.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createRedisStore } from '../../src/store/redis/redis-store.ts';
import { startRedis } from '../lib/redis.ts';
import { uniquePrefix } from '../lib/servers.ts';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 2);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };
const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
const redis = await startRedis();
const admin = new Redis(redis.url);

async function counters(): Promise<{ cpuUs: number; calls: number; scripts: number }> {
  const cpu = await admin.info('cpu');
  const v = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(cpu)?.[1] ?? 0);
  const stats = await admin.info('commandstats');
  let calls = 0;
  let scripts = 0;
  for (const m of stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
    if (m[1] === 'info') continue;
    calls += Number(m[2]);
    if (m[1] === 'evalsha' || m[1] === 'eval') scripts += Number(m[2]);
  }
  return { cpuUs: (v('used_cpu_user') + v('used_cpu_sys')) * 1e6, calls, scripts };
}

const settings = {
  answerTimeoutSeconds: 3600,
  holdSeconds: 0,
  retentionSeconds: 3600,
  maxPending: 1_000_000,
  maxPendingPerPrincipal: 1_000_000,
  reaperIntervalMs: 3_600_000,
  sweepIntervalMs: 3_600_000,
  publicBaseUrl: null,
};
const allow = manifestPolicyRule(
  { id: 'refunds', effect: 'ALLOW', match: { action: 'payments.refund' } },
  'policies[0]',
);

async function shape(name: string, audit: boolean, policy: boolean): Promise<void> {
  const conn = new Redis(redis.url);
  const sub = new Redis(redis.url);
  const store = createRedisStore({ redis: conn, subscriber: sub, prefix: uniquePrefix('q'), audit });
  // Not started: no reaper or chaining worker; the chain is timed on its own below.
  const engine = createInteractions({ store, settings, policies: policy ? [allow] : [] });
  const input = policy
    ? { text: 'Refund?', format: 'APPROVAL', action: { name: 'payments.refund', arguments: { amount: 4 } } }
    : { text: 'Deploy?', format: 'CONFIRM' };
  let next = 0;
  const c0 = await counters();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) {
        const r = await engine.ask(AGENT, input, { holdSeconds: 0 });
        if (!policy) await engine.answer(OPS, r.question.id, true);
      }
    }),
  );
  const c1 = await counters();
  await store.audit.chain();
  const c2 = await counters();
  const per = (a: number, b: number) => ((b - a) / N).toFixed(1);
  console.log(
    `${name.padEnd(34)} ${per(c0.scripts, c1.scripts)} scripts, ${per(c0.calls, c1.calls)} commands, ` +
      `${per(c0.cpuUs, c1.cpuUs)} µs Redis CPU; chaining its entries: ${per(c1.calls, c2.calls)} commands, ` +
      `${per(c1.cpuUs, c2.cpuUs)} µs`,
  );
  await store.close();
  conn.disconnect();
  sub.disconnect();
}

try {
  for (let r = 0; r < ROUNDS; r++) {
    await shape('ask + answer, log off', false, false);
    await shape('ask + answer, log on', true, false);
    await shape('ask decided by a rule, log on', true, true);
  }
} finally {
  admin.disconnect();
  await redis.stop();
}

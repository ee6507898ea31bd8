// Redis CPU per resolution script, with the audit log on and off, from INFO cpu (the server's
// user + system CPU, so time the process spent preempted does not count, unlike commandstats'
// usec) on a private redis-server: `claim.lua` (the GraphQL answer) and
// `answer-ticket.lua` (the callback door's one step). Not part of `npm run bench`:
//   npx tsx bench/profile/claim-redis.ts [questions per round] [rounds]
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { openRedisStore, specOf } from '../../test/support/fixtures.ts';
import { startRedis } from '../lib/redis.ts';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 3);
const redis = await startRedis();
const admin = new Redis(redis.url);
async function cpuUs(): Promise<number> {
  const info = await admin.info('cpu');
  const v = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (v('used_cpu_user') + v('used_cpu_sys')) * 1e6;
}
const opts = { maxPending: 1e9, retentionMs: 600_000 };
try {
  for (let round = 0; round < ROUNDS * 2; round++) {
    const audit = round % 2 === 1;
    const { store, close } = openRedisStore(redis.url, { audit });
    const specs = Array.from({ length: N }, () => specOf());
    for (const s of specs) await store.create(s, opts);
    let c0 = await cpuUs();
    for (const s of specs) {
      await store.claim(s.id, {
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'operator',
        now: Date.now(),
        retentionMs: 600_000,
      });
    }
    const claim = ((await cpuUs()) - c0) / N;
    const hashes = Array.from({ length: N }, () =>
      createHash('sha256').update(randomBytes(32)).digest('hex'),
    );
    for (let i = 0; i < N; i++) {
      const spec = specOf({ format: 'EXTERNAL', link: 'https://sign.example/doc' });
      await store.create(spec, { ...opts, ticketHash: hashes[i] });
    }
    c0 = await cpuUs();
    for (const h of hashes) {
      const now = Date.now();
      const r = await store.ticketStep(h, {
        answer: { answer: { approved: true }, answeredBy: 'callback', now, retentionMs: 600_000 },
        count: { key: 'ratelimit:127.0.0.1', windowMs: 60_000, max: 1e9 },
      });
      if (r.kind !== 'won') throw new Error(`ticket step: ${r.kind}`);
    }
    const ticket = ((await cpuUs()) - c0) / N;
    console.log(
      `audit ${audit ? 'on ' : 'off'}  claim.lua ${claim.toFixed(1)} µs  answer-ticket.lua ${ticket.toFixed(1)} µs of Redis CPU per call`,
    );
    await close();
  }
} finally {
  admin.disconnect();
  await redis.stop();
}

// Grants on Redis (API.md §20): see store/grants.ts. A hash of grants (id → the grant's JSON as
// Node wrote it), a hash of use counts, a set of ids per giver, a sorted set of expiry times, and
// a generation every instance polls. Give, use and revoke are one script each.
import type { Grant } from '../../domain/policy/grant.ts';
import { type GrantStore, grantGivenDetail, type StoredGrant } from '../grants.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

export function createRedisGrants(redis: RedisClient, prefix: string, run: ScriptRunner): GrantStore {
  const all = `${prefix}grant:all`;
  const uses = `${prefix}grant:uses`;
  const stored = (raw: string, used: string | null | undefined): StoredGrant => ({
    ...(JSON.parse(raw) as Grant),
    uses: Number(used ?? 0),
  });

  return {
    async list() {
      const [grants, counts] = await Promise.all([redis.hgetall(all), redis.hgetall(uses)]);
      return Object.entries(grants).map(([id, raw]) => stored(raw, counts[id]));
    },
    async byPerson(person, now) {
      const ids = await redis.smembers(`${prefix}grant:by:${person}`);
      if (ids.length === 0) return [];
      const [raws, counts] = await Promise.all([redis.hmget(all, ...ids), redis.hmget(uses, ...ids)]);
      const out: StoredGrant[] = [];
      raws.forEach((raw, i) => {
        if (raw) out.push(stored(raw, counts[i]));
      });
      return out.filter((g) => g.expiresAt > now);
    },
    async get(id) {
      const [raw, used] = await Promise.all([redis.hget(all, id), redis.hget(uses, id)]);
      return raw ? stored(raw, used) : null;
    },
    async generation() {
      return Number((await redis.get(`${prefix}grant:gen`)) ?? 0);
    },
    async give(grant, max, now) {
      const r = await run('grantGive', [
        grant.id,
        JSON.stringify(grant),
        grant.createdBy,
        max,
        now,
        grant.expiresAt,
        grant.questionId,
        grant.via,
        JSON.stringify(grantGivenDetail(grant)),
      ]);
      return Number(r) === 1 ? 'given' : 'limit';
    },
    async use(id, questionId, now) {
      return Number(await run('grantUse', [id, questionId, now])) === 1 ? 'used' : 'gone';
    },
    async revoke(id, actor, now) {
      return Number(await run('grantRevoke', [id, actor, now])) === 1;
    },
  };
}

// Store policy rules on Redis (API.md §20): see store/policies.ts. The generation is one GET,
// cheap enough for every instance to poll it a few times a second.
import type { PolicyStore, StoredPolicy } from '../policies.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

export function createRedisPolicies(redis: RedisClient, prefix: string, run: ScriptRunner): PolicyStore {
  return {
    async list() {
      const [rules, versions] = await Promise.all([
        redis.hgetall(`${prefix}policy:rules`),
        redis.hgetall(`${prefix}policy:versions`),
      ]);
      const out: StoredPolicy[] = [];
      for (const [id, raw] of Object.entries(rules)) {
        const r = JSON.parse(raw) as { rule: string; by: string; at: number };
        out.push({ id, rule: r.rule, version: Number(versions[id] ?? 1), createdBy: r.by, createdAt: r.at });
      }
      return out;
    },
    async generation() {
      return Number((await redis.get(`${prefix}policy:gen`)) ?? 0);
    },
    async put(id, rule, max, change) {
      const v = Number(
        await run('policyPut', [id, rule, max, change.actor, JSON.stringify(change.detail), change.at]),
      );
      return v === 0 ? 'limit' : { version: v };
    },
    async delete(id, change) {
      return (
        Number(await run('policyDelete', [id, change.actor, JSON.stringify(change.detail), change.at])) === 1
      );
    },
  };
}

// Delegations on Redis (contract: ../delegations.ts): `deleg` maps a person to their delegation's
// JSON, `deleg:to:<delegate>` is a sorted set of the people who delegated to them, scored by the
// end time. Writes are scripts (delegation-set.lua, delegation-end.lua) carrying their audit entry.
import { type Delegation, parseDelegation } from '../../domain/delegation.ts';
import { type DelegationStore, delegationAuditDetail } from '../delegations.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

export function createRedisDelegations(
  redis: RedisClient,
  prefix: string,
  run: ScriptRunner,
): DelegationStore {
  return {
    async set(d) {
      await run('delegationSet', [
        d.from,
        JSON.stringify(d),
        d.to,
        d.until,
        d.setAt,
        JSON.stringify(delegationAuditDetail(d)),
      ]);
    },
    async end(from, actor, now) {
      return Number(await run('delegationEnd', [from, actor, now])) === 1;
    },
    async get(from, now) {
      return parseDelegation(await redis.hget(`${prefix}deleg`, from), now);
    },
    async delegatorsOf(to, now) {
      const froms = await redis.zrangebyscore(`${prefix}deleg:to:${to}`, `(${now}`, '+inf');
      if (froms.length === 0) return [];
      const texts = await redis.hmget(`${prefix}deleg`, ...froms);
      const out: Delegation[] = [];
      for (const text of texts) {
        // The index may lag a replacement by nothing (one script), but the record is the truth.
        const d = parseDelegation(text, now);
        if (d?.to === to) out.push(d);
      }
      return out.sort((a, b) => a.setAt - b.setAt || a.from.localeCompare(b.from));
    },
  };
}

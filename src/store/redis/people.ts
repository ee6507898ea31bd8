// The people store on Redis (contract: ../people.ts): `pv:<key>` strings with their expiry
// (SET PXAT, GETDEL for the one-step take) and `pm:<owner>` hashes for the small maps, whose
// capped write is one script, as is each write that carries an audit entry (claims, preferences). All keys share the deployment's prefix (its slot on a Cluster).
import type { PeopleAudit, PeopleStore } from '../people.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

/** An audited write's entry as its script takes it: type, question id, actor, via, detail, at. */
const auditArgs = (a: PeopleAudit): (string | number)[] => [
  a.type,
  a.questionId ?? '',
  a.actor,
  a.via,
  a.detail === null ? '' : JSON.stringify(a.detail),
  a.at,
];

export function createRedisPeople(redis: RedisClient, prefix: string, run: ScriptRunner): PeopleStore {
  const value = (key: string): string => `${prefix}pv:${key}`;
  const map = (owner: string): string => `${prefix}pm:${owner}`;
  return {
    async put(key, v, expiresAt) {
      await redis.set(value(key), v, 'PXAT', Math.max(1, Math.floor(expiresAt)));
    },
    // Redis expires the key itself; `now` matters only to the memory store.
    async get(key) {
      return await redis.get(value(key));
    },
    async take(key) {
      return await redis.getdel(value(key));
    },
    async delete(key) {
      return (await redis.del(value(key))) === 1;
    },
    async putAudited(key, v, expiresAt, a) {
      await run('peoplePutAudited', [key, v, Math.max(1, Math.floor(expiresAt)), ...auditArgs(a)]);
    },
    async deleteAudited(key, expected, a) {
      return Number(await run('peopleDeleteAudited', [key, expected, ...auditArgs(a)])) === 1;
    },
    async mapSet(owner, field, v, maxFields, expiresAt) {
      const reply = await run('peopleMapSet', [owner, field, v, maxFields, Math.floor(expiresAt)]);
      return Number(reply) === 1 ? 'set' : 'full';
    },
    async mapDelete(owner, field) {
      return (await redis.hdel(map(owner), field)) === 1;
    },
    async mapAll(owner) {
      return Object.freeze(await redis.hgetall(map(owner)));
    },
  };
}

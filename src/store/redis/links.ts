// Short links on Redis (contract: ../links.ts): `link:<token hash>` holds `<id>\n<url>`, written
// by one script with the question's remaining TTL; a read also checks that the question lives
// (its TTL shortens to the retention when it is resolved early).
import type { ShortLinks } from '../links.ts';
import type { RedisClient } from './client.ts';
import type { ScriptRunner } from './scripts.ts';

export function createRedisLinks(redis: RedisClient, prefix: string, run: ScriptRunner): ShortLinks {
  return {
    async save(id, tokenHash, url) {
      return Number(await run('linkSave', [id, tokenHash, url])) === 1;
    },

    async get(tokenHash) {
      const value = await redis.get(`${prefix}link:${tokenHash}`);
      const cut = value?.indexOf('\n') ?? -1;
      if (value == null || cut < 1) return null;
      return (await redis.exists(`${prefix}q:${value.slice(0, cut)}`)) === 1 ? value.slice(cut + 1) : null;
    },
  };
}

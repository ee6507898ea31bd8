// Short links in the memory store (contract: links.ts): every read goes through the question's
// own liveness check, so a link ends with its question.
import type { ShortLinks } from './links.ts';
import type { MemoryTables } from './memory-tables.ts';

export function createMemoryLinks(t: MemoryTables): ShortLinks {
  const links = new Map<string, { id: string; url: string }>();
  return {
    async save(id, tokenHash, url) {
      if (!t.entry(id)) return false;
      links.set(tokenHash, { id, url });
      return true;
    },

    async get(tokenHash) {
      const link = links.get(tokenHash);
      if (!link) return null;
      if (t.entry(link.id)) return link.url;
      links.delete(tokenHash);
      return null;
    },
  };
}

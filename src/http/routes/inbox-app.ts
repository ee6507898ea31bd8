// The installable inbox's files (API.md §19): the service worker at /sw.js (its scope is the
// whole origin, so it must live at the root), the web app manifest and the icons. They are
// built with the page (vite.config.ts copies src/inbox/public into dist/inbox) and served from
// the same folder, under the inbox door and its CSP; a fixed list of names, nothing else.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendRestError } from '../errors.ts';
import { DEFAULT_INBOX_DIR, INBOX_CSP } from './inbox.ts';

export interface InboxAppRouteOptions {
  /** The built inbox (default: dist/inbox at the repository root). */
  root?: string;
}

interface Served {
  file: string;
  type: string;
  cacheControl: string;
}

/** Revalidated every time: a new build's worker and manifest are picked up at once. */
const FRESH = 'no-cache';

export const INBOX_APP_FILES: Readonly<Record<string, Served>> = {
  '/sw.js': { file: 'sw.js', type: 'text/javascript; charset=utf-8', cacheControl: FRESH },
  '/manifest.webmanifest': {
    file: 'manifest.webmanifest',
    type: 'application/manifest+json; charset=utf-8',
    cacheControl: FRESH,
  },
  '/icons/icon-192.png': {
    file: 'icons/icon-192.png',
    type: 'image/png',
    cacheControl: 'public, max-age=86400',
  },
  '/icons/icon-512.png': {
    file: 'icons/icon-512.png',
    type: 'image/png',
    cacheControl: 'public, max-age=86400',
  },
  '/icons/maskable-512.png': {
    file: 'icons/maskable-512.png',
    type: 'image/png',
    cacheControl: 'public, max-age=86400',
  },
};

export async function inboxAppRoutes(app: FastifyInstance, o: InboxAppRouteOptions): Promise<void> {
  const root = path.resolve(o.root ?? DEFAULT_INBOX_DIR);
  for (const [url, served] of Object.entries(INBOX_APP_FILES)) {
    app.get(url, { config: { door: 'inbox' } }, async (_req, reply: FastifyReply) => {
      let body: Buffer;
      try {
        body = await readFile(path.join(root, served.file));
      } catch {
        // Not built yet: the page's own route says how to build it.
        return sendRestError(reply, 'NOT_FOUND', 'not found');
      }
      return reply
        .headers({
          'content-type': served.type,
          'cache-control': served.cacheControl,
          'content-security-policy': INBOX_CSP,
        })
        .send(body);
    });
  }
}

// The inbox door: the built inbox (dist/inbox, from `npm run build`) at `/`, its hashed assets
// under /assets/, both served by @fastify/static (ETag/304, HEAD, ranges). The page holds no data (it signs in and talks to /graphql like any client), so
// the door is public by default; the door policy may close it. The page gets a strict CSP: only
// its own scripts, styles and API, images also from https: and data: (API.md §5.2), no inline
// code and no eval. Without a build the server still starts and says how to build the page.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../engine/logger.ts';
import { declareScopeDoor } from '../door-auth.ts';

export const INBOX_CSP = [
  "default-src 'self'",
  "img-src 'self' https: data:",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** Where `npm run build` (vite.config.ts) writes the inbox. */
export const DEFAULT_INBOX_DIR = fileURLToPath(new URL('../../../dist/inbox/', import.meta.url));

export interface InboxRouteOptions {
  logger?: Logger;
  /** The built inbox (default: dist/inbox at the repository root). */
  root?: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** One file name, no directories: Vite writes every asset flat under assets/. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/;

const PAGE_HEADERS = {
  'content-security-policy': INBOX_CSP,
  'cache-control': 'no-cache',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

/** Served files only: one plain name with a known type (no dotfiles, no source of surprise types). */
function contentTypeOf(name: string): string | undefined {
  return ASSET_NAME.test(name) ? CONTENT_TYPES[path.extname(name).toLowerCase()] : undefined;
}

/** Content-hashed names never change content: browsers keep them for a year without asking. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Inbox not built · tai-interactions</title>
  </head>
  <body>
    <main>
      <h1>The inbox is not built</h1>
      <p>The server and its API are running, but the inbox page has not been built yet.</p>
      <p>Run <code>npm run build</code> in the project, then reload this page.</p>
    </main>
  </body>
</html>
`;

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

export async function inboxRoutes(app: FastifyInstance, o: InboxRouteOptions): Promise<void> {
  const root = path.resolve(o.root ?? DEFAULT_INBOX_DIR);
  const indexFile = path.join(root, 'index.html');
  if (!(await exists(indexFile))) {
    o.logger?.warn({ dir: root }, 'the inbox is not built (run npm run build); the API works without it');
  }

  // Every route of this plugin, @fastify/static's included, is the inbox door.
  declareScopeDoor(app, 'inbox');

  await app.register(fastifyStatic, {
    root: path.join(root, 'assets'),
    prefix: '/assets/',
    index: false,
    dotfiles: 'deny',
    maxAge: ASSET_MAX_AGE_MS,
    immutable: true,
    // Our own types (send's table names .js application/javascript); set before send's headers.
    contentType: false,
    allowedPath: (pathname) => contentTypeOf(pathname.slice(1)) !== undefined,
    setHeaders: (res, file) => {
      res.setHeader('content-type', contentTypeOf(path.basename(file)) ?? 'application/octet-stream');
      res.setHeader('content-security-policy', INBOX_CSP);
    },
  });

  const page = async (_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    // Checked per request: a build made after the server started is served without a restart.
    if (!(await exists(indexFile))) return reply.status(503).send(NOT_BUILT_PAGE);
    return reply.sendFile('index.html', root, { cacheControl: false, contentType: false });
  };
  app.get('/', page);
  app.get('/index.html', page);
}

// GraphiQL's files under /graphiql/ (registered only when GraphiQL is on): its script, styles
// and editor workers as @graphql-yoga/render-graphiql bundles them, our boot script and the
// favicon. Public like the page (they hold no data); each file is built once, on first use,
// and answered with an ETag, so a browser revalidates a 9 MB bundle with one 304.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GRAPHIQL_ASSETS, GRAPHIQL_BOOT_JS, GRAPHIQL_CSP } from '../../graphql/graphiql-page.ts';

interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

const JS = 'text/javascript; charset=utf-8';

/** Each file's type and how to make its bytes from the bundle. */
const FILES: Readonly<Record<string, { type: string; make(b: Bundle): Buffer | string }>> = {
  'graphiql.js': { type: JS, make: (b) => b.js },
  'graphiql.css': { type: 'text/css; charset=utf-8', make: (b) => b.css },
  'editor.worker.js': { type: JS, make: (b) => b.editorWorkerService },
  'json.worker.js': { type: JS, make: (b) => b.jsonWorker },
  'graphql.worker.js': { type: JS, make: (b) => b.graphqlWorker },
  'boot.js': { type: JS, make: () => GRAPHIQL_BOOT_JS },
  // A data: URI in the bundle; served as the file it encodes.
  'favicon.ico': {
    type: 'image/x-icon',
    make: (b) => Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64'),
  },
};

/** The page's headers (the graphql route adds them to Yoga's text/html response). */
export const GRAPHIQL_PAGE_HEADERS = {
  'content-security-policy': GRAPHIQL_CSP,
  'cache-control': 'no-cache',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

export async function graphiqlRoutes(app: FastifyInstance): Promise<void> {
  let bundle: Promise<Bundle> | null = null;
  const built = new Map<string, Asset>();

  async function asset(name: string): Promise<Asset | null> {
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!file) return null;
    const known = built.get(name);
    if (known) return known;
    // Loaded on the first request only: a server whose browsers never open GraphiQL never pays.
    bundle ??= import('@graphql-yoga/render-graphiql/graphiql');
    const made = file.make(await bundle);
    const body = typeof made === 'string' ? Buffer.from(made, 'utf8') : made;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const fresh = { type: file.type, body, etag };
    built.set(name, fresh);
    return fresh;
  }

  app.get(
    `${GRAPHIQL_ASSETS}:file`,
    // GraphiQL's scripts and styles, open like the page Yoga serves without a key.
    { config: { door: 'public' } },
    async (req: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
      const found = await asset(req.params.file);
      if (!found) return reply.callNotFound();
      reply.header('etag', found.etag).header('cache-control', 'no-cache');
      if (req.headers['if-none-match'] === found.etag) return reply.status(304).send();
      return reply.type(found.type).send(found.body);
    },
  );
}

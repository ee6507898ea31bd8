// GET /api/interactions/stream — the pending questions as server-sent events. Every connect
// replays the backlog (interaction.add, oldest first), then interaction.ready, then live
// frames. If the feed has to resynchronise (a lost subscriber, a consumer far behind), the
// stream ends and the client's reconnect replays the backlog as it is then.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../domain/principal.ts';
import { questionView } from '../../domain/question-view.ts';
import { openFeed } from '../../engine/feed.ts';
import type { FeedEvent, Interactions } from '../../engine/types.ts';

export interface StreamRouteOptions {
  engine: Interactions;
  keepaliveMs: number;
}

const FRAME_OF: Record<Exclude<FeedEvent['type'], 'SNAPSHOT'>, string> = {
  ASKED: 'interaction.add',
  ANSWERED: 'interaction.answered',
  TIMED_OUT: 'interaction.removed',
  CANCELLED: 'interaction.removed',
};

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function framesOf(ev: FeedEvent, first: boolean): string | null {
  if (ev.type === 'SNAPSHOT') {
    if (!first) return null;
    const adds = ev.questions.map((q) => frame('interaction.add', questionView(q))).join('');
    return adds + frame('interaction.ready', { pending: ev.questions.length });
  }
  return frame(FRAME_OF[ev.type], questionView(ev.questions[0]));
}

export async function streamRoutes(app: FastifyInstance, o: StreamRouteOptions): Promise<void> {
  app.get('/api/interactions/stream', { config: { door: 'stream' } }, async (req, reply) => {
    reply.hijack();
    await pump(o, req.principal, req.raw, reply.raw);
  });
}

async function pump(
  o: StreamRouteOptions,
  principal: Principal,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const feed = openFeed(o.engine, principal);
  let keepalive: NodeJS.Timeout | null = null;
  const stop = (): void => {
    if (keepalive) clearTimeout(keepalive);
    void feed.return();
  };
  const armKeepalive = (): void => {
    if (keepalive) clearTimeout(keepalive);
    keepalive = setTimeout(() => {
      res.write(': keepalive\n\n');
      armKeepalive();
    }, o.keepaliveMs);
  };
  req.on('close', stop);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  armKeepalive();
  let first = true;
  try {
    for await (const ev of feed) {
      const text = framesOf(ev, first);
      first = false;
      if (text === null) break;
      armKeepalive();
      // Backpressure: wait for the socket to drain before taking the next event; the
      // feed's bounded queue decides what happens to a consumer that stays behind.
      if (!res.write(text)) await drainedOrClosed(res);
    }
  } finally {
    stop();
    // A stream that ended leaves nothing to reuse its socket for: close it with the response.
    res.end(() => res.socket?.end());
  }
}

/**
 * Resolves on 'drain' or 'close', whichever comes first, and removes both listeners: a
 * listener left behind on every backpressured write would pile up for the stream's lifetime.
 */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    // Already gone: its 'close' has been emitted and would never come again.
    if (res.destroyed) return resolve();
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

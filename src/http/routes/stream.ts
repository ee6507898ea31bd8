// GET /api/interactions/stream — the pending questions as server-sent events. Every connect
// replays the backlog (interaction.add, oldest first), then interaction.ready, then live
// frames. The backlog arrives from the feed in parts and each part is written only once the
// socket drained the one before, so a slow reader holds the server to about one batch. If the feed has to resynchronise (a lost subscriber, a consumer far behind), the
// stream ends and the client's reconnect replays the backlog as it is then.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { type EscalationState, type QuestionView, questionView } from '../../domain/question-view.ts';
import type { FeedEvent, Interactions } from '../../engine/types.ts';
import { openFeed } from '../../engine/views/feed.ts';

export interface StreamRouteOptions {
  engine: Interactions;
  keepaliveMs: number;
}

const FRAME_OF: Record<Exclude<FeedEvent['type'], 'SNAPSHOT'>, string> = {
  ASKED: 'interaction.add',
  // A pending question changed: the same frame as its first add replaces the card (§18).
  UPDATED: 'interaction.add',
  ANSWERED: 'interaction.answered',
  TIMED_OUT: 'interaction.removed',
  CANCELLED: 'interaction.removed',
};

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The ladder of each question that has one (API.md §18), read once for the frames that show it. */
export type LaddersOf = (q: QuestionRecord) => Promise<readonly EscalationState[]>;

async function viewOf(q: QuestionRecord, ladders: LaddersOf): Promise<QuestionView> {
  return questionView(q, q.escalation?.length ? await ladders(q) : []);
}

/**
 * A live change's frame, built once for every stream of this process: the feed hands each of
 * them the same event object for one change (engine/views/feed.ts), and the frame depends on nothing
 * else (the REST view is the same for every reader); the ladder is read once per change too.
 */
const liveFrames = new WeakMap<FeedEvent, Promise<string>>();
function liveFrameOf(ev: FeedEvent, ladders: LaddersOf): Promise<string> {
  let text = liveFrames.get(ev);
  if (text === undefined) {
    const type = FRAME_OF[ev.type as Exclude<FeedEvent['type'], 'SNAPSHOT'>];
    text = viewOf(ev.questions[0]!, ladders).then((view) => frame(type, view));
    // A failed read is not kept: the next stream reads again.
    text.catch(() => liveFrames.delete(ev));
    liveFrames.set(ev, text);
  }
  return text;
}

/** Where a stream is: whether its first SNAPSHOT was seen, and how much backlog it replayed. */
export interface StreamState {
  first: boolean;
  replayed: number;
}

/** The frames of one feed event; null when the stream must end (a second SNAPSHOT: resync). */
export async function framesOf(
  ev: FeedEvent,
  state: StreamState,
  ladders: LaddersOf,
): Promise<string | null> {
  const isBacklog = ev.type === 'SNAPSHOT' || ev.backlog === true;
  if (ev.type === 'SNAPSHOT') {
    if (!state.first) return null;
    state.first = false;
  }
  if (!isBacklog) return liveFrameOf(ev, ladders);
  state.replayed += ev.questions.length;
  const views = await Promise.all(ev.questions.map((q) => viewOf(q, ladders)));
  const adds = views.map((view) => frame('interaction.add', view)).join('');
  return ev.more ? adds : adds + frame('interaction.ready', { pending: state.replayed });
}

export async function streamRoutes(app: FastifyInstance, o: StreamRouteOptions): Promise<void> {
  app.get('/api/interactions/stream', { config: { door: 'stream' } }, async (req, reply) => {
    // A hijacked reply writes its own head: the headers set on it so far (the security headers
    // every door sends) are copied into it, or the stream would go without them.
    const inherited = reply.getHeaders() as OutgoingHttpHeaders;
    // A restricted delegate's feed carries the questions of the people it acts for (API.md §22),
    // read before the reply is taken over so a store failure is still an ordinary error reply.
    const principal = await o.engine.presence.acting(req.principal);
    reply.hijack();
    await pump(o, principal, req.raw, reply.raw, inherited);
  });
}

async function pump(
  o: StreamRouteOptions,
  principal: Principal,
  req: IncomingMessage,
  res: ServerResponse,
  inherited: OutgoingHttpHeaders,
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
    ...inherited,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  armKeepalive();
  const state: StreamState = { first: true, replayed: 0 };
  const ladders: LaddersOf = (q) => o.engine.escalations(q);
  try {
    for await (const ev of feed) {
      const text = await framesOf(ev, state, ladders);
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

// The channel inbound doors (API.md §9): `POST /api/interactions/channels/{name}`, public by
// default (door `channels`). In order: the public doors' rate limit for channels that ask for it
// (e-mail) → the door's size cap on the bytes received (the plugin's `inboundMaxBytes`, else the
// callback cap) → an unknown name or a channel without inbound requests gets the callback doors'
// uniform 404 → the engine (the plugin checks the provider's signature on the raw bytes, then
// the answer is claimed) → the plugin's response, sent as is. A plugin that reads its body as a
// stream (`inboundStream`: mail with attachments) gets it unread, and may refuse on headers alone.
import type { Readable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type { ChannelResponse } from '../../channels/types.ts';
import { DomainError, type ErrorCode } from '../../domain/errors.ts';
import { CHANNEL_INBOUND_MAX_BYTES } from '../../engine/deliveries/inbound.ts';
import type { Interactions } from '../../engine/types.ts';
import { sendRestError } from '../errors.ts';
import { rateLimitKey, redisRateLimitStore } from '../rate-limit-store.ts';
import { sendTicketNotFound } from './callback.ts';

export const CHANNELS_PREFIX = '/api/interactions/channels';

export interface ChannelRouteOptions {
  engine: Interactions;
  maxBodyBytes: number;
  /** The server's public base URL (the URL providers sign, e.g. Twilio), without a trailing slash. */
  publicBaseUrl: string | null;
  /** The public doors' rate limit, for the channels that ask for it (`inboundRateLimited`). */
  rateLimit?: { perMinute: number; redis: Redis | Cluster | null; prefix: string };
}

type ChannelRequest = FastifyRequest<{ Params: { '*'?: string } }>;

const REFUSED: Record<number, [ErrorCode, string]> = {
  400: ['BAD_USER_INPUT', 'the request is not a valid event for this channel'],
  401: ['UNAUTHENTICATED', 'the request signature is missing or not valid'],
  403: ['FORBIDDEN', 'the request is not allowed'],
  413: ['PAYLOAD_TOO_LARGE', 'the request holds more than this channel accepts'],
  500: ['INTERNAL', 'the channel cannot check this request'],
};

function send(reply: FastifyReply, r: ChannelResponse): FastifyReply {
  reply.status(r.status);
  for (const [name, value] of Object.entries(r.headers ?? {})) reply.header(name, value);
  if (r.body === undefined) return reply.send('');
  if (typeof r.body === 'string') {
    if (!r.headers || !Object.keys(r.headers).some((h) => h.toLowerCase() === 'content-type')) {
      reply.type('text/plain; charset=utf-8');
    }
    return reply.send(r.body);
  }
  return reply.type('application/json').send(JSON.stringify(r.body));
}

const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', 'request body is too large');

/** The body read whole, up to `limit` bytes (what Fastify's `parseAs: 'buffer'` does). */
function readWhole(payload: Readable, limit: number, done: (err: Error | null, body?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (err: Error | null, body?: Buffer) => {
    if (settled) return;
    settled = true;
    payload.removeListener('data', onData);
    done(err, body);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) settle(tooLarge());
    else chunks.push(chunk);
  };
  payload.on('data', onData);
  payload.once('end', () => settle(null, Buffer.concat(chunks, size)));
  payload.once('error', (err) => settle(err));
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}

export async function channelRoutes(app: FastifyInstance, o: ChannelRouteOptions): Promise<void> {
  /** This door's cap: what its plugin declares for its provider, else the callback cap. */
  const capOf = (name: string): number => o.engine.channelInboundMaxBytes(name) ?? o.maxBodyBytes;
  const nameOf = (req: FastifyRequest) => (req.params as { '*'?: string })['*'] ?? '';

  if (o.rateLimit) {
    const { perMinute, redis, prefix } = o.rateLimit;
    // Counted apart from the callback door's budget, per client address (IPv6 by /64).
    await app.register(rateLimit, {
      max: perMinute,
      timeWindow: 60_000,
      ...(redis ? { store: redisRateLimitStore(redis, `${prefix}ratelimit:channels:`) } : {}),
      allowList: (req) => !o.engine.channelInboundDoor(nameOf(req)).rateLimited,
      keyGenerator: (req) => rateLimitKey(req.ip),
      skipOnError: false,
      errorResponseBuilder: (_req, ctx) =>
        new DomainError('RATE_LIMITED', `too many requests; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
  }

  // Raw bytes: providers sign exactly what they sent. The limit counts bytes received; a door
  // read whole stops at the largest cap such a door may have, each door's own cap is applied
  // below; a streamed door's plugin reads (and counts) its body itself.
  app.removeAllContentTypeParsers();
  const bodyLimit = Math.max(o.maxBodyBytes, CHANNEL_INBOUND_MAX_BYTES);
  app.addContentTypeParser('*', (req, payload, done) => {
    if (o.engine.channelInboundDoor(nameOf(req)).stream) done(null, payload);
    else readWhole(payload, bodyLimit, done);
  });

  // A declared length over the door's cap is refused before a byte of the body is read.
  app.addHook('preParsing', async (req: ChannelRequest, reply, payload) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > capOf(req.params['*'] ?? '')) {
      // The rest of the body is not read: the connection closes after the answer.
      reply.header('connection', 'close');
      throw tooLarge();
    }
    return payload;
  });

  const config = { door: 'channels' } as const;
  const base = o.publicBaseUrl ?? '';
  app.post(`${CHANNELS_PREFIX}/*`, { config }, async (req: ChannelRequest, reply: FastifyReply) => {
    const name = req.params['*'] ?? '';
    // A body sent without a length (chunked) is measured once read.
    if (Buffer.isBuffer(req.body) && req.body.length > capOf(name)) throw tooLarge();
    const streamed = isStream(req.body) ? req.body : undefined;
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const result = await o.engine.channelInbound(name, {
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      ...(streamed ? { body: streamed } : {}),
      headers: req.headers,
      url: `${base}${CHANNELS_PREFIX}/${encodeURIComponent(name)}${query}`,
      now: Date.now(),
    });
    // A streamed body the plugin refused may be largely unread: nothing more of it is read.
    if (streamed && !streamed.readableEnded) reply.header('connection', 'close');
    if (result.kind === 'not-found') return sendTicketNotFound(reply, req.method);
    if (result.kind === 'refused') {
      if (result.response) return send(reply, result.response);
      const [code, message] = REFUSED[result.status] ?? REFUSED[500]!;
      return sendRestError(reply, code, message);
    }
    return send(reply, result.response);
  });
}

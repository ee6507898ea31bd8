// The channel inbound doors (API.md §9): `POST /api/interactions/channels/{name}`, public by
// default (door `channels`). In order: the door's size cap on the bytes received (the plugin's
// `inboundMaxBytes`, else the callback cap) → an unknown name or
// a channel without inbound requests gets the callback doors' uniform 404 → the engine (the
// plugin checks the provider's signature on the raw bytes, then the answer is claimed) → the
// plugin's response, sent as is.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelResponse } from '../../channels/types.ts';
import { DomainError, type ErrorCode } from '../../domain/errors.ts';
import { CHANNEL_INBOUND_MAX_BYTES } from '../../engine/deliveries/inbound.ts';
import type { Interactions } from '../../engine/types.ts';
import { sendRestError } from '../errors.ts';
import { sendTicketNotFound } from './callback.ts';

export const CHANNELS_PREFIX = '/api/interactions/channels';

export interface ChannelRouteOptions {
  engine: Interactions;
  maxBodyBytes: number;
  /** The server's public base URL (the URL providers sign, e.g. Twilio), without a trailing slash. */
  publicBaseUrl: string | null;
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

export async function channelRoutes(app: FastifyInstance, o: ChannelRouteOptions): Promise<void> {
  /** This door's cap: what its plugin declares for its provider, else the callback cap. */
  const capOf = (name: string): number => o.engine.channelInboundMaxBytes(name) ?? o.maxBodyBytes;

  // Raw bytes: providers sign exactly what they sent. The limit counts bytes received; the
  // parser stops at the largest cap any door may have, each door's own cap is applied below.
  app.removeAllContentTypeParsers();
  const bodyLimit = Math.max(o.maxBodyBytes, CHANNEL_INBOUND_MAX_BYTES);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

  // A declared length over the door's cap is refused before a byte of the body is read.
  app.addHook('preParsing', async (req: ChannelRequest, _reply, payload) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > capOf(req.params['*'] ?? '')) throw tooLarge();
    return payload;
  });

  const config = { door: 'channels' } as const;
  const base = o.publicBaseUrl ?? '';
  app.post(`${CHANNELS_PREFIX}/*`, { config }, async (req: ChannelRequest, reply: FastifyReply) => {
    const name = req.params['*'] ?? '';
    // A body sent without a length (chunked) is measured once read.
    if (Buffer.isBuffer(req.body) && req.body.length > capOf(name)) throw tooLarge();
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const result = await o.engine.channelInbound(name, {
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      headers: req.headers,
      url: `${base}${CHANNELS_PREFIX}/${encodeURIComponent(name)}${query}`,
      now: Date.now(),
    });
    if (result.kind === 'not-found') return sendTicketNotFound(reply, req.method);
    if (result.kind === 'refused') {
      if (result.response) return send(reply, result.response);
      const [code, message] = REFUSED[result.status] ?? REFUSED[500]!;
      return sendRestError(reply, code, message);
    }
    return send(reply, result.response);
  });
}

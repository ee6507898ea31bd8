// The first steps every inbound door takes, in this order (API.md §9 "Inbound door"): the secret
// named in the config must be set (else 500: fail closed), the provider's signature must check on
// the raw request (else 401), and only then is the event parsed and acted on.
import type { ChannelContext, InboundEvent, InboundRequest } from './types.ts';

/**
 * `check` returns null when the request is the provider's, else why not (for logs, never a
 * secret); `handle` runs only after that, with the secret.
 */
export function verifiedInbound(
  ctx: Pick<ChannelContext, 'secret'>,
  secretEnv: string,
  check: (secret: string, req: InboundRequest) => string | null,
  handle: (req: InboundRequest, secret: string) => InboundEvent | Promise<InboundEvent>,
): (req: InboundRequest) => Promise<InboundEvent> {
  return async (req) => {
    const secret = ctx.secret(secretEnv);
    if (!secret) return { kind: 'reject', status: 500, reason: `${secretEnv} is not set` };
    const refused = check(secret, req);
    if (refused !== null) return { kind: 'reject', status: 401, reason: refused };
    return handle(req, secret);
  };
}

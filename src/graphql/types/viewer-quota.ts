// ViewerQuota: what the caller's pending questions hold against the caps its asks meet.
import type { Quota, Usage } from '../../domain/quotas.ts';
import { builder } from '../builder.ts';

export interface QuotaShape {
  usage: Usage;
  limits: Quota;
}

/** GraphQL Int is 32-bit; a cap configured above it reads as the largest Int. */
const INT_MAX = 2 ** 31 - 1;
const int = (n: number): number => Math.min(n, INT_MAX);

export const ViewerQuota = builder.objectRef<QuotaShape>('ViewerQuota').implement({
  description:
    'The pending backlog against its caps: this key’s share and the whole server’s. Questions count from asked until answered, timed out or cancelled; media bytes are the UTF-8 bytes of their media URLs and captions.',
  fields: (t) => ({
    pending: t.int({
      description: 'Questions this key asked that are pending now.',
      resolve: (q) => int(q.usage.pending),
    }),
    reserved: t.int({
      description:
        'prepareExternal reservations of this key not yet asked nor expired; each holds a place of maxPending like a pending question.',
      resolve: (q) => int(q.usage.reserved),
    }),
    maxPending: t.int({
      description:
        'Most questions this key may have pending, its unasked prepareExternal reservations included (its own maxPending, else the server’s default).',
      resolve: (q) => int(q.limits.maxPendingPerPrincipal),
    }),
    pendingMediaBytes: t.float({
      description: 'Media bytes of this key’s pending questions.',
      resolve: (q) => q.usage.mediaBytes,
    }),
    maxPendingMediaBytes: t.float({
      description: 'Most media bytes this key’s pending questions may hold together.',
      resolve: (q) => q.limits.maxMediaBytesPerPrincipal,
    }),
    serverPending: t.int({
      description: 'Questions pending on the server, every caller together.',
      resolve: (q) => int(q.usage.totalPending),
    }),
    serverMaxPending: t.int({
      description: 'Most questions pending on the server at once.',
      resolve: (q) => int(q.limits.maxPending),
    }),
    serverPendingMediaBytes: t.float({
      description: 'Media bytes of every pending question together.',
      resolve: (q) => q.usage.totalMediaBytes,
    }),
    serverMaxPendingMediaBytes: t.float({
      description: 'The server’s pending media budget in bytes.',
      resolve: (q) => q.limits.maxMediaBytes,
    }),
  }),
});

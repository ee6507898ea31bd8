// Viewer: the principal making the request.
import type { Principal } from '../../domain/principal.ts';
import { builder } from '../builder.ts';
import { ViewerQuota } from './viewer-quota.ts';

export const Viewer = builder.objectRef<Principal>('Viewer').implement({
  description: 'Who is calling, as the server knows them from their key.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The principal id; questions record it as asker or answerer.' }),
    roles: t.stringList({
      description: 'The roles of the key: agent, operator, auditor, admin.',
      resolve: (p) => [...p.roles],
    }),
    restricted: t.exposeBoolean('restricted', {
      description: 'Whether the key is confined to questions addressed to its own id (and to its groups).',
    }),
    groups: t.stringList({
      description:
        'The groups the caller belongs to (the groups file, the manifest, a sign-in’s groups claim): questions for `group:<id>` and `oncall:<id>` are theirs.',
      resolve: (p) => [...(p.groups ?? [])],
    }),
    quota: t.field({
      type: ViewerQuota,
      description: 'The caller’s pending questions and media against its caps, and the server’s.',
      resolve: (p, _args, ctx) => ctx.engine.quota(p),
    }),
  }),
});

// PreparedExternal: a reserved id and callback URL for the callable-link flow.
import type { PreparedExternal as PreparedExternalShape } from '../../engine/types.ts';
import { builder } from '../builder.ts';
import { DateTime } from '../scalars.ts';

export const PreparedExternal = builder.objectRef<PreparedExternalShape>('PreparedExternal').implement({
  description:
    'A reservation for an EXTERNAL question: build the external resource with `callbackUrl`, then call `askUser(input, preparedId: id)`.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The id the question will have; pass it as `preparedId`.' }),
    callbackUrl: t.exposeString('callbackUrl', {
      description: 'The URL that will record the answer once the question is asked.',
    }),
    expiresAt: t.field({
      type: DateTime,
      description: 'When the reservation lapses if no question is asked with it.',
      resolve: (p) => p.expiresAt,
    }),
  }),
});

// MediaItem: display-only media shown with a question (API.md §5.2).
import type { MediaItem as MediaItemShape } from '../../domain/question.ts';
import { builder } from '../builder.ts';
import { MediaKind } from './enums.ts';

export const MediaItem = builder.objectRef<MediaItemShape>('MediaItem').implement({
  description: 'An image or link shown with a question in the inbox. Never part of the answer.',
  fields: (t) => ({
    kind: t.expose('kind', { type: MediaKind, description: 'Whether this is an image or a link.' }),
    url: t.exposeString('url', {
      description: 'The image (https URL or data:image/* URI) or the link (http(s) URL).',
    }),
    caption: t.string({
      nullable: true,
      description: 'A short text shown with the item.',
      resolve: (m) => m.caption ?? null,
    }),
  }),
});

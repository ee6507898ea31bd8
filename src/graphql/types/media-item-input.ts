// MediaItemInput: media to show with a new question (validated by the domain, API.md §5.2).
import { builder } from '../builder.ts';
import { MediaKind } from './enums.ts';

export const MediaItemInput = builder.inputType('MediaItemInput', {
  description: 'An image or link to show with the question in the inbox.',
  fields: (t) => ({
    kind: t.field({ type: MediaKind, required: true, description: 'IMAGE or LINK.' }),
    url: t.string({
      required: true,
      description:
        'IMAGE: an absolute https URL or a data:image/* base64 URI. LINK: an absolute http(s) URL.',
    }),
    caption: t.string({ description: 'A short, non-blank text shown with the item.' }),
  }),
});

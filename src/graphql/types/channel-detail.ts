// ChannelDetail: a configured channel as operators see it (`tai channels list`).
import type { ChannelDetail as Detail } from '../../engine/ports.ts';
import { builder } from '../builder.ts';

export const ChannelDetail = builder.objectRef<Detail>('ChannelDetail').implement({
  description: 'A channel configured in the manifest, and whether it can deliver questions.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The name agents pass as `channel`.' }),
    plugin: t.exposeString('plugin', {
      nullable: true,
      description: 'The plugin it was made from (`slack`, `webhook`, a package name or a path).',
    }),
    inbound: t.exposeBoolean('inbound', {
      description: 'Whether it takes replies at POST /api/interactions/channels/{name}.',
    }),
    defaultRecipient: t.exposeString('defaultRecipient', {
      nullable: true,
      description: 'Where a question without `recipient` goes.',
    }),
    ready: t.exposeBoolean('ready', { description: 'Whether it can deliver questions now.' }),
    missing: t.exposeStringList('missing', {
      description: 'What keeps it from being ready (settings to set); empty when ready.',
    }),
  }),
});

// Assembles the schema: every type and operation file registers itself with the builder.
import './scalars.ts';
import './types/enums.ts';
import './types/media-item.ts';
import './types/approval.ts';
import './types/question.ts';
import './types/ask-result.ts';
import './types/prepared-external.ts';
import './types/question-edge.ts';
import './types/page-info.ts';
import './types/question-connection.ts';
import './types/inbox-event.ts';
import './types/viewer.ts';
import './types/media-item-input.ts';
import './types/verifier-input.ts';
import './types/approval-inputs.ts';
import './types/ask-user-input.ts';
import './types/question-filter.ts';
import './types/audit.ts';
import './types/execution.ts';
import './types/presence.ts';
import './types/channel-links.ts';
import './types/step-up.ts';
import './operations/query.ts';
import './operations/mutation.ts';
import './operations/subscription.ts';
import './operations/presence.ts';
import './operations/channel-links.ts';
import { VERSION } from '../domain/version.ts';
import { builder } from './builder.ts';
import { GraphQLSchema } from './graphql-js.ts';

/** The schema's own description names the server's version (introspection shows it). */
export const SCHEMA_DESCRIPTION = `tai-interactions ${VERSION}: agents ask people questions and wait for typed answers.`;

export const schema = new GraphQLSchema({
  ...builder.toSchema().toConfig(),
  description: SCHEMA_DESCRIPTION,
});

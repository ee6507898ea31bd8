// The schema as committed in schema/schema.graphql: sorted, so the file diffs cleanly.
import { lexicographicSortSchema, printSchema } from './graphql-js.ts';
import { schema } from './schema.ts';

export const SCHEMA_FILE = 'schema/schema.graphql';

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

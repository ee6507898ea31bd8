// The committed schema/schema.graphql must be exactly what the code prints.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../src/graphql/print.ts';

describe('schema/schema.graphql', () => {
  it('matches the schema the code builds', () => {
    const committed = readFileSync(new URL(`../../${SCHEMA_FILE}`, import.meta.url), 'utf8');
    const printed = printedSchema();
    if (committed !== printed) {
      expect.fail(`${SCHEMA_FILE} differs from the code's schema: run \`npx tsx scripts/print-schema.ts\``);
    }
  });
});

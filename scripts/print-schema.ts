// Writes the printed GraphQL schema to schema/schema.graphql. Run: npx tsx scripts/print-schema.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printedSchema, SCHEMA_FILE } from '../src/graphql/print.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, SCHEMA_FILE);
writeFileSync(target, printedSchema());
console.log(`wrote ${path.relative(process.cwd(), target) || target}`);

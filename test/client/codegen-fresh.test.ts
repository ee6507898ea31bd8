// The committed src/client/generated is exactly what `npm run codegen` writes from schema/schema.graphql and
// schema/operations/*.graphql: the generator runs in memory with codegen.ts's own config, each
// file goes through the same finishing step as the written ones, and the result must match the
// files on disk (and no stale file may linger).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config, { finishGenerated, OUTPUT_DIR } from '../../codegen.ts';
import { REPO_ROOT } from '../support/processes.ts';

describe('generated GraphQL documents', () => {
  it('src/client/generated matches a fresh codegen run (run `npm run codegen` if this fails)', async () => {
    const outputs = (await generate({ ...config, cwd: REPO_ROOT, silent: true }, false)) as {
      filename: string;
      content: string;
    }[];
    expect(outputs.length).toBeGreaterThan(0);
    const fresh = new Map(
      outputs.map((o) => [path.relative(REPO_ROOT, path.resolve(REPO_ROOT, o.filename)), o.content]),
    );
    const onDisk = readdirSync(path.join(REPO_ROOT, OUTPUT_DIR)).map((f) => path.join(OUTPUT_DIR, f));
    expect(onDisk.sort()).toEqual([...fresh.keys()].sort());
    for (const [file, content] of fresh) {
      const committed = readFileSync(path.join(REPO_ROOT, file), 'utf8');
      expect(committed, `${file} is stale: run npm run codegen`).toBe(finishGenerated(file, content));
    }
  }, 60_000);
});

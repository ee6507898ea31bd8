// The layer table of docs/ARCHITECTURE.md is held by the linter (biome.json's noRestrictedImports
// overrides, one per layer folder): a leak fails `npm run lint`. Proved on a scratch tree that
// carries the repository's biome.json and a few one-line modules, each placed in a layer folder.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.ts';

const BIOME = path.join(REPO_ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

/** Each scratch module: where it sits, what it imports, and whether the layers allow it. */
const CASES = [
  { file: 'src/graphql/leak-page.ts', from: '../store/types.ts', refused: true },
  { file: 'src/graphql/types/leak-cursor.ts', from: '../../store/listing.ts', refused: true },
  { file: 'src/http/routes/leak.ts', from: '../../store/memory-store.ts', refused: true },
  { file: 'src/mcp/leak.ts', from: '../store/types.ts', refused: true },
  { file: 'src/engine/leak-plugin.ts', from: '../channels/channel-set.ts', refused: true },
  { file: 'src/engine/contract.ts', from: '../channels/types.ts', refused: false },
  { file: 'src/engine/store-ok.ts', from: '../store/types.ts', refused: false },
  { file: 'src/store/leak.ts', from: '../engine/types.ts', refused: true },
  { file: 'src/domain/leak.ts', from: '../store/types.ts', refused: true },
  { file: 'src/channels/leak.ts', from: '../engine/types.ts', refused: true },
  { file: 'src/client/leak.ts', from: '../domain/question.ts', refused: true },
  { file: 'src/client/codes.ts', from: '../domain/errors.ts', refused: false },
  { file: 'src/graphql/engine-ok.ts', from: '../engine/types.ts', refused: false },
  // The OpenTelemetry SDK's layer: the engine's port types, never the store; and nothing below
  // the composition root reaches into it (it is loaded only when tracing is configured).
  { file: 'src/tracing/leak.ts', from: '../store/types.ts', refused: true },
  { file: 'src/tracing/port-ok.ts', from: '../engine/outbox/trace-span.ts', refused: false },
  { file: 'src/engine/leak-tracing.ts', from: '../tracing/otel.ts', refused: true },
  { file: 'src/domain/leak-tracing.ts', from: '../tracing/options.ts', refused: true },
  // The composition root wires every layer.
  { file: 'src/app/wiring.ts', from: '../store/types.ts', refused: false },
  { file: 'src/app/tracing-ok.ts', from: '../tracing/otel.ts', refused: false },
] as const;

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

let scratch: string;
let diagnostics: Diagnostic[];

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'layers-lint-'));
  copyFileSync(path.join(REPO_ROOT, 'biome.json'), path.join(scratch, 'biome.json'));
  for (const c of CASES) {
    const file = path.join(scratch, c.file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `import type { X } from '${c.from}';\n\nexport type Y = X;\n`);
  }
  // biome exits non-zero when it finds errors; the JSON report is what the test reads.
  const run = await promisify(execFile)(process.execPath, [BIOME, 'lint', '--reporter=json', 'src'], {
    cwd: scratch,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  diagnostics = (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
}, 60_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the linter holds the layers', () => {
  it('refuses a transport→store import (the store’s page type, its cursor encoder)', () => {
    const graphql = diagnostics.filter((d) => d.location.path.startsWith('src/graphql/'));
    expect(graphql.map((d) => d.location.path).sort()).toEqual([
      'src/graphql/leak-page.ts',
      'src/graphql/types/leak-cursor.ts',
    ]);
    for (const d of graphql) {
      expect(d.category).toBe('lint/style/noRestrictedImports');
      expect(d.message).toContain('docs/ARCHITECTURE.md');
    }
  });

  it('refuses every leak across the table and allows what the table allows', () => {
    const flagged = diagnostics
      .filter((d) => d.category === 'lint/style/noRestrictedImports')
      .map((d) => d.location.path)
      .sort();
    const expected = CASES.filter((c) => c.refused)
      .map((c) => c.file)
      .sort();
    expect(flagged).toEqual(expected);
    // Nothing else was reported: the scratch modules are otherwise clean.
    expect(diagnostics.length).toBe(expected.length);
  });
});

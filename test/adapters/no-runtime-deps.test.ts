// The adapters use `openai`, `@openai/agents` and `ai` for their types only: a person who
// installs tai-interactions for its server (or its SDK) gets none of them, and importing
// tai-interactions/openai or /ai-sdk must not need them. Proved in a fresh Node process whose
// module resolution refuses those packages (a resolve hook registered before the import): the
// adapters load, through the package's own export names, and their factories work.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.ts';

const run = promisify(execFile);

/** Refuses every import of the frameworks' packages, naming what was asked for. */
const REFUSE = `export async function resolve(specifier, context, next) {
  if (/^(openai|ai|@openai\\/agents[^/]*|@ai-sdk\\/[^/]+)(\\/|$)/.test(specifier)) {
    throw new Error('refused at run time: ' + specifier);
  }
  return next(specifier, context);
}`;

const SCRIPT = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(REFUSE)}));
let refused = null;
try { await import('openai'); } catch (err) { refused = err.message; }
const openai = await import('tai-interactions/openai');
const aiSdk = await import('tai-interactions/ai-sdk');
const client = (await import('tai-interactions/client')).createInteractionsClient({ url: 'http://127.0.0.1:9' });
const made = [
  typeof openai.createResponsesApprovals(client).respond,
  typeof openai.createAgentsApprovals(client).answer,
  typeof aiSdk.createToolApprovals(client).respond,
];
process.stdout.write(JSON.stringify({ refused, openai: Object.keys(openai).sort(), aiSdk: Object.keys(aiSdk).sort(), made }));
`;

describe('the adapters need no framework package at run time', () => {
  it('load and build their helpers in a process that refuses openai, @openai/agents and ai', async () => {
    // The package resolves itself by name through its exports (the `tai-source` condition maps
    // them to src/ in the checkout, as lib/ in the published package).
    const { stdout } = await run(
      process.execPath,
      ['--conditions=tai-source', '--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      { cwd: REPO_ROOT },
    );
    const out = JSON.parse(stdout) as { refused: string; openai: string[]; aiSdk: string[]; made: string[] };
    expect(out.refused).toBe('refused at run time: openai');
    expect(out.openai).toEqual([
      'createAgentsApprovals',
      'createResponsesApprovals',
      'mcpApprovalResponseOf',
    ]);
    expect(out.aiSdk).toEqual(['createToolApprovals', 'toolApprovalResponseOf']);
    expect(out.made).toEqual(['function', 'function', 'function']);
  }, 60_000);

  it('are optional peers of the package, never its dependencies', () => {
    const pkg = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const name of ['openai', '@openai/agents', 'ai']) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.peerDependencies[name]).toBeDefined();
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });
});

// `tai-interactions hook codex` as Codex runs it (API.md §21): a real process, Codex's published
// PermissionRequest event on stdin (source in test/support/hook-payloads.ts), Codex's hook output
// on stdout, exit codes asserted: allow, deny with the note, nothing while undecided, and a deny
// (fail closed) when the server is down or refuses the key; a bad flag is a usage error (2).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { nextAsked } from '../mcp/mcp-client.ts';
import { freePort } from '../support/fixtures.ts';
import { codexPermissionRequest } from '../support/hook-payloads.ts';
import { REPO_ROOT } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

const BIN = path.join(REPO_ROOT, 'bin/tai-interactions.mjs');
const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The runner's environment without anything that would steer the CLI. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(TAI_|INTERACTIONS_)/.test(k)),
  );
  return { ...base, ...extra };
}

/** Runs the hook with `stdin`, as Codex does, until it exits. */
function hook(args: string[], stdin: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'hook', 'codex', ...args], {
      cwd: REPO_ROOT,
      env: cleanEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  url = await t.listen();
});
afterAll(() => t.close());

describe('tai-interactions hook codex', () => {
  const env = () => ({ TAI_URL: url, TAI_API_KEY: KEYS.agent });

  async function decided(command: string, answer: unknown) {
    const asked = nextAsked(t.server.engine);
    const run = hook(['--wait', '120'], JSON.stringify(codexPermissionRequest(command)), env());
    const id = await asked;
    await t.server.engine.answer(OPS, id, answer);
    return { run: await run, q: (await t.server.engine.get(OPS, id))! };
  }

  it("prints Codex's allow and exits 0 when a person approves", async () => {
    const { run, q } = await decided('cargo test', { decision: 'APPROVED' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    expect(q.action).toMatchObject({ name: 'codex.Bash', summary: '$ cargo test', editable: false });
  });

  it("prints Codex's deny with who rejected it and the note", async () => {
    const { run } = await decided('cargo publish', { decision: 'REJECTED', note: 'not from a laptop' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Rejected by ops: not from a laptop' },
      },
    });
  });

  it('prints nothing and exits 0 while nobody decided (Codex then asks as usual)', async () => {
    const asked = nextAsked(t.server.engine);
    const run = await hook(['--wait', '0'], JSON.stringify(codexPermissionRequest('make lint')), env());
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect((await t.server.engine.get(OPS, await asked))?.status).toBe('PENDING');
  });

  it('denies (fail closed) when the server cannot be reached', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const run = await hook([], JSON.stringify(codexPermissionRequest('rm -rf build')), {
      TAI_URL: down,
      TAI_API_KEY: KEYS.agent,
    });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.hookSpecificOutput.decision.behavior).toBe('deny');
    expect(out.hookSpecificOutput.decision.message).toContain('unreachable');
    expect(run.stderr).toContain('denied (fail closed)');
  });

  it('denies (fail closed) when the server refuses the key or the event, saying why', async () => {
    const badKey = await hook([], JSON.stringify(codexPermissionRequest('ls')), {
      TAI_URL: url,
      TAI_API_KEY: 'nope',
    });
    expect(badKey.code).toBe(0);
    expect(JSON.parse(badKey.stdout).hookSpecificOutput.decision).toMatchObject({ behavior: 'deny' });
    expect(badKey.stdout).toContain('UNAUTHENTICATED');
    expect(badKey.stdout).not.toContain('nope');
    const badEvent = await hook([], '{"hook_event_name":"Stop"}', env());
    expect(badEvent.code).toBe(0);
    expect(JSON.parse(badEvent.stdout).hookSpecificOutput.decision.message).toContain('BAD_USER_INPUT');
  });

  it('exits 2 on a usage error, printing nothing on stdout', async () => {
    const run = await hook(['--wait', '601'], JSON.stringify(codexPermissionRequest('ls')), env());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--wait must be a whole number of seconds from 0 to 600');
  });
});

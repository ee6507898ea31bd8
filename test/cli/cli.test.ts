// The `tai` CLI run as it is installed: `node bin/tai.mjs …` subprocesses against a listening
// server on Redis, with stdout, stderr and exit codes asserted.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionsClient, Question } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { freePort } from '../support/fixtures.ts';
import { REPO_ROOT } from '../support/processes.ts';
import { KEYS, PRINCIPALS, type TestServer } from '../support/server.ts';

const BIN = path.join(REPO_ROOT, 'bin/tai.mjs');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment without anything that would steer the CLI or a server. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(TAI_|INTERACTIONS_|PORT$|HOST$|ACCESS_CONTROL_ENABLE$)/.test(k),
    ),
  );
  return { ...base, ...extra };
}

function tai(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: REPO_ROOT, env: cleanEnv(env), timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Long-running children still alive; a failed test must not leave them behind. */
const running = new Set<ChildProcess>();

/** A long-running `tai` whose output is watched line by line. */
function follow(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout?.on('data', (d) => {
    stdout += d;
    for (const w of [...watchers]) w();
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves once stdout matches `pattern`. */
    until(pattern: RegExp): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const m = pattern.exec(stdout);
          if (m) {
            watchers.delete(check);
            resolve(m);
          }
        };
        watchers.add(check);
        void exited.then(() => {
          if (watchers.delete(check)) reject(new Error(`exited before ${pattern}: ${stdout}${stderr}`));
        });
        check();
      });
    },
  };
}

// Each case starts node + tsx a few times: give slow machines room.
describe('the tai CLI (subprocesses)', { timeout: 90_000 }, () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  const background = backgroundAsks();
  let ops: Record<string, string>;

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = { TAI_URL: t.url, TAI_API_KEY: KEYS.ops };
  });
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  it('--help prints the usage and exits 0', async () => {
    const r = await tai(['--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: tai [options] [command]');
    for (const c of ['interactions', 'channels', 'outbox', 'serve']) expect(r.stdout).toContain(c);
  });

  it('bad flags, a bad command or a bad value print a one-line usage hint and exit 2', async () => {
    const flag = await tai(['interactions', 'list', '--bogus'], ops);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "error: unknown option '--bogus'\nUsage: tai interactions list [options]  (more: tai interactions list --help)\n",
    );
    expect(flag.stdout).toBe('');

    const command = await tai(['interactions', 'frobnicate'], ops);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("error: unknown command 'frobnicate'");

    const value = await tai(['interactions', 'ask', 'Why?', '--schema', '{not json'], ops);
    expect(value.code).toBe(2);
    expect(value.stderr).toContain('--schema must be JSON');
    expect(value.stderr).toContain('Usage: tai interactions ask [options] <text>');
    expect(value.stderr).not.toContain('Options:');
  });

  it('list: a table of pending questions, or JSON', async () => {
    const server = await listening();
    const own = backgroundAsks();
    try {
      const a = clientAs(server.url, 'agent');
      const env = { TAI_URL: server.url, TAI_API_KEY: KEYS.ops };
      const deploy = await own.pending(a, { text: 'Deploy\nto production?', format: 'CONFIRM' });
      const pick = await own.pending(a, { text: 'Pick one', format: 'SELECT', options: ['a', 'b'] });
      const r = await tai(['interactions', 'list'], env);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const lines = r.stdout.split('\n');
      expect(lines[0]).toMatch(/^ID\s+STATUS\s+FORMAT\s+ASKED BY\s+CREATED\s+CLAIMED BY\s+TEXT$/);
      const deployLine = lines.find((l) => l.startsWith(deploy.id));
      expect(deployLine).toMatch(
        /^\S+\s+PENDING\s+CONFIRM\s+agent\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+Deploy to production\?$/,
      );
      expect(lines.some((l) => l.startsWith(pick.id) && l.includes('SELECT') && l.endsWith('Pick one'))).toBe(
        true,
      );
      expect(r.stdout).toContain('\n2 of 2 pending questions.\n');

      const asJson = await tai(['interactions', 'list', '--json', '--first', '1'], env);
      expect(asJson.code).toBe(0);
      const body = JSON.parse(asJson.stdout);
      expect(body.totalCount).toBe(2);
      expect(body.questions).toHaveLength(1);
      expect(body.pageInfo.hasNextPage).toBe(true);
      expect([deploy.id, pick.id]).toContain(body.questions[0].id);
    } finally {
      own.stop();
      await server.close();
    }
  });

  it('show: the question in detail, or JSON; an unknown id is NOT_FOUND, exit 1', async () => {
    const q = await background.pending(agent, {
      text: 'Which region?',
      format: 'SELECT',
      options: ['eu', 'us'],
      groupId: 'release-7',
    });
    const r = await tai(['interactions', 'show', q.id], ops);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`ID         ${q.id}\n`);
    expect(r.stdout).toContain('Status     PENDING\n');
    expect(r.stdout).toContain('Text       Which region?\n');
    expect(r.stdout).toContain('Options    eu, us\n');
    expect(r.stdout).toContain('Group      release-7\n');
    expect(r.stdout).not.toContain('Answer ');

    const asJson = await tai(['interactions', 'show', q.id, '--json'], ops);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ id: q.id, options: ['eu', 'us'], status: 'PENDING' });

    const missing = await tai(['interactions', 'show', 'no-such-id'], ops);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: question not found\n' });
  });

  it('answer --answer: the blocked asker wakes with it', async () => {
    let asked: (q: Question) => void = () => {};
    const question = new Promise<Question>((resolve) => {
      asked = resolve;
    });
    const answer = agent.askUser({ text: 'Ship it?', format: 'CONFIRM' }, { onAsked: asked });
    const { id } = await question;
    const r = await tai(['interactions', 'answer', id, '--answer', 'true'], ops);
    expect(r).toEqual({ code: 0, stdout: `Answered ${id}: true\n`, stderr: '' });
    expect(await answer).toBe(true);
  });

  it('stream follows the feed until interrupted: text, then JSON lines', async () => {
    const server = await listening();
    const own = backgroundAsks();
    try {
      const a = clientAs(server.url, 'agent');
      const env = { TAI_URL: server.url, TAI_API_KEY: KEYS.ops };
      const first = await own.pending(a, { text: 'Waiting already' });

      const text = follow(['interactions', 'stream'], env);
      await text.until(/SNAPSHOT\s+1 pending\n\s+PENDING\s+\S+\s+TEXT\s+agent\s+Waiting already\n/);
      const second = await own.pending(a, { text: 'Fresh one', format: 'CONFIRM' });
      await text.until(new RegExp(`ASKED\\s+${second.id}\\s+CONFIRM\\s+agent\\s+Fresh one\\n`));
      await clientAs(server.url, 'ops').answer(second.id, true);
      await text.until(new RegExp(`ANSWERED\\s+${second.id}\\s+CONFIRM\\s+agent\\s+Fresh one\\s+→ true\\n`));
      text.child.kill('SIGINT');
      expect(await text.exited).toEqual({ code: 0, signal: null });
      expect(text.stdout()).toContain(first.id);

      const lines = follow(['interactions', 'stream', '--json'], env);
      const snapshot = await lines.until(/^(\{.*\})\n/);
      expect(JSON.parse(snapshot[1]!)).toMatchObject({ type: 'SNAPSHOT', questions: [{ id: first.id }] });
      const third = await own.pending(a, { text: 'Third' });
      const asked = await lines.until(/\n(\{"type":"ASKED".*\})\n/);
      expect(JSON.parse(asked[1]!)).toMatchObject({
        type: 'ASKED',
        questions: [{ id: third.id, text: 'Third' }],
      });
      lines.child.kill('SIGINT');
      expect(await lines.exited).toEqual({ code: 0, signal: null });
    } finally {
      own.stop();
      await server.close();
    }
  });

  it('stream lists a backlog that arrives in parts as one SNAPSHOT, then follows changes', async () => {
    const server = await listening();
    const own = backgroundAsks();
    try {
      const a = clientAs(server.url, 'agent');
      // Ten questions of 1 MiB of media each: past the 4 MiB part, so the SNAPSHOT carries the
      // first read (eight) with `more` and the other two follow as backlog parts.
      const image = (i: number, k: number) => ({
        kind: 'IMAGE' as const,
        url: `data:image/png;base64,${String(i * 2 + k).padStart(8, 'B')}`.padEnd(524_288, 'A'),
      });
      const backlog: Question[] = [];
      for (let i = 0; i < 10; i++) {
        backlog.push(await own.pending(a, { text: `Backlog ${i}`, media: [image(i, 0), image(i, 1)] }));
      }
      const env = { TAI_URL: server.url, TAI_API_KEY: KEYS.ops };
      const text = follow(['interactions', 'stream'], env);
      const pendingLines = '(?:\\s+PENDING\\s+\\S+\\s+TEXT\\s+agent\\s+Backlog \\d\\n)';
      await text.until(new RegExp(`SNAPSHOT\\s+8 pending \\(more follow\\)\\n${pendingLines}{10}`));
      const live = await own.pending(a, { text: 'Live one' });
      await text.until(new RegExp(`ASKED\\s+${live.id}\\s+TEXT\\s+agent\\s+Live one\\n`));
      text.child.kill('SIGINT');
      expect(await text.exited).toEqual({ code: 0, signal: null });
      const out = text.stdout();
      // Every backlog question is listed once, and the only ASKED is the live one.
      const listed = [...out.matchAll(/Backlog (\d)/g)].map((m) => Number(m[1]));
      expect(listed.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(out.match(/ASKED/g)).toHaveLength(1);
      for (const q of backlog) expect(out).toContain(q.id);
    } finally {
      own.stop();
      await server.close();
    }
  });

  it('serve runs the server from the environment until SIGTERM', async () => {
    const port = await freePort();
    const server = follow(['serve', '--port', String(port)], {
      INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
      LOG_LEVEL: 'info',
    });
    try {
      await server.until(/tai-interactions is listening/);
      const r = await tai(['channels', 'list', '--json'], {
        TAI_URL: `http://127.0.0.1:${port}`,
        TAI_API_KEY: KEYS.ops,
      });
      expect(r).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

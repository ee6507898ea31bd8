// The README's five-minute start, run as written from the packed tarball in an empty folder:
// `npm i tai-interactions`, the README's own agent.mjs (taken from its code block, not a copy),
// `npx tai-interactions serve`, the printed inbox URL opened in Chromium, Approve clicked, and the
// agent prints the approved decision. Registered by tarball.test.ts, which packs the package and
// serves it from a loopback registry once for all its checks. Only the port differs from the
// README (a free one instead of 4000): `serve --port` and TAI_URL, which agent.mjs reads.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPath } from '../support/chromium.ts';
import { freePort } from '../support/fixtures.ts';
import { REPO } from './packed.ts';

const run = promisify(execFile);

/** The README's code block that starts with `// agent.mjs`, and the commands the section gives. */
export function readmeFiveMinuteStart(): { agent: string; section: string } {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const section = /^## Five-minute start[^\n]*\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "## Five-minute start" section');
  const agent = /```js\n(\/\/ agent\.mjs\n[\s\S]*?)```/.exec(section)?.[1];
  if (!agent) throw new Error('the five-minute start has no ```js block starting with // agent.mjs');
  return { agent, section };
}

export interface FiveMinuteContext {
  registryUrl(): string;
  tmp(): string;
  npmFlags: string[];
  cleanEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export function fiveMinuteStart(ctx: FiveMinuteContext): void {
  describe("the README's five-minute start, from the packed tarball in an empty folder", () => {
    it('installs, serves, and the agent gets the approval given in the inbox', async () => {
      const { agent, section } = readmeFiveMinuteStart();
      // The steps the README gives, in the words this test runs.
      expect(section).toContain('npm i tai-interactions');
      expect(section).toContain('npx tai-interactions serve');
      expect(section).toContain('node agent.mjs');
      expect(agent.trimEnd().split('\n').length).toBeLessThanOrEqual(12);

      const dir = path.join(ctx.tmp(), 'my-agent');
      mkdirSync(dir);
      await run('npm', ['i', 'tai-interactions', `--registry=${ctx.registryUrl()}`, ...ctx.npmFlags], {
        cwd: dir,
        env: ctx.cleanEnv(),
        maxBuffer: 16 * 1024 * 1024,
      });
      writeFileSync(path.join(dir, 'agent.mjs'), agent);

      const port = await freePort();
      const server = spawn('npx', ['tai-interactions', 'serve', '--port', String(port)], {
        cwd: dir,
        env: ctx.cleanEnv({ npm_config_offline: 'true' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const browser = await chromium.launch({
        executablePath: chromiumPath(),
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      let agentRun: ChildProcess | undefined;
      try {
        const printed = await outputUntil(server, /Inbox: +(\S+)\n[\s\S]*API key: +(\S+)\n/);
        const inbox = /Inbox: +(\S+)/.exec(printed)![1]!;
        const key = /API key: +(\S+)/.exec(printed)![1]!;
        expect(inbox).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#key=`));

        agentRun = spawn(process.execPath, ['agent.mjs'], {
          cwd: dir,
          env: ctx.cleanEnv({ TAI_API_KEY: key, TAI_URL: `http://127.0.0.1:${port}` }),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const agentOut = collect(agentRun);
        const exited = new Promise<number | null>((resolve) => agentRun!.once('exit', resolve));

        const page = await browser.newPage();
        await page.goto(inbox);
        const card = page.locator('article[data-question-id]', { hasText: 'restart' });
        await card.getByRole('button', { name: 'Approve', exact: true }).click();
        expect(await exited).toBe(0);
        expect(agentOut()).toContain('Approved');
      } finally {
        agentRun?.kill();
        await browser.close();
        if (server.pid) process.kill(-server.pid, 'SIGTERM');
      }
    }, 300_000);
  });
}

function collect(child: ChildProcess): () => string {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return () => out;
}

/** Resolves with the output so far once it matches `pattern`; rejects if the process exits first. */
export function outputUntil(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (pattern.test(out)) resolve(out);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the process exited (${code}): ${out.slice(0, 2000)}`)));
  });
}

// The quick start of docs/sdk-and-cli.md, step by step, against `npm start`'s program
// (src/app/main.ts, in-memory store, the one-off admin key it prints): the example agent asks and
// blocks, `tai interactions list` shows the question, `tai interactions answer` answers it,
// and the agent prints the answer and exits 0.
import { execFile, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, type ServerProcess, spawnServer } from '../support/processes.ts';

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(TAI_|INTERACTIONS_|PORT$|HOST$|ACCESS_CONTROL_ENABLE$)/.test(k),
    ),
  );
  return { ...base, ...extra };
}

function tai(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/tai-interactions.mjs', ...args],
      { cwd: REPO_ROOT, env: cleanEnv(env) },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

describe('quick start: an agent asks, the CLI answers', () => {
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    server = await spawnServer({});
    const out = await server.waitForOutput(/API key: (\S+)\n/);
    key = /API key: (\S+)\n/.exec(out)![1]!;
  }, 60_000);
  afterAll(async () => {
    await server.kill('SIGTERM');
  });

  it('examples/confirm-agent.ts blocks until `tai interactions answer` answers it', async () => {
    const env = { TAI_URL: server.url, TAI_API_KEY: key };
    const agent = spawn(process.execPath, ['--import', 'tsx', 'examples/confirm-agent.ts'], {
      cwd: REPO_ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (agent.exitCode === null) agent.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    agent.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => agent.on('exit', resolve));
    const id = await new Promise<string>((resolve, reject) => {
      agent.stdout.on('data', (d) => {
        stdout += d;
        const m =
          /Asked (\S+); waiting for an answer\. Answer it with:\n {2}tai-interactions interactions answer \1 --answer true\n/.exec(
            stdout,
          );
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`the agent exited early: ${stdout}${stderr}`)));
    });

    const list = await tai(['interactions', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`^${id}\\s+PENDING\\s+CONFIRM\\s+admin\\s+.+Deploy build 42 to production\\?$`, 'm'),
    );

    const answered = await tai(['interactions', 'answer', id, '--answer', 'true'], env);
    expect(answered).toEqual({ code: 0, stdout: `Answered ${id}: true\n`, stderr: '' });

    expect(await exited).toBe(0);
    expect(stdout).toContain('Answer: yes, deploying.\n');
    expect(stderr).toBe('');
  }, 90_000);

  it('on loopback with no INTERACTIONS_PUBLIC_BASE_URL, callback URLs use the server itself, and it says so', async () => {
    // Said in the start summary (in full with --verbose: test/cli/start-summary.test.ts).
    expect(server.stdout() + server.stderr()).toMatch(
      /"msg":"INTERACTIONS_PUBLIC_BASE_URL, [^"]* are not set: this run uses start-time defaults/,
    );
    const gql = async (query: string) => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as { data: { askUser: { question: { id: string }; callbackUrl: string } } };
    };
    const asked = await gql(
      'mutation { askUser(input: {text: "Sign", format: EXTERNAL, link: "https://sign.example/?cb={callback_url}"}, holdSeconds: 0) { question { id } callbackUrl } }',
    );
    const { callbackUrl } = asked.data.askUser;
    expect(callbackUrl).toMatch(new RegExp(`^${server.url}/api/interactions/callback/[A-Za-z0-9_-]{43}$`));
    const posted = await fetch(`${callbackUrl}?signed=true`, { method: 'POST' });
    expect(posted.status).toBe(200);
    const env = { TAI_URL: server.url, TAI_API_KEY: key };
    const shown = await tai(['interactions', 'show', asked.data.askUser.question.id, '--json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'ANSWERED', answer: { signed: 'true' } });
  }, 30_000);
});

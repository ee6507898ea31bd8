// The resume-webhook example, run for real: the run asks and holds nothing; a person answers
// through GraphQL; the server's signed webhook reaches the example's receiver, which verifies
// it and resumes the run from the question's metadata, then exits.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInteractionsClient } from '../../src/client/index.ts';
import { freePort } from '../support/fixtures.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { webhookSecret } from '../webhooks/receiver.ts';

const SECRET = webhookSecret();

describe('examples/resume-run.ts', () => {
  let t: TestServer;
  let receiverPort: number;
  beforeAll(async () => {
    receiverPort = await freePort();
    t = await startServer({
      store: 'redis',
      plugins: {
        webhookEndpoints: { runs: { url: `http://127.0.0.1:${receiverPort}/hooks`, secret: SECRET } },
      },
    });
    await t.listen();
  });
  afterAll(async () => {
    await t.close();
  });

  it('resumes the run when the person approves', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/resume-run.ts'], {
      env: {
        ...process.env,
        TAI_URL: t.url!,
        TAI_API_KEY: KEYS.agent,
        RUNS_WEBHOOK_SECRET: SECRET,
        DEMO_RECEIVER_PORT: String(receiverPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const asked = await new Promise<{ run: string; question: string }>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /run (\S+) asked question (\S+) and is waiting/.exec(out);
        if (m) resolve({ run: m[1]!, question: m[2]! });
      });
      child.on('exit', () => reject(new Error(`example exited early: ${out}${err}`)));
    });

    const q = await createInteractionsClient({ url: t.url!, apiKey: KEYS.agent }).question(asked.question);
    expect(q).toMatchObject({ status: 'PENDING', notify: 'runs', metadata: { runId: asked.run } });
    await createInteractionsClient({ url: t.url!, apiKey: KEYS.ops }).answer(asked.question, true);

    expect(await exited, out + err).toBe(0);
    expect(out).toContain(`run ${asked.run} resumed: deploying (question answered)`);
  }, 30_000);
});

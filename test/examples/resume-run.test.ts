// The resume-webhook example, run for real: the run asks and holds nothing; a person answers
// through GraphQL; the server's signed webhook reaches the example's receiver, which verifies
// it and resumes the run from the question's metadata, then exits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInteractionsClient } from '../../src/client/index.ts';
import { runExample } from '../support/example-run.ts';
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
    const run = runExample(
      'examples/resume-run.ts',
      {
        TAI_URL: t.url!,
        TAI_API_KEY: KEYS.agent,
        RUNS_WEBHOOK_SECRET: SECRET,
        DEMO_RECEIVER_PORT: String(receiverPort),
        TAI_ISSUER: t.config.publicBaseUrl!,
      },
      /run (\S+) asked question (\S+) and is waiting/,
    );
    const m = await run.printed;
    const asked = { run: m[1]!, question: m[2]! };

    const q = await createInteractionsClient({ url: t.url!, apiKey: KEYS.agent }).question(asked.question);
    expect(q).toMatchObject({ status: 'PENDING', notify: 'runs', metadata: { runId: asked.run } });
    await createInteractionsClient({ url: t.url!, apiKey: KEYS.ops }).answer(asked.question, true);

    expect(await run.exited, run.output()).toBe(0);
    expect(run.stdout()).toContain(`receipt verified: question ${asked.question} ANSWERED`);
    expect(run.stdout()).toContain(`run ${asked.run} resumed: deploying (question answered)`);
  }, 30_000);
});

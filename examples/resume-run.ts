// A worked resume webhook (API.md §12): an agent "run" asks a person for approval and then
// stops holding anything; when the person answers, the server POSTs a signed webhook to this
// script's receiver, which checks it, checks the decision receipt it carries against the
// server's published keys (API.md §16), and only then resumes the run from its `metadata`.
//
//   interactions.yaml:  webhooks: { runs: { url: http://127.0.0.1:4200/hooks, secretEnv: RUNS_WEBHOOK_SECRET } }
//   terminal 1:  RUNS_WEBHOOK_SECRET=whsec_… npm start
//   terminal 2:  RUNS_WEBHOOK_SECRET=whsec_… TAI_API_KEY=… npx tsx examples/resume-run.ts
//   then answer the question in the inbox (or `tai interactions answer <id> --answer yes`).
//   TAI_ISSUER: the server's INTERACTIONS_PUBLIC_BASE_URL when it differs from TAI_URL.
//
// A real deployment keeps runs in a database and the receiver in a serverless function; the
// shape is the same: ask with notify + metadata, persist the run, resume it from the webhook.
import { createServer } from 'node:http';
import { createInteractionsClient, verifyReceipt, verifyWebhook } from 'tai-interactions/client';

const SECRET = process.env.RUNS_WEBHOOK_SECRET;
const PORT = Number(process.env.DEMO_RECEIVER_PORT ?? 4200);
const SERVER = process.env.TAI_URL ?? 'http://127.0.0.1:4000';
const ISSUER = process.env.TAI_ISSUER ?? SERVER;
if (!SECRET) throw new Error('set RUNS_WEBHOOK_SECRET (the secret of the `runs` endpoint)');

interface Run {
  id: string;
  step: 'waiting-for-approval' | 'deploying' | 'stopped';
}

const runs = new Map<string, Run>();
/** webhook-ids already handled: a delivery may come more than once. */
const seen = new Set<string>();

/** Resumes the run the question belongs to; true once it has finished. */
function resume(runId: string, status: string, answer: unknown): boolean {
  const run = runs.get(runId);
  if (run?.step !== 'waiting-for-approval') return false;
  run.step = status === 'ANSWERED' && answer === true ? 'deploying' : 'stopped';
  console.log(`run ${run.id} resumed: ${run.step} (question ${status.toLowerCase()})`);
  return true;
}

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let event: ReturnType<typeof verifyWebhook>;
    try {
      event = verifyWebhook(req.headers, Buffer.concat(chunks), SECRET);
    } catch {
      res.writeHead(401).end();
      return;
    }
    const id = String(req.headers['webhook-id']);
    const first = !seen.has(id);
    seen.add(id);
    // Answer 2xx at once; a non-2xx would make the server try again later.
    res.writeHead(204).end();
    const { question } = event;
    const runId = typeof question.metadata?.runId === 'string' ? question.metadata.runId : null;
    if (!first || !runId) return;
    // Act only on a decision the server signed for this very question: the receipt is checked
    // with the published keys, so a forged or replayed event for another question stops here.
    verifyReceipt(event.receipt ?? '', {
      jwksUrl: new URL('/.well-known/jwks.json', SERVER),
      issuer: ISSUER,
      questionId: question.id,
    }).then(
      (receipt) => {
        console.log(`receipt verified: question ${receipt.sub} ${receipt.outcome.status}`);
        if (resume(runId, question.status, question.answer)) receiver.close();
      },
      (err: Error) => console.log(`receipt refused (${err.message}); run ${runId} not resumed`),
    );
  });
});

receiver.listen(PORT, '127.0.0.1', async () => {
  const client = createInteractionsClient({ url: SERVER, apiKey: process.env.TAI_API_KEY });
  const run: Run = { id: `run-${Date.now().toString(36)}`, step: 'waiting-for-approval' };
  runs.set(run.id, run);
  // Returns at once: nothing waits on the answer but the receiver above.
  const { question } = await client.ask({
    text: `Deploy ${run.id} to production?`,
    format: 'CONFIRM',
    notify: 'runs',
    metadata: { runId: run.id },
  });
  console.log(`run ${run.id} asked question ${question.id} and is waiting for the webhook`);
});

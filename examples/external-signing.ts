// A worked EXTERNAL question: a person "signs" on an outside page and the provider posts a
// signed result to the question's single-use callback URL; this script, the asker, blocks
// until then and prints the verified payload.
//
//   terminal 1:  DEMO_SIGNING_SECRET=demo-secret INTERACTIONS_VERIFIER_SECRETS=DEMO_SIGNING_SECRET \
//                INTERACTIONS_PUBLIC_BASE_URL=http://127.0.0.1:4000 ACCESS_CONTROL_ENABLE=false npm start
//   terminal 2:  DEMO_SIGNING_SECRET=demo-secret npx tsx examples/external-signing.ts
//   then open the printed link and press "Sign".
//
// The provider here is a stand-in for DocuSign, Stripe and the like: it serves the signing
// page and, when the person signs, POSTs {"signed": true, ...} with an HMAC-SHA256 of the
// body in X-Signature-256. The server checks that signature with the hmac-sha256 verifier
// before it records anything.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';

const API = process.env.TAI_URL ?? 'http://127.0.0.1:4000';
const KEY = process.env.TAI_API_KEY;
const SECRET = process.env.DEMO_SIGNING_SECRET;
const PROVIDER_PORT = Number(process.env.DEMO_PROVIDER_PORT ?? 4100);
if (!SECRET) throw new Error('set DEMO_SIGNING_SECRET (the same value the server has)');

async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${API}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as {
    data?: T;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  if (body.errors?.length) throw new Error(`${body.errors[0]!.extensions?.code}: ${body.errors[0]!.message}`);
  return body.data as T;
}

/** The outside provider: a signing page, and a signed POST to the callback when signed. */
function startProvider(): Promise<() => void> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${PROVIDER_PORT}`);
    const callback = url.searchParams.get('callback') ?? '';
    if (req.method === 'GET' && url.pathname === '/sign') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><title>Demo signing</title><h1>Sign the contract</h1>' +
          '<form method="post"><label>Your name <input name="name" required></label> ' +
          '<button type="submit">Sign</button></form>',
      );
      return;
    }
    if (req.method === 'POST' && url.pathname === '/sign') {
      let form = '';
      for await (const chunk of req) form += chunk;
      const name = new URLSearchParams(form).get('name') ?? 'someone';
      const body = JSON.stringify({ signed: true, signer: name, signedAt: new Date().toISOString() });
      const signature = `sha256=${createHmac('sha256', SECRET!).update(body).digest('hex')}`;
      const delivered = await fetch(callback, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-256': signature },
        body,
      });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Signed</title><p>Signed. The callback answered ${delivered.status}.</p>`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(PROVIDER_PORT, '127.0.0.1', () => resolve(() => server.close())),
  );
}

interface AskResult {
  status: string;
  answer: unknown;
  callbackUrl: string | null;
  question: { id: string };
}

async function main(): Promise<void> {
  const stopProvider = await startProvider();
  const asked = await graphql<{ askUser: AskResult }>(
    `mutation($input: AskUserInput!) {
      askUser(input: $input, holdSeconds: 0) { status answer callbackUrl question { id } }
    }`,
    {
      input: {
        text: 'Please sign the contract',
        format: 'EXTERNAL',
        link: `http://127.0.0.1:${PROVIDER_PORT}/sign?callback={callback_url}`,
        verifier: { name: 'hmac-sha256', config: { secretEnv: 'DEMO_SIGNING_SECRET' } },
        schema: { type: 'object', properties: { signed: { const: true } }, required: ['signed'] },
        timeoutSeconds: 600,
      },
    },
  );
  // A verifier-bound question never shows its link, so the asker hands it to the person.
  const link = `http://127.0.0.1:${PROVIDER_PORT}/sign?callback=${asked.askUser.callbackUrl}`;
  console.log(`Open this link and sign: ${link}`);

  let result = asked.askUser;
  while (result.status === 'PENDING') {
    const next = await graphql<{ awaitAnswer: AskResult }>(
      `query($id: ID!) { awaitAnswer(id: $id, holdSeconds: 50) { status answer callbackUrl question { id } } }`,
      { id: result.question.id },
    );
    result = next.awaitAnswer;
  }
  console.log(`Question ${result.status.toLowerCase()}: ${JSON.stringify(result.answer)}`);
  stopProvider();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

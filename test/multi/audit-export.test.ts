// API.md §17 end to end across instances: two servers on one Redis (one prefix, one receipt key)
// ask and resolve 1,000 questions at once, each resolving questions the other asked; `tai audit
// export` from one of them gives a file `tai audit verify` accepts: 2,000 entries in one chain,
// a receipt for every resolution, the signed head last.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReceiptKey } from '../../src/proof/receipt-keys.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { auth, KEYS, startServer, type TestServer, type Who } from '../support/server.ts';

const QUESTIONS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'tai-audit-multi-'));

describe('an audit export of two instances', () => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const keys = join(dir, 'keys.json');
    writeFileSync(keys, JSON.stringify({ keys: [await generateReceiptKey()] }));
    const prefix = uniquePrefix();
    const env = {
      INTERACTIONS_RECEIPT_KEYS_FILE: keys,
      INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: String(QUESTIONS),
    };
    for (let i = 0; i < 2; i++) servers.push(await startServer({ store: 'redis', prefix, env }));
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const gql = async (t: TestServer, who: Who, query: string, variables: Record<string, unknown>) => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth(who), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    const body = r.json() as { data?: { askUser?: { question: { id: string } } }; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    return body.data!;
  };

  it('1,000 questions on two instances verify as one gap-free chain', async () => {
    const ask =
      'mutation($t: String!) { askUser(input: {text: $t, format: CONFIRM}, holdSeconds: 0) { question { id } } }';
    const answer = 'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }';
    const cancel = 'mutation($id: ID!) { cancelQuestion(id: $id) { status } }';
    const one = async (i: number) => {
      const [a, b] = i % 2 === 0 ? [servers[0]!, servers[1]!] : [servers[1]!, servers[0]!];
      const id = (await gql(a, 'agent', ask, { t: `q${i}` })).askUser!.question.id;
      if (i % 4 === 0) await gql(b, 'agent', cancel, { id });
      else await gql(b, 'ops', answer, { id, a: i % 4 === 1 });
    };
    // Fifty at a time on both instances at once.
    for (let i = 0; i < QUESTIONS; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, k) => one(i + k)));

    const url = await servers[1]!.listen();
    const out = await runCliInProcess(['audit', 'export'], {
      env: { TAI_URL: url, TAI_API_KEY: KEYS.admin },
    });
    expect(out.stderr).toBe('');
    const file = join(dir, 'audit.jsonl');
    writeFileSync(file, out.stdout);
    const jwks = join(dir, 'jwks.json');
    writeFileSync(
      jwks,
      (await servers[0]!.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body,
    );
    const r = await runCliInProcess(['audit', 'verify', file, '--jwks', jwks, '--json'], { env: {} });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { count: number; receipts: number; head: { seq: number } };
    expect(summary).toMatchObject({
      count: QUESTIONS * 2,
      receipts: QUESTIONS,
      head: { seq: QUESTIONS * 2 },
    });
  });
});

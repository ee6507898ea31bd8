// `verifyAuditExport` and `tai audit verify` (API.md §17) name the real reason of each kind of
// tampering with a real server's signed export: an altered entry, an entry rewritten (hashed
// again) in the middle, the chain rewritten under the old head, swapped entries, a missing
// entry, a cut after seq N, an extension past the head, a bad head signature, a head line that
// differs from what was signed, a missing head. Every reason is its own message.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditVerificationError, verifyAuditExport } from '../../src/client/index.ts';
import { type AuditEntry, auditHashOf } from '../../src/domain/audit.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'tai-audit-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The entry hashed again after a change, so its own hash holds. */
function rehashed(e: AuditEntry): AuditEntry {
  const { hash: _old, ...body } = e;
  return { ...body, hash: auditHashOf(body) };
}

describe('audit verify names the real reason', () => {
  let t: TestServer;
  let lines: string[];
  let jwks: { keys: object[] };
  /** A receipt: signed by the same key, but not an export's head. */
  let receipt: string;

  const gql = async (who: 'agent' | 'ops', query: string, variables: Record<string, unknown>) => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth(who), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    const body = r.json() as {
      data: Record<string, { id?: string; receipt?: string; question?: { id: string } }>;
    };
    return body.data;
  };

  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
    // Ten entries: five ASKED, three ANSWERED, two CANCELLED.
    for (let i = 0; i < 5; i++) {
      const d = await gql(
        'agent',
        'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }',
        {
          i: { text: `Question ${i}?`, format: 'CONFIRM' },
        },
      );
      const id = d.askUser!.question!.id;
      if (i < 3) {
        const answered = await gql(
          'ops',
          'mutation($id: ID!) { answer(id: $id, answer: true) { receipt } }',
          {
            id,
          },
        );
        receipt = answered.answer!.receipt!;
      } else await gql('agent', 'mutation($id: ID!) { cancelQuestion(id: $id) { id } }', { id });
    }
    const r = await t.server.inject({
      method: 'GET',
      url: '/api/interactions/audit',
      headers: auth('admin'),
    });
    expect(r.statusCode).toBe(200);
    lines = r.body.trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => t.close());

  const entry = (seq: number): AuditEntry => JSON.parse(lines[seq - 1]!) as AuditEntry;
  const head = () => lines[10]!;
  const reasonOf = async (file: string[]): Promise<string> => {
    try {
      await verifyAuditExport(file, { jwks: jwks as never });
    } catch (err) {
      expect(err).toBeInstanceOf(AuditVerificationError);
      return (err as Error).message;
    }
    return 'valid';
  };

  it('accepts the export as it came', async () => {
    expect(await reasonOf(lines)).toBe('valid');
  });

  it('gives each tampering its own reason', async () => {
    const withEntries = (...entries: AuditEntry[]) => [...entries.map((e) => JSON.stringify(e)), head()];
    const all = Array.from({ length: 10 }, (_, i) => entry(i + 1));

    // Seq 5 changed and hashed again; seq 6 still names its old hash.
    const rewrittenOne = all.map((e) => (e.seq === 5 ? rehashed({ ...e, actor: 'mallory' }) : e));
    // Seq 5 changed and every hash after it recomputed: consistent, but not what was signed.
    const rewrittenChain: AuditEntry[] = [];
    for (const e of all) {
      const prev = rewrittenChain.at(-1)?.hash ?? e.prev;
      rewrittenChain.push(
        e.seq < 5 ? e : rehashed({ ...e, prev, ...(e.seq === 5 ? { actor: 'mallory' } : {}) }),
      );
    }
    const swapped = [...all];
    [swapped[5], swapped[6]] = [swapped[6]!, swapped[5]!];
    const extra = rehashed({ ...entry(10), seq: 11, prev: entry(10).hash });
    const signature = JSON.parse(head()).signature as string;
    const [h64, p64, s64] = signature.split('.');
    const badSignature = JSON.stringify({
      ...JSON.parse(head()),
      signature: `${h64}.${p64}.${s64!.startsWith('A') ? 'B' : 'A'}${s64!.slice(1)}`,
    });

    const cases: Array<[string, string[], RegExp]> = [
      [
        'altered',
        lines.map((l, i) => (i === 4 ? l.replace('"ASKED"', '"CANCELLED"') : l)),
        /^line 5 \(entry seq 5\): its hash does not match its content \(altered\)$/,
      ],
      [
        'rewritten entry',
        withEntries(...rewrittenOne),
        /^line 5 \(entry seq 5\): rewritten: its hash is not the prev that seq 6 \(line 6\) records for it$/,
      ],
      [
        'rewritten chain under the old head',
        withEntries(...rewrittenChain),
        /^line 10 \(entry seq 10\): rewritten: its hash is not the one the signed head names for seq 10 /,
      ],
      [
        'swapped',
        withEntries(...swapped),
        /^line 6 \(entry seq 7\): entries out of order: seq 6 comes later, on line 7$/,
      ],
      [
        'missing',
        withEntries(...all.filter((e) => e.seq !== 5)),
        /^line 5 \(entry seq 6\): the chain breaks here: entry 5 is missing$/,
      ],
      [
        'cut',
        withEntries(...all.slice(0, 7)),
        /^the export was cut after seq 7 \(line 7\): the signed head names seq 10 and 10 entries, the file has 7$/,
      ],
      [
        'extended',
        withEntries(...all, extra),
        /^the export was extended: the signed head ends at seq 10, the file goes on to seq 11 \(line 11\)$/,
      ],
      [
        'bad signature',
        [...lines.slice(0, 10), badSignature],
        /^line 11: the signed head does not verify with the key set/,
      ],
      [
        'head line edited',
        [...lines.slice(0, 10), JSON.stringify({ ...JSON.parse(head()), count: 9 })],
        /^line 11: the head line differs from what was signed$/,
      ],
      [
        'a receipt as the head signature',
        [...lines.slice(0, 10), JSON.stringify({ ...JSON.parse(head()), signature: receipt })],
        /^line 11: the head's signature signs something else than an audit export/,
      ],
      ['no head', lines.slice(0, 10), /^the export ends without its signed head \(cut short\)$/],
    ];
    const seen = new Set<string>();
    for (const [name, file, reason] of cases) {
      const message = await reasonOf(file);
      expect(message, name).toMatch(reason);
      expect(message, name).not.toMatch(/cut or extended/);
      seen.add(message.replace(/\d+/g, 'N'));
    }
    expect(seen.size).toBe(cases.length);
  });

  it('tai audit verify prints the reason and exits 1', async () => {
    const jwksPath = join(dir, 'jwks.json');
    writeFileSync(jwksPath, JSON.stringify(jwks));
    const swapped = [...lines];
    [swapped[5], swapped[6]] = [swapped[6]!, swapped[5]!];
    const file = join(dir, 'swapped.jsonl');
    writeFileSync(file, `${swapped.join('\n')}\n`);
    const r = await runCliInProcess(['audit', 'verify', file, '--jwks', jwksPath], { env: {} });
    expect(r).toMatchObject({
      code: 1,
      stderr:
        'error: AUDIT_BROKEN: line 6 (entry seq 7): entries out of order: seq 6 comes later, on line 7\n',
    });
  });
});

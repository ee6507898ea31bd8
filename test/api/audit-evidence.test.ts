// The evidence bundle (API.md §24) over its door and the CLI, on both stores: only admins and
// auditors get it (401 without a key, 403 for everyone else); `tai audit evidence` saves it and
// `tai audit verify --jwks` finds it whole; one altered file, a rewritten manifest, a file added
// or a key set the server never used are each named.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { generateReceiptKey, publicJwkOf } from '../../src/proof/receipt-keys.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { auth, PRINCIPALS, startServer, type TestServer } from '../support/server.ts';
import { unzip } from '../support/zip.ts';

const AUDITOR_KEY = 'test-auditor-key-00000007';
const RESTRICTED_AUDITOR_KEY = 'test-auditor-key-00000008';
const keysEnv = JSON.stringify([
  ...PRINCIPALS,
  { id: 'auditor', key: AUDITOR_KEY, roles: ['auditor'] },
  { id: 'nosy', key: RESTRICTED_AUDITOR_KEY, roles: ['auditor'], restricted: true },
]);
const dir = mkdtempSync(join(tmpdir(), 'tai-evidence-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ASK = `mutation($text: String!) { askUser(input: {text: $text, format: CONFIRM}, holdSeconds: 0) { question { id } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }`;
const CANCEL = `mutation($id: ID!) { cancelQuestion(id: $id) { status } }`;

/** Writes a zip of these files (the way a forger would repack a bundle). */
async function rezip(path: string, files: Map<string, Buffer>): Promise<string> {
  const zip = new ZipFile();
  for (const [name, bytes] of files) zip.addBuffer(bytes, name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

for (const store of ['memory', 'redis'] as const) {
  describe(`the evidence bundle (${store})`, () => {
    let t: TestServer;
    const gql = async (who: 'agent' | 'ops', query: string, variables: Record<string, unknown>) => {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      return r.json() as { data: { askUser: { question: { id: string } } } };
    };

    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_API_KEYS: keysEnv } });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push((await gql('agent', ASK, { text: `Deploy ${i}?` })).data.askUser.question.id);
      await gql('ops', ANSWER, { id: ids[0], a: true });
      await gql('ops', ANSWER, { id: ids[1], a: false });
      await gql('agent', CANCEL, { id: ids[2] });
    });
    afterAll(() => t.close());

    it('is for admins and auditors: 401 without a key, 403 for operators, agents and restricted keys', async () => {
      const get = (headers: Record<string, string> = {}, qs = '') =>
        t.server.inject({ method: 'GET', url: `/api/interactions/audit/evidence${qs}`, headers });
      expect((await get()).statusCode).toBe(401);
      for (const h of [auth('ops'), auth('agent'), { authorization: `Bearer ${RESTRICTED_AUDITOR_KEY}` }]) {
        const r = await get(h);
        expect(r.statusCode).toBe(403);
        expect(r.json()).toMatchObject({ code: 'FORBIDDEN' });
      }
      const bad = await get({ authorization: `Bearer ${AUDITOR_KEY}` }, '?since=yesterday');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'since' });
      const ok = await get(auth('admin'));
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toBe('application/zip');
      expect(ok.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    });

    it('tai audit evidence saves it; verify finds it whole, and names an altered file, a rewritten manifest, an added file and a foreign key set', async () => {
      const url = await t.listen();
      const bundle = join(dir, `${store}-evidence.zip`);
      const saved = await runCliInProcess(['audit', 'evidence', '--output', bundle], {
        env: { TAI_URL: url, TAI_API_KEY: AUDITOR_KEY },
      });
      expect(saved).toMatchObject({ code: 0, stderr: `saved ${bundle}\n` });
      const files = await unzip(bundle);
      expect([...files.keys()]).toEqual([
        'audit.jsonl',
        'receipts.jsonl',
        'jwks.json',
        'policies.json',
        'controls.json',
        'manifest.json',
        'manifest.jws',
      ]);
      const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
      expect(manifest).toMatchObject({
        typ: 'evidence-manifest',
        scope: { since: null, until: null },
        auditHead: { seq: 7 },
      });
      expect(manifest.files.map((f: { name: string }) => f.name)).toEqual([...files.keys()].slice(0, 5));
      expect(manifest.files[0].digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      const receipts = files.get('receipts.jsonl')!.toString('utf8').trimEnd().split('\n');
      expect(receipts.map((l) => Object.keys(JSON.parse(l)))).toEqual([
        ['questionId', 'jws'],
        ['questionId', 'jws'],
        ['questionId', 'jws'],
      ]);
      const controls = JSON.parse(files.get('controls.json')!.toString('utf8'));
      expect(controls.records.find((r: { kind: string }) => r.kind === 'audit:ANSWERED').supports).toEqual([
        'EU-AI-Act-Art-12',
        'EU-AI-Act-Art-26(6)',
        'EU-AI-Act-Art-14(4)',
        'SOC2-CC8',
      ]);
      // The private key never leaves the server: the bundle's key set has public parts only.
      expect(files.get('jwks.json')!.toString('utf8')).not.toMatch(/"d"/);

      const jwksPath = join(dir, `${store}-jwks.json`);
      writeFileSync(jwksPath, (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body);
      const verify = (file: string, keys = jwksPath) =>
        runCliInProcess(['audit', 'verify', file, '--jwks', keys], { env: {} });
      const ok = await verify(bundle);
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toMatch(
        /^valid evidence bundle: 5 files, 7 entries up to seq 7 \(sha256:[0-9a-f]{64}\), 3 receipts, 0 pruned\n$/,
      );

      // Online: the key set fetched from the server's /.well-known/jwks.json.
      const online = await runCliInProcess(['audit', 'verify', bundle], { env: { TAI_URL: url } });
      expect(online).toMatchObject({ code: 0, stderr: '' });
      expect(online.stdout).toMatch(/^valid evidence bundle: 5 files, 7 entries/);

      const altered = new Map(files);
      altered.set(
        'policies.json',
        Buffer.from(files.get('policies.json')!.toString('utf8').replace('[', '[ '), 'utf8'),
      );
      const r1 = await verify(await rezip(join(dir, `${store}-altered.zip`), altered));
      expect(r1.code).toBe(1);
      expect(r1.stderr).toMatch(
        /policies\.json: its digest is not the one the signed manifest lists \(altered\)/,
      );

      // A forger who edits a file and the manifest's digest with it: the signature gives it away.
      const audit = files.get('audit.jsonl')!.toString('utf8');
      const forged = new Map(files);
      forged.set('audit.jsonl', Buffer.from(audit.replace('"ANSWERED"', '"CANCELLED"'), 'utf8'));
      forged.set(
        'manifest.json',
        Buffer.from(
          files.get('manifest.json')!.toString('utf8').replace(manifest.files[0].digest, 'sha256:0'),
          'utf8',
        ),
      );
      const r2 = await verify(await rezip(join(dir, `${store}-forged.zip`), forged));
      expect(r2.code).toBe(1);
      expect(r2.stderr).toMatch(/manifest\.json is not the manifest manifest\.jws signed \(altered\)/);

      const added = new Map(files);
      added.set('notes.txt', Buffer.from('trust me', 'utf8'));
      const r3 = await verify(await rezip(join(dir, `${store}-added.zip`), added));
      expect(r3.code).toBe(1);
      expect(r3.stderr).toMatch(/notes\.txt is in the bundle but not in the signed manifest \(added\)/);

      const otherKeys = join(dir, `${store}-other-jwks.json`);
      writeFileSync(otherKeys, JSON.stringify({ keys: [publicJwkOf(await generateReceiptKey())] }));
      const r4 = await verify(bundle, otherKeys);
      expect(r4.code).toBe(1);
      expect(r4.stderr).toMatch(/manifest\.jws does not verify with the key set/);
      // Unchanged on disk: the good bundle still verifies.
      expect(readFileSync(bundle).subarray(0, 2).toString('latin1')).toBe('PK');
    });
  });
}

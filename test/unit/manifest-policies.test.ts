// The manifest's `policies:` (API.md §20): rules checked and compiled at start, a rule that does
// not compile refused with its id and key path, versions that follow the rule's JCS.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifest, ManifestError } from '../../src/app/manifest.ts';
import { jcsDigest } from '../../src/domain/digest.ts';
import { policyRuleJson } from '../../src/domain/policy/rule.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'manifest-pol-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function load(policies: unknown[]) {
  const file = path.join(dir, `m${n++}.json`);
  writeFileSync(
    file,
    JSON.stringify({ escalationPolicies: { nag: [{ afterSeconds: 60, action: 'REMIND' }] }, policies }),
  );
  return loadManifest({ path: file, cwd: dir, env: {} });
}

async function refusal(policies: unknown[]): Promise<string> {
  const err = await load(policies).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManifestError);
  return (err as Error).message;
}

const refunds = {
  id: 'small-refunds',
  description: 'refunds under 50 EUR by the support agent',
  effect: 'ALLOW',
  match: {
    action: 'payments.refund',
    askers: ['support-agent'],
    arguments: { type: 'object', properties: { amount: { type: 'number', exclusiveMaximum: 50 } } },
  },
};

describe('manifest policies', () => {
  it('reads the rules, compiled, each versioned by the sha256 of its JCS', async () => {
    const m = await load([
      refunds,
      {
        id: 'deploys',
        effect: 'ASK',
        match: { action: 'deploy.production' },
        ask: { quorum: { approvals: 2 }, escalationPolicy: 'nag' },
      },
    ]);
    expect(m.policies.map((r) => [r.id, r.source, r.mode])).toEqual([
      ['small-refunds', 'manifest', 'ENFORCE'],
      ['deploys', 'manifest', 'ENFORCE'],
    ]);
    const [first] = m.policies;
    expect(first?.version).toBe(jcsDigest(policyRuleJson(first!)));
    expect(first?.compiled?.validate({ amount: 49.99 })).toBe(true);
    expect(first?.compiled?.validate({ amount: 50 })).toBe(false);
  });

  it('has no rules without a manifest or without the key', async () => {
    expect((await load([])).policies).toEqual([]);
    expect((await loadManifest({ cwd: dir, env: {} })).policies).toEqual([]);
  });

  it('refuses a rule whose schema does not compile, naming the rule', async () => {
    const message = await refusal([
      refunds,
      { ...refunds, id: 'broken', match: { action: 'x', arguments: { type: 'nope' } } },
    ]);
    expect(message).toMatch(/: policies\[1\]\.match\.arguments: policy broken: /);
  });

  it('refuses a repeated id, an unknown escalation policy and an unknown channel', async () => {
    expect(await refusal([refunds, refunds])).toMatch(
      /policies\[1\]\.id: policy small-refunds: the id is used twice$/,
    );
    expect(
      await refusal([{ id: 'a', effect: 'ASK', match: { action: 'x' }, ask: { escalationPolicy: 'other' } }]),
    ).toMatch(/policies\[0\]\.ask\.escalationPolicy: policy a: unknown escalation policy/);
    expect(
      await refusal([{ id: 'a', effect: 'ASK', match: { action: 'x' }, ask: { channel: 'slack' } }]),
    ).toMatch(/policies\[0\]\.ask\.channel: policy a: unknown channel/);
    expect(await refusal([{ id: 'Bad Id', effect: 'ALLOW', match: { action: 'x' } }])).toMatch(
      /policies\[0\]\.id: id must be/,
    );
  });
});

// The manifest's `escalationPolicies` (API.md §18): each policy checked as an ask's
// `escalation` is, against the channels the same manifest declares; limits at and one past.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifest, ManifestError } from '../../src/app/manifest.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'manifest-esc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ENV = { SLACK_BOT_TOKEN: 'xoxb-secret', SLACK_SIGNING_SECRET: 'sign-secret' };
let n = 0;

function load(policies: string) {
  const file = path.join(dir, `m${n++}.yaml`);
  writeFileSync(
    file,
    'channels:\n  ops:\n    plugin: slack\n    config: { botTokenEnv: SLACK_BOT_TOKEN, signingSecretEnv: SLACK_SIGNING_SECRET }\n' +
      `escalationPolicies:\n${policies}`,
  );
  return loadManifest({ path: file, cwd: dir, env: ENV });
}

async function refusal(policies: string): Promise<string> {
  const err = await load(policies).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManifestError);
  return (err as Error).message;
}

const reminds = (count: number) =>
  `  nag:\n${Array.from({ length: count }, (_, i) => `    - { afterSeconds: ${10 + i}, action: REMIND }\n`).join('')}`;

describe('manifest escalationPolicies', () => {
  it('reads a policy with a REROUTE to a declared channel', async () => {
    const m = await load(
      '  standard:\n    - { afterSeconds: 600, action: REMIND }\n    - { afterSeconds: 1200, action: REROUTE, channel: ops, recipient: C0ONCALL1 }\n',
    );
    expect(m.escalationPolicies).toEqual({
      standard: [
        { afterSeconds: 600, action: 'REMIND', channel: null, recipient: null },
        { afterSeconds: 1200, action: 'REROUTE', channel: 'ops', recipient: 'C0ONCALL1' },
      ],
    });
  });

  it('takes 10 steps and refuses 11', async () => {
    expect((await load(reminds(10))).escalationPolicies.nag).toHaveLength(10);
    expect(await refusal(reminds(11))).toMatch(
      /escalationPolicies\.nag: escalation must have at most 10 steps$/,
    );
  });

  it('refuses afterSeconds 9, unordered steps and a channel the manifest does not declare', async () => {
    expect(await refusal('  p:\n    - { afterSeconds: 9, action: REMIND }\n')).toMatch(
      /escalationPolicies\.p\[0\]\.afterSeconds: afterSeconds must be at least 10$/,
    );
    expect(
      await refusal(
        '  p:\n    - { afterSeconds: 20, action: REMIND }\n    - { afterSeconds: 20, action: REMIND }\n',
      ),
    ).toMatch(/escalationPolicies\.p\[1\]\.afterSeconds: afterSeconds must be strictly increasing/);
    expect(await refusal('  p:\n    - { afterSeconds: 20, action: REROUTE, channel: pager }\n')).toMatch(
      /escalationPolicies\.p\[0\]\.channel: unknown channel \(configured: "ops"\)$/,
    );
  });
});

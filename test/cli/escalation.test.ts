// `tai interactions ask --escalate <step> … | --escalation-policy <name>` (API.md §18) against a
// real server: the question is asked with its ladder, a step that does not parse is a usage
// error (exit 2), and the server's refusals name the field at fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listening } from '../client/support.ts';
import { manifestOf } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const HOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const unfired = { firedAt: null, outcome: null };

describe('tai interactions ask: escalation', () => {
  let t: TestServer & { url: string };
  let env: Record<string, string>;

  beforeAll(async () => {
    const manifest = await manifestOf(
      [
        'channels:',
        '  pager:',
        '    plugin: webhook',
        '    config:',
        '      url: http://127.0.0.1:9/hook',
        '      secretEnv: HOOK_SECRET',
        'escalationPolicies:',
        '  nudge:',
        '    - {afterSeconds: 600, action: REMIND}',
      ],
      { HOOK_SECRET },
    );
    t = await listening({ plugins: { manifest } });
    env = { TAI_URL: t.url, TAI_API_KEY: KEYS.agent };
  });
  afterAll(() => t.close());

  const ask = (...flags: string[]) =>
    runCliInProcess(
      ['interactions', 'ask', 'Deploy?', '--timeout', '172800', '--no-wait', '--json', ...flags],
      {
        env,
      },
    );

  it('--escalate steps (durations in s, m, h, d; a recipient holding colons) reach the question', async () => {
    const r = await ask(
      '--escalate',
      '90:remind',
      '--escalate',
      '10m:REMIND',
      '--escalate',
      '2h:reroute:pager',
      '--escalate',
      '1d:reroute:pager:https://example.test:8443/x',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).escalations).toEqual([
      { afterSeconds: 90, action: 'REMIND', channel: null, recipient: null, ...unfired },
      { afterSeconds: 600, action: 'REMIND', channel: null, recipient: null, ...unfired },
      { afterSeconds: 7200, action: 'REROUTE', channel: 'pager', recipient: null, ...unfired },
      {
        afterSeconds: 86_400,
        action: 'REROUTE',
        channel: 'pager',
        recipient: 'https://example.test:8443/x',
        ...unfired,
      },
    ]);
  });

  it('--escalation-policy names a manifest ladder', async () => {
    const r = await ask('--escalation-policy', 'nudge');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).escalations).toEqual([
      { afterSeconds: 600, action: 'REMIND', channel: null, recipient: null, ...unfired },
    ]);
  });

  it('a step that does not parse is a usage error; the server’s refusals name the field', async () => {
    for (const bad of [
      'soon:remind',
      '10m',
      '10m:remind:pager',
      '10m:reroute',
      '10m:page:pager',
      '-5:remind',
    ]) {
      const r = await ask('--escalate', bad);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain('expected <after>:remind or <after>:reroute:<channel>');
    }
    const unordered = await ask('--escalate', '10m:remind', '--escalate', '5m:remind');
    expect(unordered.code).toBe(1);
    expect(unordered.stderr).toMatch(
      /^error: BAD_USER_INPUT: .+ \(at input\.escalation\[1\]\.afterSeconds\)\n$/,
    );
    const unknown = await ask('--escalation-policy', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/BAD_USER_INPUT: .*nudge.* \(at input\.escalationPolicy\)\n$/);
    const both = await ask('--escalate', '10m:remind', '--escalation-policy', 'nudge');
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('BAD_USER_INPUT');
  });
});

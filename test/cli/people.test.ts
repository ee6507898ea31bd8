// `tai delegate`, `tai quiet` and `tai interactions claim` (API.md §22) against a real server on
// Redis, in process: alice (a restricted key) hands her questions to bob, who then reads and
// answers hers "for" her; the bounds are refused with the reason; a claim shows in the listing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionsClient } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

describe('tai delegate, quiet and claim', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  const background = backgroundAsks();
  const as = (who: keyof typeof KEYS) => ({ TAI_URL: t.url, TAI_API_KEY: KEYS[who] });
  const run = (args: string[], who: keyof typeof KEYS) => runCliInProcess(args, { env: as(who) });

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  it('alice delegates to bob, who answers her question for her; --end ends it', async () => {
    const set = await run(['delegate', '--to', 'bob', '--until', '7d', '--reason', 'holiday'], 'alice');
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^Your questions go to bob until \d{4}-\d\d-\d\dT/);
    expect((await run(['delegate'], 'bob')).stdout).toBe('No delegation.\nYou act for: alice.\n');

    const q = await background.pending(agent, { text: 'Refund?', audience: 'alice' });
    const shown = await run(['interactions', 'show', q.id], 'bob');
    expect(shown.stdout).toContain('Refund?');
    const answered = await clientAs(t.url, 'bob').answer(q.id, 'yes');
    expect(answered).toMatchObject({ answeredBy: 'bob', onBehalfOf: 'alice' });
    expect((await run(['interactions', 'show', q.id], 'alice')).stdout).toMatch(/For\s+alice/);

    expect((await run(['delegate', '--end'], 'alice')).stdout).toBe('Delegation ended.\n');
    expect((await run(['delegate', '--end'], 'alice')).stdout).toBe('No delegation was in force.\n');
  });

  it('refuses a delegation to oneself and one past 90 days, saying why', async () => {
    const self = await run(['delegate', '--to', 'alice', '--until', '1d'], 'alice');
    expect(self.code).not.toBe(0);
    expect(self.stderr).toContain('a delegation to yourself is refused');
    const far = await run(['delegate', '--to', 'bob', '--until', '91d'], 'alice');
    expect(far.code).not.toBe(0);
    expect(far.stderr).toContain('at most 90 days');
    // Half a delegation is a usage error that says what is missing, and sets nothing.
    for (const half of [
      ['--to', 'bob'],
      ['--until', '1d'],
    ]) {
      const r = await run(['delegate', ...half], 'alice');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: --to and --until go together\nUsage: tai delegate /);
    }
    expect((await run(['delegate'], 'alice')).stdout).toBe('No delegation.\n');
    expect((await run(['delegate', '--to', 'bob', '--until', '90d'], 'alice')).code).toBe(0);
    await run(['delegate', '--end'], 'alice');
  });

  it('claim shows in the listing; --release ends it', async () => {
    const q = await background.pending(agent, { text: 'Rotate the keys?' });
    expect((await run(['interactions', 'claim', q.id], 'ops')).stdout).toBe(`Claimed ${q.id} (by ops)\n`);
    const listed = (await run(['interactions', 'list'], 'admin')).stdout;
    expect(listed.split('\n').find((l) => l.startsWith(q.id))).toMatch(/\sops\s+Rotate the keys\?$/);
    expect((await run(['interactions', 'claim', '--release', q.id], 'ops')).stdout).toBe(
      `Released ${q.id}\n`,
    );
    const json = JSON.parse((await run(['--json', 'interactions', 'show', q.id], 'ops')).stdout);
    expect(json.claimedBy).toBeNull();
  });

  it('quiet hours are set and read back', async () => {
    const r = await run(
      ['quiet', '--from', '22:00', '--to', '07:00', '--time-zone', 'Europe/Paris', '--digest', 'DAILY'],
      'ops',
    );
    expect(r.stdout).toBe('Quiet 22:00–07:00 (Europe/Paris), digest DAILY.\n');
    const bad = await run(['quiet', '--from', '24:00', '--to', '07:00'], 'ops');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('quietHours.from: expected "HH:MM"');
    expect((await clientAs(t.url, 'ops').peopleSettings()).notificationPrefs).toEqual({
      quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Paris' },
      digest: 'DAILY',
    });
  });
});

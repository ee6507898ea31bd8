// `tai approvals consume|report` (API.md §23) against a whole server: consume once (the receipt
// read from the question), a second consume refused, a report once, and a bad outcome refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAs, listening } from '../client/support.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

describe('tai approvals consume|report', () => {
  let t: TestServer & { url: string };
  beforeAll(async () => {
    t = await listening();
  });
  afterAll(async () => {
    await t.close();
  });

  it('consumes once, reports once', async () => {
    const agentEnv = { TAI_URL: t.url, TAI_API_KEY: KEYS.agent };
    const asked = await clientAs(t.url, 'agent').ask({
      text: 'Refund?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { charge: 'ch_1' } },
    });
    const id = asked.question.id;
    await clientAs(t.url, 'ops').answer(id, { decision: 'APPROVED' });

    const first = await runCliInProcess(['approvals', 'consume', id, '--json'], { env: agentEnv });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'ANSWERED',
      execution: { consumedBy: 'agent' },
    });
    const again = await runCliInProcess(['approvals', 'consume', id], { env: agentEnv });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: ALREADY_ANSWERED: already used/);

    const wrong = await runCliInProcess(['approvals', 'report', id, '--outcome', 'DONE'], { env: agentEnv });
    expect(wrong.code).toBe(2);
    const reported = await runCliInProcess(
      ['approvals', 'report', id, '--outcome', 'succeeded', '--detail', '{"rows":1}'],
      { env: agentEnv },
    );
    expect(reported.code).toBe(0);
    expect(reported.stdout).toBe(`Reported ${id}: SUCCEEDED\n`);
    const twice = await runCliInProcess(['approvals', 'report', id, '--outcome', 'FAILED'], {
      env: agentEnv,
    });
    expect(twice.stderr).toMatch(/^error: ALREADY_ANSWERED: already reported/);
  });
});

// `tai interactions answer <id> --approve --grant 1h[:same-arguments|:same-action]` (API.md §20):
// approves and allows the same for a while, so the same ask is decided at once; a bad spec, a
// grant with --reject, and a bound the server refuses are refused with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantFromFlag } from '../../src/cli/commands/answer.ts';
import type { InteractionsClient } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

describe('tai interactions answer --grant', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let ops: Record<string, string>;
  const background = backgroundAsks();

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = { TAI_URL: t.url, TAI_API_KEY: KEYS.ops };
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  const input = {
    text: 'Restart?',
    format: 'APPROVAL',
    action: { name: 'ops.restart', arguments: { pool: 'web' } },
  } as const;

  it('reads durations and scopes', () => {
    expect(grantFromFlag('1h')).toEqual({ scope: 'SAME_ARGUMENTS', seconds: 3600 });
    expect(grantFromFlag('30m:same-arguments')).toEqual({ scope: 'SAME_ARGUMENTS', seconds: 1800 });
    expect(grantFromFlag('7d:same-action')).toEqual({ scope: 'SAME_ACTION', seconds: 604_800 });
    expect(grantFromFlag('90')).toEqual({ scope: 'SAME_ARGUMENTS', seconds: 90 });
    expect(() => grantFromFlag('1h:everything')).toThrow(/scopes: same-arguments, same-action/);
    expect(() => grantFromFlag('soon')).toThrow(/--grant must be a duration/);
  });

  it('--approve --grant 1h approves and allows the same ask for an hour', async () => {
    const q = await background.pending(agent, input);
    const r = await runCliInProcess(
      ['interactions', 'answer', q.id, '--approve', '--grant', '1h', '--json'],
      {
        env: ops,
      },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ANSWERED', decision: 'APPROVED' });
    const again = await agent.ask(input);
    expect(again.question.status).toBe('ANSWERED');
    expect(again.question.answeredBy).toMatch(/^policy:grant-/);
  });

  it('refuses --grant with --reject, and a duration past the bound with the server’s reason', async () => {
    const q = await background.pending(agent, { ...input, action: { name: 'ops.other', arguments: {} } });
    const withReject = await runCliInProcess(['interactions', 'answer', q.id, '--reject', '--grant', '1h'], {
      env: ops,
    });
    expect(withReject.stderr).toBe('error: BAD_USER_INPUT: --grant goes with --approve\n');
    const tooLong = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--grant', '31d'], {
      env: ops,
    });
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/BAD_USER_INPUT: .+ \(at answer\.grant\.seconds\)/);
  });
});

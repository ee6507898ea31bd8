// The CLI and a HIGH approval (API.md §23): `tai interactions answer --approve` is refused with
// FORBIDDEN and the inbox link (a key cannot give a passkey step-up), nothing changes, and
// `--reject` goes through. The SDK's askUser passes `assurance` on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionsClient } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

describe('tai interactions answer on a HIGH approval', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let env: Record<string, string>;
  const background = backgroundAsks();

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    env = { TAI_URL: t.url, TAI_API_KEY: KEYS.ops };
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  const wire = () =>
    background.pending(agent, {
      text: 'Wire?',
      format: 'APPROVAL',
      action: { name: 'payments.wire', arguments: { amount: 9 }, assurance: 'HIGH' },
    });

  it('--approve is refused with STEP_UP_REQUIRED and the link; --reject is recorded', async () => {
    const q = await wire();
    expect(q.action?.assurance).toBe('HIGH');
    const refused = await runCliInProcess(['interactions', 'answer', q.id, '--approve'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FORBIDDEN');
    expect(refused.stderr).toContain(`${t.config.publicBaseUrl}/?question=${q.id}`);
    expect((await agent.question(q.id))?.status).toBe('PENDING');

    const rejected = await runCliInProcess(['interactions', 'answer', q.id, '--reject', '--json'], { env });
    expect(rejected.code).toBe(0);
    expect((await agent.question(q.id))?.status).toBe('ANSWERED');
  });
});

// The SDK's `ask` and `askUser` forward an escalation ladder (API.md §18), inline steps or a
// manifest policy, to a real server: the question comes back with its steps, and the server's
// refusals reach the caller at the field at fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadUserInputError, type InteractionsClient } from '../../src/client/index.ts';
import { manifestOf } from '../support/channel-server.ts';
import type { TestServer } from '../support/server.ts';
import { backgroundAsks, clientAs, listening } from './support.ts';

/** A Standard Webhooks secret (the webhook channel reads it only when it delivers). */
const HOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const unfired = { firedAt: null, outcome: null };

describe('SDK: escalation ladders', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  const background = backgroundAsks();

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
        '    - {afterSeconds: 1800, action: REROUTE, channel: pager, recipient: oncall}',
      ],
      { HOOK_SECRET },
    );
    t = await listening({ plugins: { manifest } });
    agent = clientAs(t.url, 'agent');
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  it('ask() sends inline steps and the question carries them', async () => {
    const { question } = await agent.ask({
      text: 'Deploy?',
      format: 'CONFIRM',
      timeoutSeconds: 3600,
      escalation: [
        { afterSeconds: 300, action: 'REMIND' },
        { afterSeconds: 900, action: 'REROUTE', channel: 'pager' },
      ],
    });
    expect(question.escalations).toEqual([
      { afterSeconds: 300, action: 'REMIND', channel: null, recipient: null, ...unfired },
      { afterSeconds: 900, action: 'REROUTE', channel: 'pager', recipient: null, ...unfired },
    ]);
    const read = await agent.question(question.id);
    expect(read?.escalations).toHaveLength(2);
  });

  it('askUser() sends a policy name and the question carries its steps', async () => {
    const q = await background.pending(agent, {
      text: 'Rotate the keys?',
      timeoutSeconds: 7200,
      escalationPolicy: 'nudge',
    });
    expect(q.escalations).toEqual([
      { afterSeconds: 600, action: 'REMIND', channel: null, recipient: null, ...unfired },
      { afterSeconds: 1800, action: 'REROUTE', channel: 'pager', recipient: 'oncall', ...unfired },
    ]);
  });

  it('the server’s refusals reach the caller at the field at fault', async () => {
    await expect(
      agent.ask({ text: 'x', timeoutSeconds: 3600, escalationPolicy: 'nope' }),
    ).rejects.toMatchObject({ constructor: BadUserInputError, field: 'input.escalationPolicy' });
    await expect(
      agent.ask({
        text: 'x',
        timeoutSeconds: 3600,
        escalation: [
          { afterSeconds: 600, action: 'REMIND' },
          { afterSeconds: 600, action: 'REMIND' },
        ],
      }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.escalation[1].afterSeconds' });
    await expect(
      agent.ask({
        text: 'x',
        timeoutSeconds: 3600,
        escalation: [{ afterSeconds: 600, action: 'REMIND' }],
        escalationPolicy: 'nudge',
      }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

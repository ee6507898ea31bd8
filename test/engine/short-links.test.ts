// Short links on both stores: a channel gets a link longer than it declares it carries as
// `{base}/l/{token}`, which leads to the whole link while the question lives; a link within the
// limit, and a channel that declares none, get the link as is. Also the real twilio plugin: an
// SMS stays within 1,600 characters with a link of 8,000.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import type { ChannelInstance, ChannelQuestion } from '../../src/channels/types.ts';
import { AGENT, type EngineSet, SETTINGS, type StoreKind, startEngines } from '../support/engines.ts';
import { channelContext } from '../support/fakes/channel-context.ts';
import { type FakeTwilio, startFakeTwilio } from '../support/fakes/twilio.ts';

const SID = 'AC33333333333333333333333333333333';
const AUTH = 'short-links-auth-token';
let twilio: FakeTwilio;
beforeAll(async () => {
  twilio = await startFakeTwilio(SID, AUTH);
});
afterAll(() => twilio.close());

const delivered: ChannelQuestion[] = [];

/** A channel that records what it is handed, carrying links of at most `linkMaxChars`. */
function recorder(linkMaxChars?: number): ChannelInstance {
  return {
    ...(linkMaxChars === undefined ? {} : { linkMaxChars }),
    async deliver(q) {
      delivered.push(q);
      return { ref: q.id };
    },
  };
}

const template = (n: number) => {
  const head = 'https://pay.example/approve?cb={callback_url}&items=';
  return `${head}${'x'.repeat(n - head.length)}`;
};

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`short links for channels (${kind})`, () => {
    let set: EngineSet;
    beforeEach(async () => {
      delivered.length = 0;
      const sms = twilioPlugin.create(
        twilioPlugin.config.parse({
          accountSidEnv: 'TW_SID',
          authTokenEnv: 'TW_TOKEN',
          from: '+15005550006',
          apiUrl: twilio.apiUrl,
        }),
        channelContext('sms', { TW_SID: SID, TW_TOKEN: AUTH }),
      );
      const instances: Record<string, ChannelInstance> = {
        short: recorder(200),
        plain: recorder(),
        sms,
      };
      const channels: ChannelSet = {
        names: () => new Set(Object.keys(instances)),
        get: (n) => instances[n],
        close: async () => {},
      };
      set = await startEngines(kind, 1, {}, { channels: channelPort(channels, {}) });
    });
    afterEach(() => set.close());

    const engine = () => set.engines[0]!;
    const ask = (channel: string, link: string, extra: Record<string, unknown> = {}) =>
      engine().ask(
        AGENT,
        { text: 'Approve?', format: 'EXTERNAL', channel, link, ...extra },
        { holdSeconds: 0 },
      );

    it('a link over the channel’s limit arrives as a short link that leads to the whole link', async () => {
      const r = await ask('short', template(300));
      const whole = template(300).replace('{callback_url}', r.callbackUrl!);
      const sent = delivered.at(-1)!.link!;
      expect(sent).toMatch(
        new RegExp(`^${SETTINGS.publicBaseUrl!.replace('.', '\\.')}/l/[A-Za-z0-9_-]{43}$`),
      );
      const token = sent.split('/').at(-1)!;
      expect(await engine().followLink(token)).toBe(whole);
      // Following changes nothing; a token naming nothing leads nowhere.
      expect(await engine().followLink(token)).toBe(whole);
      expect((await engine().get(AGENT, r.question.id))?.status).toBe('PENDING');
      expect(await engine().followLink(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
      expect(await engine().followLink('short')).toBeNull();
      expect(await engine().followLink(`${token}x`)).toBeNull();
    });

    it('a link within the limit, and any link on a channel declaring no limit, are sent as is', async () => {
      const head = 'https://pay.example/approve?cb={callback_url}&items=';
      const probe = await ask('plain', `${head}x`);
      const room = 200 - `${head}x`.replace('{callback_url}', probe.callbackUrl!).length + 1;
      const atLimit = await ask('short', `${head}${'y'.repeat(room)}`);
      expect(delivered.at(-1)!.link).toBe(
        `${head}${'y'.repeat(room)}`.replace('{callback_url}', atLimit.callbackUrl!),
      );
      expect(delivered.at(-1)!.link).toHaveLength(200);
      const over = await ask('short', `${head}${'y'.repeat(room + 1)}`);
      expect(delivered.at(-1)!.link).toMatch(/\/l\/[A-Za-z0-9_-]{43}$/);
      expect(over.question.link).toHaveLength(201);
      await ask('plain', template(8000));
      expect(delivered.at(-1)!.link!.length).toBeGreaterThan(8000);
    });

    it('SMS: an 8,000-character link is sent as a short link and the body stays within 1,600', async () => {
      await ask('sms', template(8000), { recipient: '+14155550100', text: 'q'.repeat(1500) });
      const sent = twilio.messages().at(-1)!;
      expect(sent.Body!.length).toBeLessThanOrEqual(1600);
      expect(sent.Body).toMatch(/\nOpen: https:\/\/hitl\.example\/l\/[A-Za-z0-9_-]{43}$/);
    });
  });
}

// The channel contract for `webhook`: a loopback receiver gets the Standard Webhooks-signed
// `question.asked` and `question.resolved` posts. It has no inbound door: its receiver answers
// through the callback door.
import { type HttpReceiver, type ReceivedRequest, startReceiver } from '../../support/fakes/http-receiver.ts';
import type { ChannelHarness } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
let receiver: HttpReceiver;

type Payload = { type: string; question: { id: string; text?: string } };
const payload = (r: ReceivedRequest) => JSON.parse(r.body.toString('utf8')) as Payload;

async function asked(marker: string) {
  return receiver.waitFor((r) => {
    const p = payload(r);
    return p.type === 'question.asked' && String(p.question.text).includes(marker);
  });
}

const webhookHarness: ChannelHarness = {
  channel: 'bridge',
  async start() {
    receiver = await startReceiver();
    return {
      lines: [
        '  bridge:',
        '    plugin: webhook',
        `    config: { url: "${receiver.url}", secretEnv: HOOK_SECRET }`,
      ],
      env: { HOOK_SECRET: SECRET },
    };
  },
  close: () => receiver.close(),
  async delivered(marker) {
    const r = await asked(marker);
    return { strings: stringsOf(payload(r)), raw: r };
  },
  async reminded(marker) {
    const r = await receiver.waitFor((x) => {
      const p = payload(x);
      return p.type === 'question.reminded' && String(p.question.text).includes(marker);
    });
    return { strings: stringsOf(payload(r)), raw: r };
  },
  resolved: {
    // The resolved event names the question by id only: found through its delivery.
    async edited(marker) {
      const id = payload(await asked(marker)).question.id;
      const r = await receiver.waitFor((x) => {
        const p = payload(x);
        return p.type === 'question.resolved' && p.question.id === id;
      });
      return { strings: stringsOf(payload(r)), raw: r };
    },
    says: {
      inbox: /ANSWERED[\s\S]*\nops$/m,
      timedOut: /TIMED_OUT/,
      cancelled: (reason) => new RegExp(`CANCELLED[\\s\\S]*${reason}`),
      // The event carries the decision; `edited` is a boolean beside it (not among the strings).
      approvedWithChanges: /ANSWERED[\s\S]*APPROVED/,
    },
  },
};

runChannelContract(webhookHarness);

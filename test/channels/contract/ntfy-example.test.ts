// The channel contract for the authoring example (examples/channels/ntfy-channel.ts), loaded from
// its file as a manifest loads any plugin: a loopback receiver stands in for the ntfy topic. It
// has no inbound door: the person answers on the callback page the notification opens.
import { resolve } from 'node:path';
import { type HttpReceiver, type ReceivedRequest, startReceiver } from '../../support/fakes/http-receiver.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract } from './suite.ts';

let topic: HttpReceiver;

const shown = (r: ReceivedRequest): Delivered => ({
  strings: [r.body.toString('utf8'), String(r.headers.title ?? ''), String(r.headers.click ?? '')],
  raw: r,
});

const published = (title: string) => async (marker: string) =>
  shown(await topic.waitFor((r) => r.headers.title === title && r.body.toString('utf8').includes(marker)));

const exampleHarness: ChannelHarness = {
  channel: 'phone',
  async start() {
    topic = await startReceiver();
    return {
      lines: [
        '  phone:',
        `    plugin: ${resolve('examples/channels/ntfy-channel.ts')}`,
        `    config: { topicUrl: "${topic.url}", tokenEnv: NTFY_TOKEN }`,
      ],
      env: { NTFY_TOKEN: 'tk_contract_example' },
    };
  },
  close: () => topic.close(),
  delivered: published('A question for you'),
  // The example has no `remind`: the server delivers the question again, marked as a reminder.
  reminded: async (marker) =>
    shown(
      await topic.waitFor(
        (r) =>
          r.headers.title === 'A question for you' &&
          /^Reminder/.test(r.body.toString('utf8')) &&
          r.body.toString('utf8').includes(marker),
      ),
    ),
  resolved: {
    edited: published('Question closed'),
    says: {
      inbox: /→ answered/,
      timedOut: /→ timed_out/,
      cancelled: () => /→ cancelled/,
      approvedWithChanges: /→ answered/,
    },
  },
};

runChannelContract(exampleHarness);

// The channel contract for `email`: a real SMTP server (smtp-server) takes the mail and a real
// parser (mailparser) reads it. Mail cannot be edited: with `notifyOnResolved` the outcome is a
// follow-up mail. Replies by mail are not built yet, so the door is the uniform 404 and the
// person answers through the links (the callback door).
import { type FakeSmtp, type ReceivedMail, startFakeSmtp } from '../../support/fakes/smtp.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract } from './suite.ts';

let smtp: FakeSmtp;

const shown = (m: ReceivedMail): Delivered => ({
  strings: [m.parsed.subject ?? '', m.parsed.text ?? '', String(m.parsed.html || '')],
  raw: m,
});
const mail = (followUp: boolean) => async (marker: string) =>
  shown(
    await smtp.waitFor(
      (m) =>
        (m.parsed.subject ?? '').startsWith('Re: ') === followUp && (m.parsed.text ?? '').includes(marker),
    ),
  );

const emailHarness: ChannelHarness = {
  channel: 'ops-mail',
  async start() {
    smtp = await startFakeSmtp('tai', 'contract-smtp-password');
    return {
      lines: [
        '  ops-mail:',
        '    plugin: email',
        '    config:',
        '      smtpUrlEnv: SMTP_URL',
        '      from: tai@example.com',
        '      defaultRecipient: ana@example.com',
        '      notifyOnResolved: true',
      ],
      env: { SMTP_URL: smtp.url },
    };
  },
  close: () => smtp.close(),
  delivered: mail(false),
  resolved: {
    edited: mail(true),
    says: {
      inbox: /Answered in the inbox by ops/,
      timedOut: /Timed out/,
      cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
    },
  },
};

runChannelContract(emailHarness);

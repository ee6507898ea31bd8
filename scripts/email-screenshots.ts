// Renders the e-mail channel's HTML part and the choice page a link opens, as docs/channels.md
// shows them: `npx tsx scripts/email-screenshots.ts` (needs Chromium, see test/support/chromium.ts).
import { chromium } from 'playwright-core';
import { questionMail } from '../src/channels/email/message.ts';
import { renderCallbackPage } from '../src/http/callback-pages.ts';
import { chromiumPath } from '../test/support/chromium.ts';

const callbackUrl = 'https://tai.example.com/api/interactions/callback/Zq3…';
const now = Date.now();
const QUESTION_TEXT =
  'Which region takes the failover traffic tonight?\nThe EU cluster is being patched 22:00–23:00 UTC.';
const mail = questionMail(
  {
    id: 'q_01JDEMO',
    text: QUESTION_TEXT,
    format: 'SELECT',
    options: ['eu-west', 'us-east', 'ap-south'],
    schema: null,
    link: null,
    recipient: 'oncall@example.com',
    sensitive: false,
    status: 'PENDING',
    answer: null,
    answeredBy: null,
    cancelReason: null,
    createdAt: now,
    timeoutAt: now + 3_600_000,
  },
  callbackUrl,
  'Q-7KM2XP',
);

const browser = await chromium.launch({ executablePath: chromiumPath() });
try {
  const page = await browser.newPage({ viewport: { width: 640, height: 320 } });
  await page.setContent(
    `<div style="font:14px system-ui;padding:12px 16px;border-bottom:1px solid #ddd;color:#333"><b>${mail.subject}</b><br>From: tai@example.com · To: oncall@example.com</div>${mail.html}`,
  );
  await page.screenshot({ path: 'docs/screenshots/email.png', fullPage: true });
  const choice = await browser.newPage({ viewport: { width: 420, height: 360 } });
  await choice.setContent(
    renderCallbackPage({ kind: 'choice', index: 1, label: 'us-east', about: { text: QUESTION_TEXT } }).html,
  );
  await choice.screenshot({ path: 'docs/screenshots/email-choice.png', fullPage: true });
} finally {
  await browser.close();
}

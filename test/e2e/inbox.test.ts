// The inbox end to end: the built page in real headless Chromium against a real server on Redis.
// Every wait ends on a selector, an event or a request; nothing sleeps.
//
// Most tests share one page signed in as `alice` (restricted: she sees only the questions
// addressed to her), so each screenshot shows just the question it is about.
import { mkdirSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_CSP } from '../../src/http/routes/inbox.ts';
import { specOf } from '../support/fixtures.ts';
import {
  answerAs,
  ask,
  askAndWait,
  buildInbox,
  cancel,
  card,
  gql,
  KEYS,
  launchChromium,
  openPage,
  openSettings,
  previewPng,
  REPO_ROOT,
  type RunningServer,
  seriousViolations,
  signIn,
  startInboxServer,
  type Watched,
} from './harness.ts';

// The committed screenshots are refreshed on demand (INBOX_SCREENSHOTS=1 npx vitest run
// test/e2e); other runs still take them, into a temporary folder, so the tree stays clean.
const SHOTS = process.env.INBOX_SCREENSHOTS
  ? path.join(REPO_ROOT, 'docs/screenshots')
  : mkdtempSync(path.join(tmpdir(), 'inbox-shots-'));

let browser: Browser;
let srv: RunningServer;

function token(): string {
  return Math.random().toString(36).slice(2, 8);
}

async function idsOf(cards: Locator): Promise<string[]> {
  const ids: string[] = [];
  for (const el of await cards.all()) ids.push((await el.getAttribute('data-question-id')) ?? '');
  return ids.filter((id) => id !== '');
}

/** Console noise a test expects (a refused key, a server that is down) is not a problem. */
function unexpected(problems: readonly string[], ...expected: RegExp[]): string[] {
  return problems.filter((p) => !expected.some((re) => re.test(p)));
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await buildInbox();
  [browser, srv] = await Promise.all([launchChromium(), startInboxServer()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

describe('the page and sign-in', () => {
  it('is served at / with its CSP, and its hashed assets are cached for good', async () => {
    const res = await fetch(`${srv.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(INBOX_CSP);
    const html = await res.text();
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script at all
    const asset = await fetch(`${srv.url}${script}`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('takes the key from #key=, removes it from the address bar, keeps it in sessionStorage only', async () => {
    const w = await openPage(browser);
    try {
      await signIn(w, srv.url, 'ops');
      expect(w.page.url()).toBe(`${srv.url}/`);
      expect(
        await w.page.evaluate('[sessionStorage.getItem("tai-interactions.apiKey"), localStorage.length]'),
      ).toEqual([KEYS.ops, 0]);
      await openSettings(w.page);
      await w.page.getByText('Signed in as ops').waitFor();
      // Still signed in after a reload (same tab), with nothing in the URL.
      await w.page.reload();
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      await openSettings(w.page);
      await w.page.getByRole('button', { name: 'Sign out' }).click();
      await w.page.getByLabel('API key').waitFor();
      expect(await w.page.evaluate('sessionStorage.length')).toBe(0);
      expect(unexpected(w.problems)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('returns a refused key (401) to sign-in with a clear message; a typed key signs in', async () => {
    const w = await openPage(browser);
    try {
      await w.page.goto(`${srv.url}/#key=not-a-real-key-000000`);
      await w.page.getByRole('alert').filter({ hasText: 'That API key was not accepted (401)' }).waitFor();
      expect(w.page.url()).toBe(`${srv.url}/`);
      expect(await w.page.evaluate('sessionStorage.length')).toBe(0);
      expect(await seriousViolations(w.page)).toEqual([]);
      await w.page.getByLabel('API key').fill(KEYS.ops);
      await w.page.getByRole('button', { name: 'Sign in' }).click();
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      expect(unexpected(w.problems, /status of 401/)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

describe('answering as alice', () => {
  let w: Watched;

  beforeAll(async () => {
    w = await openPage(browser, { width: 1000, height: 860 });
    await signIn(w, srv.url, 'alice');
  });

  afterAll(async () => {
    expect(w.dialogs).toEqual([]);
    expect(unexpected(w.problems, /status of 409/)).toEqual([]);
    await w.close();
  });

  /** Clears the settled cards so the next question is alone on the page. */
  async function clearResolved(): Promise<void> {
    await w.page.getByRole('button', { name: /^Clear \d+ resolved$/ }).click();
    await w.page.locator('article.card-settled').first().waitFor({ state: 'detached' });
  }

  it('shows a question as soon as it is asked, and a TEXT answer wakes the blocked asker', async () => {
    const t = token();
    const text = `What should the release title be? (${t})\nKeep it under 40 characters.`;
    let navigations = 0;
    w.page.on('framenavigated', () => navigations++);
    const asker = askAndWait(srv.url, { text, format: 'TEXT', audience: 'alice' });
    const c = card(w.page, t);
    await c.waitFor();
    // Newlines kept, shown as text.
    expect(await c.locator('.q-text').textContent()).toBe(text);
    const submit = c.getByRole('button', { name: 'Submit' });
    expect(await submit.isDisabled()).toBe(true);
    await c.getByLabel('Your answer').fill('  \n ');
    expect(await submit.isDisabled()).toBe(true);
    await c.getByLabel('Your answer').fill('Aurora\n(2.0)');
    await c.locator('button[type="submit"]:enabled').waitFor();
    await c.getByLabel('Your answer').press('Control+Enter');
    const result = await asker;
    expect(result.status).toBe('ANSWERED');
    expect(result.answer).toBe('Aurora\n(2.0)');
    await c.locator('.outcome').getByText('by you').waitFor();
    expect(await c.getAttribute('data-status')).toBe('ANSWERED');
    expect(await c.locator('.answer-value').textContent()).toBe('Aurora\n(2.0)');
    expect(navigations).toBe(0);
    await clearResolved();
  });

  it('CONFIRM with media: the image renders (alt from caption, no referrer), the link is safe; No → false', async () => {
    const t = 'Approve the staging deploy of 2.0 to production?';
    const asker = askAndWait(srv.url, {
      text: t,
      format: 'CONFIRM',
      audience: 'alice',
      groupId: 'release-2.0',
      media: [
        { kind: 'IMAGE', url: previewPng(), caption: 'Staging build preview' },
        { kind: 'LINK', url: 'https://example.com/releases/2.0', caption: 'Release notes' },
      ],
    });
    const c = card(w.page, t);
    await c.waitFor();
    const img = c.getByRole('img', { name: 'Staging build preview' });
    expect(await img.getAttribute('referrerpolicy')).toBe('no-referrer');
    const id = await c.getAttribute('data-question-id');
    await w.page.waitForFunction(
      `(() => { const i = document.querySelector('article[data-question-id="${id}"] img'); return !!i && i.complete && i.naturalWidth === 480; })()`,
    );
    const link = c.getByRole('link', { name: /Release notes/ });
    expect(await link.getAttribute('href')).toBe('https://example.com/releases/2.0');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('target')).toBe('_blank');
    await c.getByText('for you').waitFor();
    await w.page.screenshot({ path: path.join(SHOTS, 'confirm.png') });
    await c.getByRole('button', { name: 'No' }).click();
    const result = await asker;
    expect(result.answer).toBe(false);
    await c.locator('.outcome').waitFor();
    // Media stays with the answered card.
    expect(await c.getByRole('img', { name: 'Staging build preview' }).count()).toBe(1);
    await clearResolved();
  });

  it('SELECT with few options: radio buttons; the choice wakes the asker as the option string', async () => {
    const t = 'Which environment should the hotfix go to first?';
    const asker = askAndWait(srv.url, {
      text: t,
      format: 'SELECT',
      options: ['staging', 'canary', 'production'],
      audience: 'alice',
    });
    const c = card(w.page, t);
    await c.waitFor();
    expect(await c.getByRole('radio').count()).toBe(3);
    expect(await c.getByRole('searchbox').count()).toBe(0);
    expect(await c.getByRole('button', { name: 'Submit' }).isDisabled()).toBe(true);
    await c.getByRole('radio', { name: 'canary' }).check();
    await c.getByRole('button', { name: 'Submit' }).click();
    expect((await asker).answer).toBe('canary');
    await c.locator('.outcome').waitFor();
    await clearResolved();
  });

  it('SELECT with many options: a searchable list, usable from the keyboard', async () => {
    const t = "Where should the new tenant's data live?";
    const regions = [
      'us-east (Virginia)',
      'us-west (Oregon)',
      'ca-central (Montréal)',
      'sa-east (São Paulo)',
      'eu-west (Ireland)',
      'eu-central (Frankfurt)',
      'eu-north (Stockholm)',
      'ap-south (Mumbai)',
      'ap-northeast (Tokyo)',
      'ap-southeast (Sydney)',
    ];
    const asker = askAndWait(srv.url, {
      text: t,
      format: 'SELECT',
      options: regions,
      audience: 'alice',
    });
    const c = card(w.page, t);
    await c.waitFor();
    const search = c.getByRole('searchbox', { name: 'Search the 10 options' });
    await search.fill('eu-');
    await c.getByText('3 of 10 options match').waitFor();
    expect(await c.getByRole('radio').count()).toBe(3);
    // Keyboard only: into the list, arrow to the second match, then Tab to Submit and press Enter.
    await search.press('Tab');
    await w.page.keyboard.press('ArrowDown');
    await c.getByRole('radio', { name: 'eu-central (Frankfurt)' }).and(w.page.locator(':checked')).waitFor();
    await w.page.screenshot({ path: path.join(SHOTS, 'select.png') });
    await w.page.keyboard.press('Tab');
    expect(await w.page.evaluate('document.activeElement.textContent')).toBe('Submit');
    await w.page.keyboard.press('Enter');
    expect((await asker).answer).toBe('eu-central (Frankfurt)');
    await c.locator('.outcome').waitFor();
    await clearResolved();
  });

  it('FORM: checked in the page, a server error lands on its field, and the typed object wakes the asker', async () => {
    const t = 'Who is the customer contact for the renewal?';
    const asker = askAndWait(srv.url, {
      text: t,
      format: 'FORM',
      audience: 'alice',
      schema: {
        type: 'object',
        title: 'Customer contact',
        required: ['name', 'email'],
        properties: {
          name: { type: 'string', title: 'Full name' },
          email: { type: 'string', title: 'Email', format: 'email' },
          seats: { type: 'integer', title: 'Seats', minimum: 1, default: 5 },
          plan: { type: 'string', title: 'Plan', enum: ['Starter', 'Team', 'Enterprise'] },
          code: {
            type: 'string',
            title: 'Promo code',
            description: 'Four capital letters',
            pattern: '^[A-Z]{4}$',
          },
          newsletter: { type: 'boolean', title: 'Send the newsletter' },
        },
      },
    });
    const c = card(w.page, t);
    await c.locator('form.rjsf').waitFor();
    const answers: string[] = [];
    const onRequest = (r: { postData(): string | null }) => {
      if (r.postData()?.includes('mutation InboxAnswer')) answers.push(r.postData() ?? '');
    };
    w.page.on('request', onRequest);

    // The page's own checks: nothing is sent while the form is invalid.
    await c.getByRole('button', { name: 'Submit' }).click();
    await c.getByText('This field is required.').first().waitFor();
    await c.getByLabel('Full name').fill('Ada Lovelace');
    await c.getByLabel('Email').fill('ada@');
    await c.getByRole('button', { name: 'Submit' }).click();
    await c.getByText('Must be an email address.').waitFor();
    expect(answers).toEqual([]);

    // The server's check (the pattern is the server's to test): its error shows on the field.
    await c.getByLabel('Email').fill('ada@example.com');
    await c.getByLabel('Plan').selectOption('Team');
    await c.getByLabel('Promo code').fill('spring');
    await c.getByLabel('Send the newsletter').check();
    await c.getByRole('button', { name: 'Submit' }).click();
    // The innermost field wrapper (the root object's wrapper holds every field).
    const codeField = c.locator('.form-group', { has: w.page.getByLabel('Promo code') }).last();
    await codeField.locator('.error-detail').getByText('Must match pattern "^[A-Z]{4}$"').waitFor();
    await c.getByRole('alert').getByText('The answer was refused').waitFor();
    await w.page.screenshot({ path: path.join(SHOTS, 'form.png'), fullPage: true });

    await c.getByLabel('Promo code').fill('SPRG');
    await c.getByRole('button', { name: 'Submit' }).click();
    const result = await asker;
    w.page.off('request', onRequest);
    expect(answers).toHaveLength(2);
    expect(result.answer).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      seats: 5,
      plan: 'Team',
      code: 'SPRG',
      newsletter: true,
    });
    await c.locator('.outcome').getByText('Full name').waitFor();
    await clearResolved();
  });

  it('EXTERNAL: the link to visit (safe anchor), and the card flips when the callback answers', async () => {
    const t = 'Pay the renewal invoice';
    const asked = await ask(srv.url, {
      text: t,
      format: 'EXTERNAL',
      audience: 'alice',
      link: 'https://pay.example.com/checkout?done={callback_url}',
    });
    const waiting = gql(
      srv.url,
      'agent',
      'query($id: ID!) { awaitAnswer(id: $id, holdSeconds: 30) { status answer } }',
      {
        id: asked.question.id,
      },
    );
    const c = card(w.page, t);
    await c.waitFor();
    const link = c.getByRole('link', { name: /Open the page to answer/ });
    expect(await link.getAttribute('href')).toBe(
      `https://pay.example.com/checkout?done=${asked.callbackUrl}`,
    );
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    const posted = await fetch(asked.callbackUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paid: true, receipt: 'R-1' }),
    });
    expect(posted.status).toBe(200);
    const result = (await waiting).data.awaitAnswer;
    expect(result).toEqual({ status: 'ANSWERED', answer: { paid: true, receipt: 'R-1' } });
    await c.locator('.outcome').getByText('by callback').waitFor();
    // The history shows what the callback carried, field by field.
    await w.page.getByRole('tab', { name: 'History' }).click();
    const payload = w.page.locator('#panel-history article', { hasText: t }).getByTestId('external-payload');
    await payload.getByText('The callback carried:').waitFor();
    await payload.locator('.answer-row', { hasText: 'receipt' }).locator('dd', { hasText: 'R-1' }).waitFor();
    await payload.locator('.answer-row', { hasText: 'paid' }).locator('dd', { hasText: 'Yes' }).waitFor();
    await w.page.getByRole('tab', { name: /Pending/ }).click();
    await clearResolved();
  });

  it('EXTERNAL bound to a verifier: "awaiting a verified server callback", and no link', async () => {
    const t = 'Card payment for order 1042';
    const asked = await ask(srv.url, {
      text: t,
      format: 'EXTERNAL',
      audience: 'alice',
      link: 'https://pay.example.com/intent?cb={callback_url}',
      verifier: { name: 'hmac-sha256', config: { secretEnv: 'INBOX_E2E_SECRET' } },
    });
    const c = card(w.page, t);
    await c.getByText('Awaiting a verified server callback').waitFor();
    expect(await c.getByRole('link').count()).toBe(0);
    await cancel(srv.url, asked.question.id, 'test over');
    await c.locator('.outcome').getByText('Cancelled').waitFor();
    await clearResolved();
  });

  it('never renders media the contract refuses: http: images, javascript: links, non-image data:', async () => {
    // A server that counts requests: the http: image must never be fetched.
    let hits = 0;
    const tracker = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
    const trackerUrl = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}/pixel.png`;
    try {
      // The API refuses such media before anything is stored...
      const refused = await gql(
        srv.url,
        'agent',
        'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { status } }',
        {
          i: { text: 'x', format: 'CONFIRM', media: [{ kind: 'IMAGE', url: trackerUrl }] },
        },
      );
      expect(refused.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.media[0].url',
      });
      // ...so a record holding it can only come from elsewhere (an old or altered store): the page
      // still refuses to render it.
      const t = 'An old record with media the contract refuses';
      await srv.server.store.create(
        specOf({
          text: t,
          audience: 'alice',
          media: [
            { kind: 'IMAGE', url: trackerUrl, caption: 'Tracking pixel' },
            { kind: 'LINK', url: 'javascript:alert(document.domain)', caption: 'Click me' },
            {
              kind: 'IMAGE',
              url: 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
              caption: 'HTML',
            },
          ],
        }),
        { maxPending: 10_000, retentionMs: 60_000 },
      );
      const c = card(w.page, t);
      await c.waitFor();
      expect(await c.getByTestId('media-blocked').count()).toBe(3);
      await c.getByText('Blocked image').first().waitFor();
      await c.getByText('Blocked link').waitFor();
      expect(await c.locator('img').count()).toBe(0);
      expect(await c.locator('a').count()).toBe(0);
      expect(await w.page.locator('a[href^="javascript:"]').count()).toBe(0);
      expect(hits).toBe(0);
      const id = await c.getAttribute('data-question-id');
      await cancel(srv.url, id!, 'test over');
      await c.locator('.outcome').waitFor();
      expect(hits).toBe(0);
      await clearResolved();
    } finally {
      tracker.close();
    }
  });

  it('renders XSS payloads in text, options, captions, groups and schema titles as plain text', async () => {
    const t = token();
    const p = (n: number) => `<img src=x onerror="window.__xss=${n};alert(${n})">`;
    const s = (n: number) => `<script>window.__xss=${n};alert(${n})</script>`;
    await ask(srv.url, {
      text: `${t} ${p(1)} ${s(2)}`,
      format: 'SELECT',
      options: [p(3), s(4), '"><svg onload=alert(5)>'],
      audience: 'alice',
      groupId: `${t} ${p(6)}`,
      media: [{ kind: 'IMAGE', url: previewPng(), caption: `${p(7)} caption` }],
    });
    await ask(srv.url, {
      text: `${t} form`,
      format: 'FORM',
      audience: 'alice',
      groupId: `${t} ${p(6)}`,
      schema: {
        type: 'object',
        title: p(8),
        description: s(9),
        properties: { field: { type: 'string', title: p(10), description: s(11), enum: [p(12), 'ok'] } },
      },
    });
    // The group's head and its cards are rows of the one list (the page shows only this group).
    const group = w.page.getByRole('feed');
    await group.locator('article.group-row', { hasText: t }).waitFor();
    await group.locator('form.rjsf').waitFor();
    for (const literal of [
      p(1),
      s(2),
      p(3),
      s(4),
      '"><svg onload=alert(5)>',
      p(6),
      p(8),
      s(9),
      p(10),
      s(11),
    ]) {
      expect(await group.getByText(literal, { exact: false }).count(), literal).toBeGreaterThan(0);
    }
    expect(await group.getByRole('img', { name: `${p(7)} caption` }).count()).toBe(1);
    expect(await group.locator('select option', { hasText: p(12) }).count()).toBe(1);
    expect(await w.page.locator('img[src="x"], svg, script:not([src])').count()).toBe(0);
    expect(await w.page.evaluate('window.__xss ?? null')).toBeNull();
    expect(w.dialogs).toEqual([]);
    for (const id of await idsOf(group.locator('article'))) await cancel(srv.url, id, 'test over');
    await group.locator('article.card-settled').nth(1).waitFor();
    await clearResolved();
  });

  it('a timed-out question leaves the pending list and appears in the history as timed out', async () => {
    const t = 'Restart the worker pool now?';
    const asker = askAndWait(
      srv.url,
      {
        text: t,
        format: 'CONFIRM',
        audience: 'alice',
        timeoutSeconds: 2,
      },
      10,
    );
    const c = card(w.page, t);
    await c.getByText(/\d s left/).waitFor();
    const count = w.page.getByRole('tab', { name: /Pending/ }).locator('.count');
    expect(await count.textContent()).toBe('1');
    expect((await asker).status).toBe('TIMED_OUT');
    await c.locator('.outcome').getByText('Timed out').waitFor();
    expect(await c.getAttribute('data-status')).toBe('TIMED_OUT');
    expect(await c.getByRole('button', { name: 'Yes' }).count()).toBe(0);
    await w.page
      .getByRole('tab', { name: /Pending/ })
      .getByText('0')
      .waitFor();
    await w.page.getByRole('tab', { name: 'History' }).click();
    const item = w.page.locator('#panel-history article', { hasText: t });
    await item.getByText('Timed out').waitFor();
    expect(await item.getAttribute('data-status')).toBe('TIMED_OUT');
    await w.page.getByRole('tab', { name: /Pending/ }).click();
    await clearResolved();
  });

  it('says plainly why a 409 refused the answer: answered elsewhere, or cancelled', async () => {
    // The page's answer requests wait here until the question has been resolved elsewhere.
    const waiting: ((route: Route) => void)[] = [];
    const nextHeld = (): Promise<Route> => new Promise((resolve) => waiting.push(resolve));
    await w.page.route('**/graphql', async (route) => {
      const hold = route.request().postData()?.includes('mutation InboxAnswer') ? waiting.shift() : undefined;
      if (hold) hold(route);
      else await route.continue();
    });
    try {
      const t1 = 'Rotate the signing key?';
      const a = await ask(srv.url, {
        text: t1,
        format: 'CONFIRM',
        audience: 'alice',
      });
      const c1 = card(w.page, t1);
      const held1 = nextHeld();
      await c1.getByRole('button', { name: 'Yes' }).click();
      const route1 = await held1;
      await answerAs(srv.url, 'ops', a.question.id, false);
      await route1.continue();
      await c1.getByText('Already answered elsewhere (by ops): your answer was not recorded.').waitFor();
      expect(await c1.getAttribute('data-status')).toBe('ANSWERED');

      const t2 = 'Purge the CDN cache?';
      const b = await ask(srv.url, { text: t2, format: 'TEXT', audience: 'alice' });
      const c2 = card(w.page, t2);
      await c2.getByLabel('Your answer').fill('yes, all of it');
      const held2 = nextHeld();
      await c2.getByRole('button', { name: 'Submit' }).click();
      const route2 = await held2;
      await cancel(srv.url, b.question.id, 'the deploy window closed');
      await route2.continue();
      await c2
        .getByText('This question was cancelled (the deploy window closed): your answer was not recorded.')
        .waitFor();
      expect(await c2.getAttribute('data-status')).toBe('CANCELLED');
    } finally {
      await w.page.unroute('**/graphql');
    }
    await clearResolved();
  });

  it('a sensitive answer reaches the asker once and is never shown', async () => {
    const t = 'Paste the one-time recovery code';
    const asker = askAndWait(srv.url, {
      text: t,
      format: 'TEXT',
      audience: 'alice',
      sensitive: true,
    });
    const c = card(w.page, t);
    await c.getByText('sensitive').waitFor();
    await c.getByLabel('Your answer').fill('R3C0VERY-9981');
    await c.getByRole('button', { name: 'Submit' }).click();
    expect((await asker).answer).toBe('R3C0VERY-9981');
    await c.getByText('Your answer went to the asker; it is not stored or shown.').waitFor();
    expect(await w.page.getByText('R3C0VERY-9981').count()).toBe(0);
  });

  it('lists the history with who answered, when and what (never a sensitive answer)', async () => {
    const t = 'Which on-call rotation takes the pager tonight?';
    const asked = await ask(srv.url, {
      text: t,
      format: 'SELECT',
      options: ['Platform', 'Payments', 'Data'],
      audience: 'alice',
    });
    await answerAs(srv.url, 'ops', asked.question.id, 'Payments');
    const c = card(w.page, t);
    await c.locator('.outcome').getByText('by ops').waitFor();
    await w.page.getByRole('tab', { name: 'History' }).click();
    const history = w.page.locator('#panel-history');
    await history.locator('article', { hasText: t }).getByText('Payments').waitFor();
    await history
      .locator('article', { hasText: 'Paste the one-time recovery code' })
      .getByText('Sensitive: the answer is not stored or shown.')
      .waitFor();
    expect(await history.getByText('R3C0VERY-9981').count()).toBe(0);
    await history.locator('article[data-status="CANCELLED"]').getByText('the deploy window closed').waitFor();
    await history.locator('article[data-status="TIMED_OUT"]').first().waitFor();
    await history
      .locator('article', { hasText: 'Who is the customer contact' })
      .getByText('ada@example.com')
      .waitFor();
    await w.page.setViewportSize({ width: 1000, height: 1040 });
    await w.page.screenshot({ path: path.join(SHOTS, 'history.png') });
    await w.page.setViewportSize({ width: 1000, height: 860 });
    expect(await seriousViolations(w.page)).toEqual([]);
    await w.page.getByRole('tab', { name: /Pending/ }).click();
    await clearResolved();
  });

  it('has no critical or serious axe violations with every format on the page', async () => {
    const t = token();
    await ask(srv.url, { text: `Text ${t}`, format: 'TEXT', audience: 'alice', groupId: `g-${t}` });
    await ask(srv.url, { text: `Confirm ${t}`, format: 'CONFIRM', audience: 'alice', groupId: `g-${t}` });
    await ask(srv.url, { text: `Few ${t}`, format: 'SELECT', options: ['a', 'b'], audience: 'alice' });
    await ask(srv.url, {
      text: `Many ${t}`,
      format: 'SELECT',
      options: ['1', '2', '3', '4', '5', '6', '7'],
      audience: 'alice',
    });
    await ask(srv.url, {
      text: `Form ${t}`,
      format: 'FORM',
      audience: 'alice',
      schema: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'boolean', title: 'B' },
          c: { type: 'array', title: 'List', items: { type: 'string' } },
          d: { type: 'string', enum: ['x', 'y'] },
        },
      },
    });
    await ask(srv.url, {
      text: `External ${t}`,
      format: 'EXTERNAL',
      audience: 'alice',
      link: 'https://example.com/?cb={callback_url}',
      media: [
        { kind: 'IMAGE', url: previewPng(), caption: 'Chart' },
        { kind: 'LINK', url: 'https://example.com/doc', caption: 'Doc' },
      ],
    });
    await w.page
      .locator('article', { hasText: `Form ${t}` })
      .locator('form.rjsf')
      .waitFor();
    await card(w.page, `External ${t}`).waitFor();
    expect(await seriousViolations(w.page)).toEqual([]);
    for (const id of await idsOf(w.page.locator('article[data-status="PENDING"]'))) {
      await cancel(srv.url, id, 'test over');
    }
    await w.page.locator('article[data-status="PENDING"]').first().waitFor({ state: 'detached' });
  });
});

describe('a server restart', () => {
  it('shows "reconnecting" while the server is down, then re-syncs from a fresh SNAPSHOT', async () => {
    let a = await startInboxServer();
    const w = await openPage(browser);
    try {
      await signIn(w, a.url, 'ops');
      const t1 = token();
      const before = await ask(a.url, { text: `Asked before the restart ${t1}`, format: 'CONFIRM' });
      await card(w.page, t1).waitFor();

      await a.close();
      await w.page.getByTestId('reconnecting').waitFor();
      await w.page.locator('[data-testid="feed-status"][data-state="reconnecting"]').waitFor();

      // While the page is cut off, another instance on the same Redis changes things.
      const other = await startInboxServer({ prefix: a.prefix });
      const t2 = token();
      await cancel(other.url, before.question.id, 'changed while away');
      await ask(other.url, { text: `Asked while the page was away ${t2}`, format: 'TEXT' });
      await other.close();

      a = await startInboxServer({ port: a.port, prefix: a.prefix });
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor({ timeout: 30_000 });
      await w.page.getByTestId('reconnecting').waitFor({ state: 'detached' });
      // The fresh SNAPSHOT replaced the list: the cancelled question is gone, the new one is there.
      await card(w.page, t2).waitFor();
      await card(w.page, t1).waitFor({ state: 'detached' });
      const t3 = token();
      await ask(a.url, { text: `Asked after the restart ${t3}`, format: 'CONFIRM' });
      await card(w.page, t3).waitFor();
      expect(
        unexpected(
          w.problems,
          /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|status of 503|ERR_INCOMPLETE_CHUNKED/,
        ),
      ).toEqual([]);

      // A server that no longer knows the key: the feed's 401 sends the page back to sign-in.
      await a.close();
      a = await startInboxServer({ port: a.port, prefix: a.prefix, only: ['agent', 'alice'] });
      await w.page
        .getByRole('alert')
        .filter({ hasText: 'Your API key was refused (401)' })
        .waitFor({ timeout: 30_000 });
      await w.page.getByLabel('API key').waitFor();
    } finally {
      await w.close();
      await a.close();
    }
  }, 90_000);
});

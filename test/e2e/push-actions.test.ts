// Answering from a notification (API.md §19), in headless Chromium: the inbox's service worker's
// notification-action handler, dispatched inside the worker as a tap on "Approve" would, answers
// the CONFIRM question with the person's session cookie, without the page doing anything; a
// second tap on an answered question is refused and said so.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeople } from '../../src/engine/people/people.ts';
import { type FakePushService, startFakePushService } from '../support/fake-push-service.ts';
import {
  askAndWait,
  buildInbox,
  KEYS,
  launchChromium,
  openPage,
  openSettings,
  type RunningServer,
  startInboxServer,
} from './harness.ts';

let browser: Browser;
let srv: RunningServer;
let pushService: FakePushService;

beforeAll(async () => {
  await buildInbox();
  pushService = await startFakePushService();
  [browser, srv] = await Promise.all([
    launchChromium(),
    startInboxServer({ env: { INTERACTIONS_PUSH_HOSTS: new URL(pushService.origin).host } }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await pushService?.close();
});

describe('notification actions', () => {
  it('Approve in a notification answers the question as the signed-in person', async () => {
    const w = await openPage(browser);
    try {
      // A session as sign-in would open it (the OIDC flow itself is test/e2e/oidc-sign-in.test.ts).
      const people = createPeople(srv.server.store.people);
      const person = {
        id: 'oidc:ada',
        name: 'Ada Lovelace',
        roles: ['operator'] as const,
        restricted: false,
      };
      const session = await people.openSession(
        { ...person, roles: [...person.roles] },
        Date.now() + 3600_000,
      );
      await w.context.addCookies([
        { name: 'tai_session', value: session, url: srv.url, httpOnly: true, sameSite: 'Lax' },
      ]);
      await w.context.grantPermissions(['notifications'], { origin: srv.url });
      const registered = w.context.waitForEvent('serviceworker');
      await w.page.goto(`${srv.url}/`);
      await openSettings(w.page);
      await w.page.getByText('Signed in as Ada Lovelace').waitFor();
      const worker = w.context.serviceWorkers()[0] ?? (await registered);
      await w.page.evaluate('navigator.serviceWorker.ready');

      const text = `Restart the billing service #${Math.random().toString(36).slice(2, 8)}?`;
      const asker = askAndWait(srv.url, { text, format: 'CONFIRM' });
      const id = await expect
        .poll(async () => (await srv.server.store.pending({})).find((q) => q.text === text)?.id)
        .toBeTruthy()
        .then(async () => (await srv.server.store.pending({})).find((q) => q.text === text)?.id);

      const tap = (action: string) =>
        worker.evaluate(
          ([qid, act]) => {
            const notification = {
              data: { id: qid, url: '/', answers: { approve: true, reject: false } },
              close() {},
            };
            // biome-ignore lint/suspicious/noExplicitAny: the worker's own global, set by sw.js.
            return (self as any).onNotificationClick(notification, act);
          },
          [id, action] as const,
        );
      expect(await tap('approve')).toEqual({ ok: true });
      const result = await asker;
      expect(result.answer).toBe(true);
      expect(result.question.answeredBy).toBe('oidc:ada');

      const again = (await tap('reject')) as { ok: boolean; message: string };
      expect(again.ok).toBe(false);
      expect(again.message).toMatch(/already/i);
    } finally {
      await w.close();
    }
  });

  it('the settings panel sends a test notification to the person’s devices', async () => {
    const device = pushService.device('ops-laptop');
    const saved = await fetch(`${srv.url}/api/interactions/push/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.ops}`, 'content-type': 'application/json' },
      body: JSON.stringify(device.subscription),
    });
    expect(saved.status).toBe(201);
    const w = await openPage(browser);
    try {
      await w.page.goto(`${srv.url}/#key=${KEYS.ops}`);
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      await openSettings(w.page);
      const panel = w.page.getByTestId('push-settings');
      await panel.getByRole('button', { name: 'Turn on notifications' }).waitFor();
      const arrives = pushService.next('ops-laptop');
      await panel.getByRole('button', { name: 'Send a test notification' }).click();
      expect((await arrives).payload).toMatchObject({ title: 'Test notification', actions: [] });
      await panel.getByRole('status').filter({ hasText: 'Test notification sent to 1 device.' }).waitFor();
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

// "Approve and allow for 1 hour" in the inbox (API.md §20), in real headless Chromium against a
// real server on Redis: the button sits next to Approve, approves the question, and gives a
// grant that decides the same ask of the same agent at once; a question that needs two
// approvals does not offer it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  askAndWait,
  buildInbox,
  card,
  launchChromium,
  openPage,
  type RunningServer,
  signIn,
  startInboxServer,
  unique,
  type Watched,
} from './harness.ts';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let srv: RunningServer;
let w: Watched;

beforeAll(async () => {
  await buildInbox();
  [browser, srv] = await Promise.all([launchChromium(), startInboxServer()]);
  w = await openPage(browser);
  await signIn(w, srv.url, 'ops');
}, 60_000);

afterAll(async () => {
  expect(w?.dialogs).toEqual([]);
  await w?.close();
  await browser?.close();
  await srv?.close();
});

describe('grants in the inbox', () => {
  it('"Approve and allow for 1 hour" approves, and the same ask is then decided by the grant', async () => {
    const text = unique('Restart the web pool?');
    const input = {
      text,
      format: 'APPROVAL',
      action: { name: 'ops.restart', summary: 'Restart web', arguments: { pool: 'web' } },
    };
    const asker = askAndWait(srv.url, input);
    const c = card(w.page, text);
    await c.waitFor();
    const buttons = await c.locator('.actions button').allTextContents();
    expect(buttons.slice(0, 3)).toEqual(['Approve', 'Approve and allow for 1 hour', 'Reject']);
    await c.getByRole('button', { name: 'Approve and allow for 1 hour' }).click();
    const result = await asker;
    expect(result.status).toBe('ANSWERED');
    expect(result.answer).toEqual({ decision: 'APPROVED', arguments: { pool: 'web' } });

    const again = await ask(srv.url, { ...input, text: unique('Restart the web pool again?') });
    expect(again.status).toBe('ANSWERED');
    expect(again.question.answeredBy).toMatch(/^policy:grant-[0-9a-f]{16}$/);
    // Other arguments are still asked.
    const other = await ask(srv.url, { ...input, action: { ...input.action, arguments: { pool: 'api' } } });
    expect(other.status).toBe('PENDING');
  });

  it('a question that needs two approvals does not offer it', async () => {
    const text = unique('Rotate every key?');
    await ask(srv.url, {
      text,
      format: 'APPROVAL',
      action: { name: 'keys.rotate', arguments: {} },
      quorum: { approvals: 2 },
    });
    const c = card(w.page, text);
    await c.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    expect(await c.getByRole('button', { name: 'Approve and allow for 1 hour' }).count()).toBe(0);
  });
});

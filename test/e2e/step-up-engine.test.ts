// Step-up for HIGH approvals (API.md §23) with a real authenticator: headless Chromium's virtual
// authenticator (CDP WebAuthn domain, user verification on) signs the server's options through
// @simplewebauthn/browser on a page of the relying party's origin (http://localhost:<port>), and
// the engine — on both stores, with a clock the test moves — checks them with
// @simplewebauthn/server. Covered: registration needs a fresh sign-in and is audited; a HIGH
// approval needs the assertion (every plain door refuses with STEP_UP_REQUIRED and a link); a
// rejection needs none; the receipt and the audit entry carry the assurance and the credential;
// an assertion made for another question, for other arguments, replayed, or older than 5 minutes
// is refused.
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { presentOn } from '../../src/domain/presentation.ts';
import { presentedDigestOf } from '../../src/domain/presented-digest.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createPeople } from '../../src/engine/people/people.ts';
import { AGENT, type EngineSet, OPS, startEngines } from '../support/engines.ts';
import { freePort } from '../support/fixtures.ts';
import { launchChromium, REPO_ROOT } from './harness.ts';

const BUNDLE = path.join(REPO_ROOT, 'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js');
const FIVE_MINUTES = 5 * 60 * 1000;

let browser: Browser;
let rpServer: Server;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  rpServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>rp</title>');
  });
  await new Promise<void>((resolve) => rpServer.listen(port, '127.0.0.1', resolve));
  // Browsers refuse an IP address as a relying party id: localhost is a secure context.
  origin = `http://localhost:${port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => rpServer?.close(resolve));
});

/** A page of the relying party with a user-verifying virtual authenticator and the browser library. */
async function authenticatorPage(): Promise<{ page: Page; cdp: CDPSession; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.addScriptTag({ path: BUNDLE });
  return { page, cdp, close: () => context.close() };
}

const register = (page: Page, optionsJSON: unknown) =>
  page.evaluate(
    // biome-ignore lint/suspicious/noExplicitAny: the UMD bundle's global.
    (o) => (globalThis as any).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: o }),
    optionsJSON,
  );
const assert = (page: Page, optionsJSON: unknown) =>
  page.evaluate(
    // biome-ignore lint/suspicious/noExplicitAny: the UMD bundle's global.
    (o) => (globalThis as any).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: o }),
    optionsJSON,
  );

/** A thrown DomainError's code and extra facts. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; more?: Record<string, string> }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: string; more?: Record<string, string> };
    return { code: e.code, ...(e.more ? { more: e.more } : {}) };
  }
  throw new Error('expected a refusal');
}

const PERSON: Principal & { name: string } = { ...OPS, id: 'oidc:ada', name: 'Ada' };
const APPROVE = { decision: 'APPROVED' };

describe.each(['memory', 'redis'] as const)('step-up with a passkey (%s store)', (kind) => {
  let set: EngineSet;
  let now = Date.now();
  let ui: Awaited<ReturnType<typeof authenticatorPage>>;
  const engine = () => set.engines[0]!;
  const session = () => createPeople(set.stores[0]!.people, () => now).openSession(PERSON, now + 3_600_000);
  const EDITABLE = {
    editable: true,
    argumentsSchema: { type: 'object', properties: { amount: { type: 'number' } } },
  };
  const askHigh = async (amount = 100, more: Record<string, unknown> = {}) =>
    (
      await engine().ask(
        AGENT,
        {
          text: `Wire ${amount} EUR?`,
          format: 'APPROVAL',
          action: {
            name: 'payments.wire',
            summary: 'A wire',
            arguments: { amount },
            assurance: 'HIGH',
            ...more,
          },
        },
        { holdSeconds: 0 },
      )
    ).question;

  beforeAll(async () => {
    // Two engines on one store: a challenge handed out by one is checked by the other.
    set = await startEngines(kind, 2, { publicBaseUrl: origin }, { clock: () => now });
    ui = await authenticatorPage();
  }, 60_000);
  afterAll(async () => {
    await ui?.close();
    await set?.close();
  });

  it('registers a passkey only after a fresh sign-in, and audits it', async () => {
    const stale = await session();
    now += FIVE_MINUTES;
    expect(await refusal(engine().passkeyRegistrationOptions(PERSON, stale))).toEqual({
      code: 'FORBIDDEN',
      more: { reason: 'FRESH_SIGN_IN_REQUIRED' },
    });
    // A key (no session) cannot register at all.
    expect((await refusal(engine().passkeyRegistrationOptions(PERSON, null))).code).toBe('FORBIDDEN');

    const fresh = await session();
    now += FIVE_MINUTES - 1;
    const options = await engine().passkeyRegistrationOptions(PERSON, fresh);
    const credentialId = await engine().registerPasskey(PERSON, fresh, await register(ui.page, options));
    expect(await engine().passkeyIds(PERSON)).toEqual([credentialId]);
    const audit = await set.stores[0]!.audit.page({ first: 100, types: ['PASSKEY_REGISTERED'] });
    expect(audit.entries.map((e) => [e.actor, e.detail])).toEqual([['oidc:ada', { credentialId }]]);
  });

  it('a HIGH approval needs the assertion; a rejection does not', async () => {
    const q = await askHigh(100);
    const plain = await refusal(engine().answer(PERSON, q.id, APPROVE));
    expect(plain.code).toBe('FORBIDDEN');
    expect(plain.more).toEqual({ reason: 'STEP_UP_REQUIRED', url: `${origin}/?question=${q.id}` });
    expect((await engine().get(OPS, q.id))?.status).toBe('PENDING');

    const options = await engine().stepUpOptions(PERSON, q.id, APPROVE);
    const other = set.engines[1]!;
    const done = await other.answerWithPasskey(PERSON, q.id, APPROVE, await assert(ui.page, options));
    const [credentialId] = await engine().passkeyIds(PERSON);
    const shown = presentedDigestOf(presentOn('inbox', done.action!, { amount: 100 }));
    expect(done.status).toBe('ANSWERED');
    expect(done.evidence).toEqual({ presentedDigest: shown, assurance: 'webauthn-uv', credentialId });
    expect(receiptClaimsOf(done, 'https://issuer.example')!.outcome).toMatchObject({
      decision: 'APPROVED',
      assurance: 'webauthn-uv',
      credentialId,
      presentedDigest: shown,
    });
    const audit = await set.stores[0]!.audit.page({ first: 10, questionId: q.id, types: ['ANSWERED'] });
    expect(audit.entries[0]!.detail).toMatchObject({
      assurance: 'webauthn-uv',
      credentialId,
      presentedDigest: shown,
    });

    const rejected = await askHigh(101);
    const r = await engine().answer(PERSON, rejected.id, { decision: 'REJECTED' });
    expect(r.status).toBe('ANSWERED');
    expect(r.evidence?.assurance).toBeUndefined();
  });

  it('refuses an assertion made for another question, for other arguments, replayed, or stale', async () => {
    const a = await askHigh(200);
    const b = await askHigh(201, EDITABLE);
    const forA = await assert(ui.page, await engine().stepUpOptions(PERSON, a.id, APPROVE));
    // Made for A, offered for B: B has no challenge of this person (and A's is bound to A).
    const other = await refusal(engine().answerWithPasskey(PERSON, b.id, APPROVE, forA));
    expect(other).toMatchObject({ code: 'FORBIDDEN', more: { reason: 'STEP_UP_REQUIRED' } });
    // Made for B's challenge with its own arguments, offered with other arguments.
    const forB = await assert(ui.page, await engine().stepUpOptions(PERSON, b.id, APPROVE));
    const edited = { decision: 'APPROVED', arguments: { amount: 999 } };
    expect((await refusal(engine().answerWithPasskey(PERSON, b.id, edited, forB))).more?.reason).toBe(
      'STEP_UP_REQUIRED',
    );
    // The challenge was taken by that try: the same assertion again is refused too.
    expect((await refusal(engine().answerWithPasskey(PERSON, b.id, APPROVE, forB))).code).toBe('FORBIDDEN');
    expect((await engine().get(OPS, b.id))?.status).toBe('PENDING');

    // Stale: the assertion is good, but over 5 minutes passed since its challenge.
    const options = await engine().stepUpOptions(PERSON, a.id, APPROVE);
    const late = await assert(ui.page, options);
    now += FIVE_MINUTES + 1;
    expect((await refusal(engine().answerWithPasskey(PERSON, a.id, APPROVE, late))).more?.reason).toBe(
      'STEP_UP_REQUIRED',
    );
    expect((await engine().get(OPS, a.id))?.status).toBe('PENDING');
    // Within the 5 minutes, the same person approves it.
    const fresh = await assert(ui.page, await engine().stepUpOptions(PERSON, a.id, APPROVE));
    now += FIVE_MINUTES - 1;
    expect((await engine().answerWithPasskey(PERSON, a.id, APPROVE, fresh)).status).toBe('ANSWERED');
  });
});

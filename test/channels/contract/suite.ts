// The channel contract (API.md §9): what every channel does, whatever its medium, checked the
// same way for each through a harness (harness.ts says how a channel adds one: one file). The real
// server runs on the test Redis with a manifest naming the channel, against the harness's fake
// of the provider; questions are asked over GraphQL and answered as a person would answer them.
//
// - every format is delivered with the question's text, SELECT with its options, FORM and
//   EXTERNAL with a page to open; an escalation's REMIND step reaches the person;
// - a sensitive answer is never shown, in the delivery or afterwards;
// - after an answer elsewhere (the inbox), a timeout or a cancel the message shows the outcome;
// - the inbound door: a signed answer is recorded as `<channel>:<user>`, a replay changes nothing,
//   one changed byte of what is signed is a 401, forged requests are never a 500 and never answer,
//   and no forged request up to the door's cap blocks the event loop for more than 50 ms;
// - a channel without inbound requests has the uniform 404 as its door and is answered through
//   the callback door.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt, manifestOf, startChannelServer } from '../../support/channel-server.ts';
import { leastLoopDelay } from '../../support/loop-delay.ts';
import type { TestServer } from '../../support/server.ts';
import type { AskedQuestion, ChannelHarness, Delivered, InboundHttp, Signed } from './harness.ts';
import { checkPresentation, LONG_ACTION, pluginOfLines } from './presentation.ts';
import { separationOfDuties } from './separation.ts';

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  callbackUrl question { id } } }`;
const UNIFORM_404 = '{"error":"not found","code":"NOT_FOUND"}';

interface QuestionState {
  status: string;
  answer: unknown;
  answeredBy: string | null;
}

export function runChannelContract(h: ChannelHarness): void {
  let t: TestServer;
  let base: string;
  let seq = 0;
  let plugin: string | undefined;
  const gql = graphqlAt(() => base);
  /** A text no other question of this run has, so deliveries and edits are found by it. */
  const unique = (text: string) => `${text} #${++seq}`;

  beforeAll(async () => {
    const { lines, env } = await h.start();
    plugin = pluginOfLines(lines);
    const manifest = await manifestOf(['channels:', ...lines], env);
    t = await startChannelServer(manifest);
    base = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  async function ask(input: Record<string, unknown>): Promise<{ id: string; callbackUrl: string }> {
    const r = await gql(ASK, { input: { channel: h.channel, ...input } });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return { id: r.data!.askUser.question.id, callbackUrl: r.data!.askUser.callbackUrl };
  }

  async function question(id: string): Promise<QuestionState> {
    const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
    return r.data!.question as QuestionState;
  }

  const inboundUrl = () => `${base}/api/interactions/channels/${encodeURIComponent(h.channel)}`;
  const post = (req: InboundHttp) =>
    fetch(inboundUrl(), { method: 'POST', headers: req.headers, body: new Uint8Array(req.body) });
  const shows = (d: Delivered, text: string) => d.strings.some((s) => s.includes(text));

  describe(`channel contract: ${h.channel}`, () => {
    it('delivers every format with the text; SELECT with its options; FORM and EXTERNAL with a page to open', async () => {
      const text = unique('Which path');
      await ask({ text: `${text} (TEXT)?`, format: 'TEXT' });
      expect(shows(await h.delivered(`${text} (TEXT)?`), `${text} (TEXT)?`)).toBe(true);
      await ask({ text: `${text} (CONFIRM)?`, format: 'CONFIRM' });
      expect(shows(await h.delivered(`${text} (CONFIRM)?`), `${text} (CONFIRM)?`)).toBe(true);
      const options = ['north-lane', 'south-lane', 'east-lane'];
      await ask({ text: `${text} (SELECT)?`, format: 'SELECT', options });
      const select = await h.delivered(`${text} (SELECT)?`);
      for (const option of options) expect(shows(select, option), option).toBe(true);
      const schema = { type: 'object', properties: { lane: { type: 'string' } }, required: ['lane'] };
      const form = await ask({ text: `${text} (FORM)?`, format: 'FORM', schema });
      expect(shows(await h.delivered(`${text} (FORM)?`), form.callbackUrl)).toBe(true);
      const link = `https://tickets.example/change/${seq}?done={callback_url}`;
      const external = await ask({ text: `${text} (EXTERNAL)?`, format: 'EXTERNAL', link });
      const page = await h.delivered(`${text} (EXTERNAL)?`);
      // The question's link itself, or the callback page that leads to it.
      expect(
        shows(page, `https://tickets.example/change/${seq}?done=`) || shows(page, external.callbackUrl),
      ).toBe(true);
    });

    it('an APPROVAL shows what its presentation object says; presentedDigest digests that (API.md §23)', async () => {
      const text = unique('Approve the supplier wire?');
      await ask({ text, format: 'APPROVAL', action: LONG_ACTION });
      checkPresentation(plugin, h.channel, await h.delivered(text));
    });

    it('a REMIND step reaches the person while nobody answers (API.md §18)', async () => {
      const text = unique('Still waiting on the rollback call?');
      const { id } = await ask({
        text,
        format: 'CONFIRM',
        timeoutSeconds: 300,
        escalation: [{ action: 'REMIND', afterSeconds: 10 }],
      });
      await h.delivered(text);
      const reminder = await h.reminded(text);
      expect(reminder.strings.join('\n')).toMatch(/remind/i);
      expect(shows(reminder, text)).toBe(true);
      expect((await question(id)).status).toBe('PENDING');
    }, 60_000);

    it('a sensitive answer is never shown, in the delivery or afterwards', async () => {
      const text = unique('The rotation passphrase?');
      const { id } = await ask({ text, format: 'TEXT', sensitive: true });
      const delivered = await h.delivered(text);
      const secret = `never-shown-${seq}-passphrase`;
      const r = await gql(
        'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }',
        {
          id,
          a: secret,
        },
        'ops',
      );
      expect(r.errors).toBeUndefined();
      expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: null });
      expect(shows(delivered, secret)).toBe(false);
      if (h.resolved) {
        const edit = await h.resolved.edited(text);
        expect(shows(edit, secret)).toBe(false);
      }
    });

    if (h.resolved) {
      const resolved = h.resolved;
      it('after an answer in the inbox, a timeout or a cancel, the message shows the outcome', async () => {
        const inbox = unique('Answered in the inbox?');
        const a = await ask({ text: inbox, format: 'CONFIRM' });
        const r = await gql(
          'mutation($id: ID!) { answer(id: $id, answer: false) { status } }',
          { id: a.id },
          'ops',
        );
        expect(r.errors).toBeUndefined();
        expect((await resolved.edited(inbox)).strings.join('\n')).toMatch(resolved.says.inbox);

        const late = unique('Left to time out?');
        await ask({ text: late, format: 'CONFIRM', timeoutSeconds: 1 });
        expect((await resolved.edited(late)).strings.join('\n')).toMatch(resolved.says.timedOut);

        const dropped = unique('Cancelled before anyone saw it?');
        const c = await ask({ text: dropped, format: 'CONFIRM' });
        const reason = `superseded by change ${seq}`;
        const cancel = await gql(
          'mutation($id: ID!, $reason: String) { cancelQuestion(id: $id, reason: $reason) { status } }',
          { id: c.id, reason },
        );
        expect(cancel.errors).toBeUndefined();
        expect((await resolved.edited(dropped)).strings.join('\n')).toMatch(resolved.says.cancelled(reason));
      });

      it('an approval edited in the inbox shows "Approved with changes" in the channel', async () => {
        const text = unique('Refund the customer?');
        const a = await ask({
          text,
          format: 'APPROVAL',
          action: {
            name: 'payments.refund',
            arguments: { amount: 100 },
            argumentsSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
            editable: true,
          },
        });
        const r = await gql(
          'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED", arguments: {amount: 60}}) { edited } }',
          { id: a.id },
          'ops',
        );
        expect(r.errors).toBeUndefined();
        expect((await resolved.edited(text)).strings.join('\n')).toMatch(resolved.says.approvedWithChanges);
      });
    }

    if (h.inbound) {
      const inbound = h.inbound;
      async function asked(
        text: string,
        format: 'CONFIRM' | 'SELECT',
        options: string[] | null = null,
      ): Promise<AskedQuestion> {
        const { id } = await ask({ text, format, ...(options ? { options } : {}) });
        return { id, format, options, delivered: await h.delivered(text) };
      }

      it('a signed CONFIRM answer is recorded as <channel>:<user>; a replay and a later answer change nothing', async () => {
        const q = await asked(unique('Roll the canary forward?'), 'CONFIRM');
        const yes = inbound.answer(q, { confirm: true });
        expect((await post(yes)).status).toBe(200);
        const answered = { status: 'ANSWERED', answer: true, answeredBy: `${h.channel}:${inbound.by}` };
        expect(await question(q.id)).toEqual(answered);
        // The provider retries, or someone sends the captured request again.
        expect((await post(yes)).status).toBe(200);
        expect(await question(q.id)).toEqual(answered);
        const no = await post(inbound.answer(q, { confirm: false }));
        expect(no.status).toBeLessThan(500);
        expect(await question(q.id)).toEqual(answered);
      });

      it('on a quorum question a signed press is one vote by <channel>:<user>; the same press again and another vote count nothing (API.md §15)', async () => {
        const text = unique('Two people to rotate the keys?');
        const { id } = await ask({ text, format: 'CONFIRM', quorum: { approvals: 2 } });
        const q: AskedQuestion = { id, format: 'CONFIRM', options: null, delivered: await h.delivered(text) };
        const votes = async () =>
          (
            await gql(
              'query($id: ID!) { question(id: $id) { status votes { by via decision } } }',
              { id },
              'ops',
            )
          ).data!.question;
        const one = {
          status: 'PENDING',
          votes: [{ by: `${h.channel}:${inbound.by}`, via: `channel:${h.channel}`, decision: 'APPROVED' }],
        };
        expect((await post(inbound.answer(q, { confirm: true }))).status).toBe(200);
        expect(await votes()).toEqual(one);
        // The same press again (a retry, or the captured request): success, nothing counted.
        expect((await post(inbound.answer(q, { confirm: true }))).status).toBe(200);
        expect(await votes()).toEqual(one);
        // Another vote by the same person: refused, nothing counted.
        expect((await post(inbound.answer(q, { confirm: false }))).status).toBeLessThan(500);
        expect(await votes()).toEqual(one);
        // A second identity, through the inbox's door, decides.
        await gql('mutation($id: ID!) { answer(id: $id, answer: true) { status } }', { id }, 'ops');
        expect((await votes()).status).toBe('ANSWERED');
      });

      it('a signed SELECT answer records the chosen option', async () => {
        const options = ['blue', 'green', 'amber'];
        const q = await asked(unique('Which pool takes traffic?'), 'SELECT', options);
        expect((await post(inbound.answer(q, { select: 2 }))).status).toBe(200);
        expect(await question(q.id)).toMatchObject({ status: 'ANSWERED', answer: 'amber' });
      });

      it('one changed byte of what is signed is a 401, and the question stays pending (property)', async () => {
        const q = await asked(unique('Tampered with?'), 'CONFIRM');
        const good = inbound.answer(q, { confirm: true });
        const positions = changeablePositions(inbound.signed, good);
        const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...positions), fc.constantFrom(...alnum), async (at, char) => {
            const req = withByte(inbound.signed, good, at, char.charCodeAt(0));
            if (req === null) return;
            expect((await post(req)).status).toBe(401);
          }),
          { numRuns: 40 },
        );
        expect((await question(q.id)).status).toBe('PENDING');
      });

      it('forged requests are never a 500 and never answer (property)', async () => {
        const q = await asked(unique('Forged at?'), 'CONFIRM');
        await fc.assert(
          fc.asyncProperty(inbound.forged, async (req) => {
            const res = await post(req);
            await res.arrayBuffer();
            expect(res.status).toBeLessThan(500);
          }),
          { numRuns: 60 },
        );
        expect((await question(q.id)).status).toBe('PENDING');
      });

      it('no forged request up to the door cap blocks the event loop for more than 50 ms', async () => {
        const q = await asked(unique('Flooded?'), 'CONFIRM');
        const good = inbound.answer(q, { confirm: true });
        // As large as the door takes: the answer with one signed byte changed, padded with what
        // its format ignores (`&` between form fields, whitespace after JSON or a multipart end).
        const at = changeablePositions(inbound.signed, good)[0]!;
        const tampered = withByte(
          inbound.signed,
          good,
          at,
          signedMaterial(inbound.signed, good)[at] === 0x41 ? 0x42 : 0x41,
        )!;
        const form = (good.headers['content-type'] ?? '').includes('x-www-form-urlencoded');
        const pad = Buffer.alloc(Math.max(0, inbound.maxBytes - tampered.body.length), form ? '&' : ' ');
        const forged: InboundHttp = { ...tampered, body: Buffer.concat([tampered.body, pad]) };
        let status = 0;
        // Sent in 64 KiB chunks, as a body arrives from the network: one in-process write of tens
        // of megabytes (e-mail doors take the provider's whole message) would block this loop itself.
        const chunks = function* () {
          for (let i = 0; i < forged.body.length; i += 65_536) yield forged.body.subarray(i, i + 65_536);
        };
        const delay = await leastLoopDelay(async () => {
          const res = await fetch(inboundUrl(), {
            method: 'POST',
            headers: { ...forged.headers, 'content-length': String(forged.body.length) },
            body: Readable.toWeb(Readable.from(chunks())) as ReadableStream,
            duplex: 'half',
          } as RequestInit);
          await res.arrayBuffer();
          status = res.status;
        }, 50);
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
        expect(delay).toBeLessThan(50);
        expect((await question(q.id)).status).toBe('PENDING');
      });

      separationOfDuties({ inbound, channel: h.channel, ask, delivered: h.delivered, post, gql, unique });
    } else {
      it('takes no inbound requests: its door is the uniform 404, and the callback door answers', async () => {
        const res = await post({ body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(404);
        expect(await res.text()).toBe(UNIFORM_404);
        const text = unique('Answered through the callback door?');
        const { id, callbackUrl } = await ask({ text, format: 'CONFIRM' });
        await h.delivered(text);
        const door = `${base}${new URL(callbackUrl).pathname}`;
        const answered = await fetch(door, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answer: true }),
        });
        expect(answered.status).toBe(200);
        expect(await question(id)).toEqual({ status: 'ANSWERED', answer: true, answeredBy: 'callback' });
      });
    }
  });
}

/** The bytes of what is signed: a header's value, or the body. */
function signedMaterial(signed: Signed, req: InboundHttp): Buffer {
  return typeof signed === 'object' && 'header' in signed
    ? Buffer.from(req.headers[signed.header]!, 'latin1')
    : req.body;
}

/**
 * Positions in the signed material whose change changes the content: letters and digits only,
 * never the two hex digits of a %XX escape (`%2F` and `%2f` encode the same byte in a form
 * body), and for form fields only inside the signed ones.
 */
function changeablePositions(signed: Signed, req: InboundHttp): number[] {
  const material = signedMaterial(signed, req);
  return [...material.keys()].filter(
    (i) =>
      /[A-Za-z0-9]/.test(String.fromCharCode(material[i]!)) &&
      material[i - 1] !== 0x25 &&
      material[i - 2] !== 0x25 &&
      inSignedField(signed, material, i),
  );
}

/** The request with byte `at` of its signed material set to `byte`; null when that is no change. */
function withByte(signed: Signed, req: InboundHttp, at: number, byte: number): InboundHttp | null {
  const changed = Buffer.from(signedMaterial(signed, req));
  if (changed[at] === byte) return null;
  changed[at] = byte;
  return typeof signed === 'object' && 'header' in signed
    ? { ...req, headers: { ...req.headers, [signed.header]: changed.toString('latin1') } }
    : { ...req, body: changed };
}

/** Whether byte `i` of a form body lies in the value of one of the signed fields (always, for other kinds). */
function inSignedField(signed: Signed, body: Buffer, i: number): boolean {
  if (typeof signed !== 'object' || !('bodyFields' in signed)) return true;
  const text = body.toString('latin1');
  const start = text.lastIndexOf('&', i - 1) + 1;
  const eq = text.indexOf('=', start);
  return eq >= 0 && eq < i && signed.bodyFields.includes(text.slice(start, eq));
}

/** Every string leaf of a JSON-like value (how harnesses turn a provider call into `Delivered`). */
export function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) stringsOf(v, into);
  return into;
}

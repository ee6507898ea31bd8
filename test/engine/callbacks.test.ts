// The callback door's engine side (API.md §7 steps 2–6), channels, and prepared externals.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { CallbackRequest } from '../../src/engine/answers/callbacks.ts';
import type { ChannelPort, VerifierPort } from '../../src/engine/ports.ts';
import { codeOf } from '../support/domain-errors.ts';
import type { Engine, EngineSet, StoreKind } from '../support/engines.ts';
import { ADMIN, AGENT, AGENT2, ALICE, OPS, startEngines } from '../support/engines.ts';

/** A verifier for tests: the header x-test-signature must equal "good"; secret "missing" cannot run. */
const testVerifiers: VerifierPort = {
  names: () => new Set(['test-sig']),
  checkConfig(_name, config) {
    if (config.secretEnv !== undefined && typeof config.secretEnv !== 'string') {
      throw new DomainError(
        'BAD_USER_INPUT',
        'secretEnv must name a variable',
        'input.verifier.config.secretEnv',
      );
    }
  },
  signsBody: () => true,
  verify(_name, config, req) {
    if (config.secretEnv === 'missing') return 'unavailable';
    return req.headers['x-test-signature'] === 'good' ? 'ok' : 'failed';
  },
};

function testChannel(): ChannelPort & { sent: { q: QuestionRecord; url: string }[]; failNext: boolean } {
  const ch = {
    sent: [] as { q: QuestionRecord; url: string }[],
    failNext: false,
    names: () => new Set(['pager']),
    async deliver(q: QuestionRecord, url: string) {
      if (ch.failNext) {
        ch.failNext = false;
        throw new Error('pager is down');
      }
      ch.sent.push({ q, url });
    },
  };
  return ch;
}

const ticketOf = (url: string): string => url.split('/').at(-1)!;

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`callbacks on the ${kind} store`, () => {
    let set: EngineSet;
    let engine: Engine;
    let channel: ReturnType<typeof testChannel>;

    beforeEach(async () => {
      channel = testChannel();
      set = await startEngines(kind, 1, {}, { verifiers: testVerifiers, channels: channel });
      engine = set.engines[0]!;
    });
    afterEach(async () => {
      await set.close();
    });

    const call = (ticket: string, over: Partial<CallbackRequest> = {}) =>
      engine.callback({ ticket, body: Buffer.alloc(0), headers: {}, query: {}, ...over });
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));

    async function external(extra: Record<string, unknown> = {}) {
      const r = await engine.ask(
        AGENT,
        { text: 'Sign', format: 'EXTERNAL', link: 'https://sign.example/?cb={callback_url}', ...extra },
        { holdSeconds: 0 },
      );
      return { id: r.question.id, ticket: ticketOf(r.callbackUrl!) };
    }

    it('unknown, malformed and not-yet-asked tickets are one NOT_FOUND', async () => {
      const prepared = await engine.prepareExternal(AGENT);
      for (const t of ['x'.repeat(43), 'short', '', ticketOf(prepared.callbackUrl), '../../etc/passwd']) {
        await expect(call(t)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'not found' });
        expect(await engine.callbackPage(t)).toEqual({ kind: 'not-found' });
      }
    });

    it('a JSON object body answers an EXTERNAL question; a retry is already_answered', async () => {
      const q = await external();
      expect(await call(q.ticket, { body: json({ signed: true, n: 1.5 }) })).toBe('answered');
      const rec = await engine.get(OPS, q.id);
      expect(rec).toMatchObject({
        status: 'ANSWERED',
        answer: { signed: true, n: 1.5 },
        answeredBy: 'callback',
      });
      expect(await call(q.ticket, { body: json({ signed: false }) })).toBe('already_answered');
      expect((await engine.get(OPS, q.id))?.answer).toEqual({ signed: true, n: 1.5 });
    });

    it('an empty body makes the query parameters the answer; repeated keys become lists', async () => {
      const q = await external();
      expect(await call(q.ticket, { query: { approved: 'true', tag: ['a', 'b'] } })).toBe('answered');
      expect((await engine.get(OPS, q.id))?.answer).toEqual({ approved: 'true', tag: ['a', 'b'] });
    });

    it('an invalid payload is BAD_USER_INPUT and the question stays pending', async () => {
      const q = await external({
        schema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
      });
      await expect(call(q.ticket, { body: Buffer.from('[1,2]') })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
      });
      await expect(call(q.ticket, { body: Buffer.from('{nope') })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
      });
      await expect(call(q.ticket, { body: json({ approved: 'yes' }) })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'answer.approved',
      });
      expect((await engine.get(OPS, q.id))?.status).toBe('PENDING');
      expect(await call(q.ticket, { body: json({ approved: true }) })).toBe('answered');
    });

    it('a closed question refuses its callback with QUESTION_CLOSED', async () => {
      const q = await external();
      await engine.cancel(AGENT, q.id);
      expect(await codeOf(call(q.ticket, { body: json({}) }))).toBe('QUESTION_CLOSED');
      // An EXTERNAL question's pages never name it (its URL may sit with a third party).
      expect(await engine.callbackPage(q.ticket)).toEqual({ kind: 'closed', about: null });
    });

    it('a bound verifier runs first: bad signature 401 pending or answered; empty body 400; no secret 500', async () => {
      const q = await external({ verifier: { name: 'test-sig', config: { secretEnv: 'S' } } });
      expect((await engine.get(OPS, q.id))?.link).toBeNull();
      expect(await engine.callbackPage(q.ticket)).toEqual({ kind: 'not-found' });
      const bad = { body: json({ ok: true }), headers: { 'x-test-signature': 'bad' } };
      expect(await codeOf(call(q.ticket, bad))).toBe('UNAUTHENTICATED');
      expect(
        await codeOf(
          call(q.ticket, { query: { approved: 'true' }, headers: { 'x-test-signature': 'good' } }),
        ),
      ).toBe('BAD_USER_INPUT');
      expect((await engine.get(OPS, q.id))?.status).toBe('PENDING');
      expect(
        await call(q.ticket, { body: json({ ok: true }), headers: { 'x-test-signature': 'good' } }),
      ).toBe('answered');
      expect(await codeOf(call(q.ticket, bad))).toBe('UNAUTHENTICATED');
      const broken = await external({ verifier: { name: 'test-sig', config: { secretEnv: 'missing' } } });
      expect(
        await codeOf(call(broken.ticket, { body: json({}), headers: { 'x-test-signature': 'good' } })),
      ).toBe('INTERNAL');
    });

    it('a refused signature is on the audit log (CALLBACK_REFUSED) and changes nothing', async () => {
      const q = await external({ verifier: { name: 'test-sig', config: { secretEnv: 'S' } } });
      const bad = { body: json({ ok: 'forged-value' }), headers: { 'x-test-signature': 'bad' } };
      expect(await codeOf(call(q.ticket, bad))).toBe('UNAUTHENTICATED');
      const log = await set.stores[0]!.audit.page({ first: 10, questionId: q.id });
      expect(log.entries.map((e) => e.type)).toEqual(['ASKED', 'CALLBACK_REFUSED']);
      expect(log.entries[1]).toMatchObject({
        actor: null,
        via: 'callback',
        detail: { verifier: 'test-sig', reason: 'signature' },
      });
      expect(JSON.stringify(log.entries)).not.toContain('forged-value');
      expect(JSON.stringify(log.entries)).not.toContain(q.ticket);
      expect((await engine.get(OPS, q.id))?.status).toBe('PENDING');
    });

    it('binding an unknown verifier or a bad config is BAD_USER_INPUT at ask time', async () => {
      expect(await codeOf(external({ verifier: { name: 'nope' } }))).toBe('BAD_USER_INPUT');
      expect(await codeOf(external({ verifier: { name: 'test-sig', config: { secretEnv: 5 } } }))).toBe(
        'BAD_USER_INPUT',
      );
      expect(await engine.pending(OPS)).toEqual([]);
    });

    it('the asker wakes with the payload, and a sensitive one only once', async () => {
      const pending = waitPending(engine);
      const asked = engine.ask(
        AGENT,
        { text: 'Pay', format: 'EXTERNAL', link: 'https://pay.example/{callback_url}', sensitive: true },
        { holdSeconds: 60 },
      );
      const [q] = await pending;
      const r0 = await engine.awaitAnswer(AGENT, q!.id, { holdSeconds: 0 });
      expect(r0.status).toBe('PENDING');
      // the ticket is only in the link (the asker's callbackUrl), so read it from there
      const ticket = q!.link!.split('/').at(-1)!;
      expect(await call(ticket, { body: json({ card: '4242' }) })).toBe('answered');
      const r = await asked;
      expect(r).toMatchObject({ status: 'ANSWERED', answer: { card: '4242' } });
      expect((await engine.get(OPS, q!.id))?.answer).toBeNull();
      // Within the reply grace the asker may re-read it; nobody else ever reads it.
      expect((await engine.awaitAnswer(AGENT, q!.id, { holdSeconds: 0 })).answer).toEqual({ card: '4242' });
      expect((await engine.awaitAnswer(OPS, q!.id, { holdSeconds: 0 })).answer).toBeNull();
    });

    it('prepareExternal: the ticket resolves only after askUser(preparedId), once', async () => {
      const p = await engine.prepareExternal(AGENT, 60);
      expect(p.callbackUrl).toMatch(/\/api\/interactions\/callback\/[A-Za-z0-9_-]{43}$/);
      expect(p.expiresAt).toBeGreaterThan(Date.now());
      const ticket = ticketOf(p.callbackUrl);
      expect(await codeOf(call(ticket, { body: json({}) }))).toBe('NOT_FOUND');
      const link = `https://docs.example/sign?return=${encodeURIComponent(p.callbackUrl)}`;
      const r = await engine.ask(
        AGENT,
        { text: 'Sign', format: 'EXTERNAL', link },
        { holdSeconds: 0, preparedId: p.id },
      );
      expect(r.question).toMatchObject({ id: p.id, link });
      expect(await call(ticket, { body: json({ signed: true }) })).toBe('answered');
      const again = engine.ask(
        AGENT,
        { text: 'Sign', format: 'EXTERNAL', link },
        { holdSeconds: 0, preparedId: p.id },
      );
      expect(await codeOf(again)).toBe('NOT_FOUND');
      expect(
        await codeOf(
          engine.ask(AGENT, { text: 'x', format: 'EXTERNAL', link }, { preparedId: 'unknown-id' }),
        ),
      ).toBe('NOT_FOUND');
      expect(await codeOf(engine.ask(AGENT, { text: 'x' }, { holdSeconds: 0, preparedId: p.id }))).toBe(
        'BAD_USER_INPUT',
      );
    });

    it('prepareExternal: only its preparer can ask with the id; anyone else gets NOT_FOUND and takes nothing', async () => {
      const p = await engine.prepareExternal(AGENT, 60);
      const ticket = ticketOf(p.callbackUrl);
      const input = { text: 'Sign', format: 'EXTERNAL', link: 'https://docs.example/sign' };
      for (const other of [AGENT2, ADMIN, ALICE]) {
        const err = await engine.ask(other, input, { holdSeconds: 0, preparedId: p.id }).catch((e) => e);
        expect(err).toBeInstanceOf(DomainError);
        expect(err).toMatchObject({ code: 'NOT_FOUND', field: 'preparedId' });
        expect(await engine.get(ADMIN, p.id)).toBeNull();
      }
      // The reservation is intact for its preparer, and its ticket was not handed to anyone.
      expect(await codeOf(call(ticket, { body: json({}) }))).toBe('NOT_FOUND');
      const r = await engine.ask(AGENT, input, { holdSeconds: 0, preparedId: p.id });
      expect(r.question).toMatchObject({ id: p.id, askedBy: 'agent' });
      expect(await call(ticket, { body: json({ signed: true }) })).toBe('answered');
    });

    it('a channel question is delivered with its callback URL; CONFIRM by an empty POST records true', async () => {
      const r = await engine.ask(
        AGENT,
        { text: 'Approve?', format: 'CONFIRM', channel: 'pager' },
        { holdSeconds: 0 },
      );
      expect(channel.sent).toHaveLength(1);
      expect(channel.sent[0]!.url).toBe(r.callbackUrl);
      const ticket = ticketOf(r.callbackUrl!);
      expect(await engine.callbackPage(ticket)).toEqual({ kind: 'confirm', about: { text: 'Approve?' } });
      expect((await engine.get(OPS, r.question.id))?.status).toBe('PENDING');
      expect(await call(ticket)).toBe('answered');
      expect((await engine.get(OPS, r.question.id))?.answer).toBe(true);
      expect(await engine.callbackPage(ticket)).toEqual({ kind: 'done', about: { text: 'Approve?' } });
    });

    it('channel TEXT/SELECT/FORM take {"answer": …}; their pages say where to reply', async () => {
      const t = await engine.ask(
        AGENT,
        { text: 'Name?', format: 'TEXT', channel: 'pager' },
        { holdSeconds: 0 },
      );
      const tk = ticketOf(t.callbackUrl!);
      expect(await engine.callbackPage(tk)).toEqual({
        kind: 'text',
        sensitive: false,
        about: { text: 'Name?' },
      });
      expect(await codeOf(call(tk))).toBe('BAD_USER_INPUT');
      expect(await codeOf(call(tk, { body: json({ reply: 'Ada' }) }))).toBe('BAD_USER_INPUT');
      expect(await call(tk, { body: json({ answer: 'Ada' }) })).toBe('answered');
      const schema = { type: 'object', properties: { n: { type: 'integer' } } };
      const f = await engine.ask(
        AGENT,
        { text: 'N?', format: 'FORM', schema, channel: 'pager' },
        { holdSeconds: 0 },
      );
      expect(await engine.callbackPage(ticketOf(f.callbackUrl!))).toEqual({
        kind: 'form',
        schema,
        about: { text: 'N?' },
      });
    });

    it('a failed delivery is CHANNEL_DELIVERY_FAILED with its cause and leaves no pending question', async () => {
      channel.failNext = true;
      const err = await engine.ask(AGENT, { text: 'Hi', channel: 'pager' }, { holdSeconds: 0 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect([(err as DomainError).code, (err as DomainError).message]).toEqual([
        'CHANNEL_DELIVERY_FAILED',
        'channel pager could not deliver the question: pager is down',
      ]);
      expect(await engine.pending(OPS)).toEqual([]);
    });

    it('the audit log records a delivery and a failed one (then its cancel)', async () => {
      const ok = await engine.ask(AGENT, { text: 'Hi', channel: 'pager' }, { holdSeconds: 0 });
      channel.failNext = true;
      await engine.ask(AGENT, { text: 'Hi', channel: 'pager' }, { holdSeconds: 0 }).catch(() => null);
      const entries = (await set.stores[0]!.audit.page({ first: 10 })).entries;
      expect(entries.map((e) => e.type)).toEqual([
        'ASKED',
        'DELIVERED',
        'ASKED',
        'DELIVERY_FAILED',
        'CANCELLED',
      ]);
      expect(entries[1]).toMatchObject({
        questionId: ok.question.id,
        via: 'channel:pager',
        detail: { channel: 'pager' },
      });
      expect(entries[4]).toMatchObject({
        questionId: entries[2]!.questionId,
        actor: null,
        detail: { format: 'TEXT' },
      });
    });

    it('a verifier is not allowed with a channel; recipient needs a channel', async () => {
      expect(await codeOf(external({ channel: 'pager', verifier: { name: 'test-sig', config: {} } }))).toBe(
        'BAD_USER_INPUT',
      );
      expect(await codeOf(engine.ask(AGENT, { text: 'x', recipient: 'ada' }, { holdSeconds: 0 }))).toBe(
        'BAD_USER_INPUT',
      );
    });
  });
}

async function waitPending(engine: Engine): Promise<QuestionRecord[]> {
  return new Promise((resolve) => {
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type !== 'ASKED') return;
        stop();
        resolve([e.question]);
      },
      resync() {},
    });
  });
}

// One error class per API code (API.md §3): the SDK's code list is the server's, and each
// class is raised from its code as the real server sends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyAnsweredError,
  API_ERROR_CLASSES,
  API_ERROR_STATUS,
  BadUserInputError,
  ChannelDeliveryFailedError,
  createInteractionsClient,
  ForbiddenError,
  type InteractionsClient,
  InteractionsError,
  LimitExceededError,
  NotConfiguredError,
  NotFoundError,
  PayloadTooLargeError,
  QuestionClosedError,
  RateLimitedError,
  UnauthenticatedError,
  UnavailableError,
  WrongDoorError,
} from '../../src/client/index.ts';
import { errorFromResponse } from '../../src/client/transport.ts';
import { ERROR_STATUS } from '../../src/domain/errors.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { startRedisServer } from '../support/redis-server.ts';
import type { TestServer } from '../support/server.ts';
import { backgroundAsks, clientAs, listening } from './support.ts';

/** The rejection of `p`, which must reject. */
async function refusal(p: Promise<unknown>): Promise<InteractionsError> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InteractionsError);
  return err as InteractionsError;
}

const failingPager: ChannelPort = {
  names: () => new Set(['pager']),
  async deliver() {
    throw new Error('the pager is down');
  },
};

describe('error classes', () => {
  it('the SDK knows exactly the server’s codes, with the same statuses', () => {
    expect(API_ERROR_STATUS).toEqual(ERROR_STATUS);
    expect(Object.keys(API_ERROR_CLASSES).sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it('every code has its own class, an InteractionsError carrying code, field and status', () => {
    const classes = new Set<unknown>();
    for (const [code, Class] of Object.entries(API_ERROR_CLASSES)) {
      const err = errorFromResponse(400, {
        errors: [{ message: 'm', extensions: { code, field: 'input.x' } }],
      });
      expect(err).toBeInstanceOf(Class);
      expect(err).toBeInstanceOf(InteractionsError);
      expect(err).toMatchObject({ code, field: 'input.x', status: 400, message: 'm' });
      expect(err.name).toBe(Class.name);
      classes.add(Class);
    }
    expect(classes.size).toBe(Object.keys(ERROR_STATUS).length);
  });

  describe('raised from the real server', () => {
    let t: TestServer & { url: string };
    let agent: InteractionsClient;
    let ops: InteractionsClient;
    const background = backgroundAsks();

    beforeAll(async () => {
      t = await listening({
        plugins: { channels: failingPager },
        env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '1' },
      });
      agent = clientAs(t.url, 'agent');
      ops = clientAs(t.url, 'ops');
    });
    afterAll(async () => {
      background.stop();
      await t.close();
    });

    it('BAD_USER_INPUT with the field at fault', async () => {
      const err = await refusal(agent.askUser({ text: '   ' }));
      expect(err).toBeInstanceOf(BadUserInputError);
      expect(err).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.text' });
      const select = await refusal(agent.askUser({ text: 'Pick', format: 'SELECT', options: ['a', 'a'] }));
      expect(select.field).toMatch(/^input\.options/);
    });

    it('UNAUTHENTICATED for an unknown key and for none', async () => {
      const wrong = createInteractionsClient({ url: t.url, apiKey: 'no-such-key-0000000000' });
      const err = await refusal(wrong.channels());
      expect(err).toBeInstanceOf(UnauthenticatedError);
      expect(err.status).toBe(401);
      const none = createInteractionsClient({ url: t.url });
      expect(await refusal(none.viewer())).toBeInstanceOf(UnauthenticatedError);
    });

    it('FORBIDDEN for a role that may not ask', async () => {
      const err = await refusal(ops.askUser({ text: 'Operators do not ask' }));
      expect(err).toBeInstanceOf(ForbiddenError);
      expect(err.code).toBe('FORBIDDEN');
    });

    it('NOT_FOUND for an unknown question', async () => {
      const err = await refusal(ops.answer('no-such-question', true));
      expect(err).toBeInstanceOf(NotFoundError);
      expect(await refusal(agent.waitForAnswer('no-such-question'))).toBeInstanceOf(NotFoundError);
    });

    it('ALREADY_ANSWERED for a second answer, QUESTION_CLOSED after a cancel', async () => {
      const q = await background.pending(agent, { text: 'Twice?', format: 'CONFIRM' });
      await ops.answer(q.id, true);
      expect(await refusal(ops.answer(q.id, false))).toBeInstanceOf(AlreadyAnsweredError);
      const c = await background.pending(agent, { text: 'Closed?', format: 'CONFIRM' });
      await ops.cancel(c.id);
      const closed = await refusal(ops.answer(c.id, true));
      expect(closed).toBeInstanceOf(QuestionClosedError);
      expect(closed.code).toBe('QUESTION_CLOSED');
    });

    it('WRONG_DOOR for an EXTERNAL question answered in-client', async () => {
      const q = await background.pending(agent, {
        text: 'Sign',
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}',
      });
      expect(await refusal(ops.answer(q.id, { signed: true }))).toBeInstanceOf(WrongDoorError);
    });

    it('PAYLOAD_TOO_LARGE for a request body over the cap (a REST-shaped 413)', async () => {
      const err = await refusal(agent.askUser({ text: 'x'.repeat(5 * 1024 * 1024) }));
      expect(err).toBeInstanceOf(PayloadTooLargeError);
      expect(err.status).toBe(413);
    });

    it('CHANNEL_DELIVERY_FAILED when the channel cannot deliver', async () => {
      expect(await agent.channels()).toEqual(['pager']);
      const err = await refusal(agent.askUser({ text: 'Page me', format: 'CONFIRM', channel: 'pager' }));
      expect(err).toBeInstanceOf(ChannelDeliveryFailedError);
    });

    it('RATE_LIMITED from a public door’s response', async () => {
      const door = `${t.url}/api/interactions/callback/${'A'.repeat(43)}`;
      const first = await fetch(door, { method: 'POST' });
      expect(first.status).toBe(404);
      const limited = await fetch(door, { method: 'POST' });
      const err = errorFromResponse(limited.status, await limited.json());
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err.status).toBe(429);
    });
  });

  describe('raised from a server with tighter settings', () => {
    it('NOT_CONFIGURED without a public base URL; LIMIT_EXCEEDED at the pending cap', async () => {
      const t = await listening({
        env: { INTERACTIONS_MAX_PENDING: '1' },
        // A loopback server defaults its base URL to itself: this one has none at all.
        config: { publicBaseUrl: null, publicBaseUrlDefaulted: false },
      });
      const background = backgroundAsks();
      try {
        const agent = clientAs(t.url, 'agent');
        const external = await refusal(
          agent.askUser({ text: 'Sign', format: 'EXTERNAL', link: 'https://s.example/{callback_url}' }),
        );
        expect(external).toBeInstanceOf(NotConfiguredError);
        await background.pending(agent, { text: 'The one pending question' });
        const limit = await refusal(agent.askUser({ text: 'One too many' }));
        expect(limit).toBeInstanceOf(LimitExceededError);
      } finally {
        background.stop();
        await t.close();
      }
    });

    it('UNAVAILABLE when the store is down (a read is not retried)', async () => {
      const redis = await startRedisServer();
      const t = await listening({ env: { INTERACTIONS_REDIS_URL: redis.url } });
      try {
        const admin = clientAs(t.url, 'admin');
        expect(await admin.question('anything')).toBeNull();
        await redis.stop();
        const err = await refusal(admin.question('anything'));
        expect(err).toBeInstanceOf(UnavailableError);
        expect(err).toMatchObject({
          code: 'UNAVAILABLE',
          message: expect.stringMatching(/^the store did not respond/),
        });
      } finally {
        await t.close();
      }
    });
  });
});

// When the session that subscribed a device merely expires (API.md §19), the device keeps
// receiving until INTERACTIONS_PUSH_GRACE_DAYS after the person's last sign-in, and not a
// millisecond longer; a later sign-in moves the end. Driven on a clock the test turns: each push
// is queued by `notify`, leased from the outbox and performed by the push handler, as the worker
// would, and the sender records what it was asked to send.
import { createECDH } from 'node:crypto';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { pushAuthority } from '../../src/app/push-setup.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { targetParts } from '../../src/engine/outbox/worker-options.ts';
import { createPeople, sessionRef } from '../../src/engine/people/people.ts';
import { createPush, type Push } from '../../src/engine/people/push.ts';
import { ownerKey } from '../../src/engine/people/push-records.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';

const DAY = 24 * 3600_000;
const ADA = { id: 'oidc:ada', name: 'Ada', roles: ['operator'] as const, restricted: false };
const QUESTION = {
  id: 'q-grace',
  status: 'PENDING',
  text: 'Ship it?',
  format: 'CONFIRM',
  audience: null,
  askedBy: 'agent',
  sensitive: false,
} as unknown as QuestionRecord;

const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const DEVICE = {
  endpoint: 'https://push.example/d/ada-phone',
  keys: {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: Buffer.alloc(16, 1).toString('base64url'),
  },
};

describe.each([0, 30])('a session that expired, grace %i days', (graceDays) => {
  let now: number;
  let store: QuestionStore;
  let push: Push;
  let sent: string[];
  let session: string;
  const people = () => createPeople(store.people, () => now);

  beforeEach(async () => {
    now = Date.UTC(2026, 0, 1);
    sent = [];
    store = createMemoryStore({ clock: () => now });
    push = createPush({
      people: store.people,
      outbox: store.outbox,
      send: async (s) => {
        sent.push(s.endpoint);
        return { status: 201 };
      },
      authority: pushAuthority(
        { accessControl: true, pushGraceDays: graceDays },
        [],
        createPeople(store.people),
      ),
      publicKey: 'unused',
      hosts: ['push.example'],
      logger: pino({ level: 'silent' }),
      clock: () => now,
    });
    // Signed in at `now` for one hour; the device subscribed in that session.
    session = await people().openSession(ADA, now + 3600_000);
    await push.subscribe(ADA, { kind: 'session', ref: sessionRef(session) }, DEVICE);
  });

  it('signing out after the session expired still ends its subscriptions', async () => {
    now += 2 * 3600_000;
    expect(await people().session(session, now)).toBeNull();
    // The sign-out door no longer knows whose session it was (null): the push module does.
    expect(await push.endSession(null, sessionRef('another session'))).toBe(0);
    expect(await push.endSession(null, sessionRef(session))).toBe(1);
    expect(await store.people.mapAll(ownerKey(ADA.id), now)).toEqual({});
  });

  /** Queues the question's pushes and performs them as the worker would; resolves with how many were sent. */
  async function pushNow(): Promise<number> {
    const before = sent.length;
    expect(await push.notify(QUESTION, 'remind')).toBe(1);
    for (const item of await store.outbox.leaseDue(now, 10, 60_000, 'test')) {
      const result = await push.deliver(item, QUESTION, targetParts(item.target).name);
      expect(result).toEqual({ kind: 'done' });
      await store.outbox.ack(item.id, item.leaseToken);
    }
    return sent.length - before;
  }

  it('pushes while the session lives and after it expired, until the grace ends', async () => {
    expect(await pushNow()).toBe(1);
    now += 3600_000; // the session has just expired
    if (graceDays === 0) {
      expect(await pushNow()).toBe(0);
    } else {
      expect(await pushNow()).toBe(1);
      now += graceDays * DAY - 3600_000 - 1; // the grace's last millisecond
      expect(await pushNow()).toBe(1);
      now += 1;
      expect(await pushNow()).toBe(0);
    }
    // Ended, not merely skipped: the subscription is deleted.
    expect(await store.people.mapAll(ownerKey(ADA.id), now)).toEqual({});
  });

  it('a later sign-in moves the end of the grace', async () => {
    if (graceDays === 0) {
      // Without a grace, a session that lives is what counts.
      now += 30 * 60_000;
      expect(await pushNow()).toBe(1);
      return;
    }
    now += 20 * DAY;
    await people().openSession(ADA, now + 3600_000);
    now += graceDays * DAY - 1;
    expect(await pushNow()).toBe(1);
    now += 1;
    expect(await pushNow()).toBe(0);
  });
});

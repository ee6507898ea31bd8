// The push sender over a store, as the tests of §22's people features drive it: pushes "sent" to
// a list (no push service), sign-in sessions as what authorises a subscription, the store's
// delegations and quiet hours wired as the server wires them, all on the test's clock.
import { createECDH } from 'node:crypto';
import pino from 'pino';
import { pushAuthority } from '../../src/app/push-setup.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createPeople, sessionRef } from '../../src/engine/people/people.ts';
import { pushPresence } from '../../src/engine/people/presence.ts';
import { createPush, type Push } from '../../src/engine/people/push.ts';
import type { QuestionStore } from '../../src/store/types.ts';

export interface SentPush {
  endpoint: string;
  payload: Record<string, unknown>;
}

/** A browser's subscription on push.example, with real P-256 keys. */
export function testDevice(name: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint: `https://push.example/d/${name}`,
    keys: {
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: Buffer.alloc(16, 1).toString('base64url'),
    },
  };
}

/** The sender, and `subscribe(person, device)` opening a 30-day session for them first. */
export function createTestPush(store: QuestionStore, clock: () => number, sent: SentPush[]) {
  const people = createPeople(store.people, clock);
  const push: Push = createPush({
    people: store.people,
    outbox: store.outbox,
    send: async (s, payload) => {
      sent.push({ endpoint: s.endpoint, payload: JSON.parse(payload) });
      return { status: 201 };
    },
    authority: pushAuthority({ accessControl: true, pushGraceDays: 30 }, [], people),
    publicKey: 'unused',
    hosts: ['push.example'],
    logger: pino({ level: 'silent' }),
    clock,
    ...pushPresence(store, clock),
  });
  return {
    push,
    async subscribe(p: Principal & { name: string }, device: string): Promise<void> {
      const session = await people.openSession(p, clock() + 30 * 24 * 3600_000);
      await push.subscribe(p, { kind: 'session', ref: sessionRef(session) }, testDevice(device));
    },
  };
}

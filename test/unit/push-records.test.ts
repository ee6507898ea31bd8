// How a device's push is addressed (src/engine/people/push-records.ts): the outbox target names the
// subscription (the two digests) and the push service's origin, fits the outbox's 200
// characters whatever the origin, and reads back; a stored subscription without a grant (an
// earlier version's) is not read.
import { describe, expect, it } from 'vitest';
import {
  deviceField,
  deviceTarget,
  ownerKey,
  parseDeviceTarget,
  parseStored,
} from '../../src/engine/people/push-records.ts';
import { checkFollowUps, deliveryTargetOf, MAX_TARGET_CHARS } from '../../src/store/outbox.ts';

describe('device targets', () => {
  it('read back to where the subscription is kept, delivered to the push service', () => {
    const endpoint = 'https://fcm.googleapis.com/fcm/send/abc:def';
    for (const reason of ['asked', 'remind'] as const) {
      const target = deviceTarget('oidc:ada', endpoint, reason);
      expect(deliveryTargetOf({ target })).toBe('push:https://fcm.googleapis.com');
      expect(parseDeviceTarget(target.slice('push:'.length))).toEqual({
        reason,
        owner: ownerKey('oidc:ada'),
        field: deviceField(endpoint),
      });
    }
  });

  it('stay within the outbox target length for the longest origin, one push service per origin', () => {
    const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.notify.windows.com`;
    const target = deviceTarget('x'.repeat(256), `https://${host}:443/w/1`, 'asked');
    expect(target.length).toBeLessThanOrEqual(MAX_TARGET_CHARS);
    expect(() => checkFollowUps([target])).not.toThrow();
    const other = deviceTarget('someone', `https://${host}/w/2`, 'remind');
    expect(deliveryTargetOf({ target: other })).toBe(deliveryTargetOf({ target }));
    expect(
      deliveryTargetOf({ target: deviceTarget('someone', 'https://web.push.apple.com/x', 'asked') }),
    ).not.toBe(deliveryTargetOf({ target }));
  });

  it.each([
    '',
    'x',
    'aAAA.BBB@o',
    `q${'A'.repeat(43)}.${'B'.repeat(43)}@o`,
    `a${'A'.repeat(43)}.${'B'.repeat(43)}`,
  ])('refuses the malformed name %j', (name) => {
    expect(parseDeviceTarget(name)).toBeNull();
  });
});

describe('stored subscriptions', () => {
  const subscription = { endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' } };
  const principal = { id: 'ops', roles: ['operator'], restricted: false };

  it('are read only with a grant', () => {
    const grant = { kind: 'key', ref: 'f'.repeat(64) };
    expect(parseStored(JSON.stringify({ subscription, principal, grant }))).toMatchObject({ grant });
    expect(parseStored(JSON.stringify({ subscription, principal, grant: { kind: 'open' } }))).not.toBeNull();
    expect(parseStored(JSON.stringify({ subscription, principal }))).toBeNull();
    expect(
      parseStored(JSON.stringify({ subscription, principal, grant: { kind: 'session', ref: 'x' } })),
    ).toBeNull();
    expect(parseStored('not json')).toBeNull();
  });
});

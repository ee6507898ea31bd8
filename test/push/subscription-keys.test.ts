// A push subscription's keys (API.md §19): `p256dh` must be a P-256 public point (uncompressed,
// on the curve) and `auth` a 16-byte secret, both base64url; anything else is BAD_USER_INPUT
// and nothing is stored (the DELETE door then finds nothing under that endpoint).
import { createECDH } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
let url: string;

beforeAll(async () => {
  t = await startServer({ store: 'memory', env: { INTERACTIONS_PUSH_HOSTS: 'fcm.googleapis.com' } });
  url = await t.listen();
});
afterAll(async () => {
  await t?.close();
});

const b64 = (b: Buffer): string => b.toString('base64url');
const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const POINT = ecdh.getPublicKey();
const AUTH16 = Buffer.alloc(16, 7);

let n = 0;
async function attempt(keys: {
  p256dh: string;
  auth: string;
}): Promise<{ status: number; body: unknown; stored: boolean }> {
  n += 1;
  const endpoint = `https://fcm.googleapis.com/fcm/send/device-${n}`;
  const send = (method: 'POST' | 'DELETE', body: unknown) =>
    fetch(`${url}/api/interactions/push/subscriptions`, {
      method,
      headers: { ...auth('ops'), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const res = await send('POST', { endpoint, keys });
  const body = await res.json();
  const removed = (await (await send('DELETE', { endpoint })).json()) as { removed: boolean };
  return { status: res.status, body, stored: removed.removed };
}

describe('keys.p256dh', () => {
  it('takes an uncompressed P-256 point', async () => {
    expect(await attempt({ p256dh: b64(POINT), auth: b64(AUTH16) })).toMatchObject({
      status: 201,
      stored: true,
    });
  });

  const offCurve = Buffer.from(POINT);
  offCurve[64]! ^= 1;
  const compressed = ecdh.getPublicKey(null, 'compressed');
  it.each([
    ['a point off the curve', b64(offCurve)],
    ['64 bytes', b64(POINT.subarray(0, 64))],
    ['66 bytes', b64(Buffer.concat([POINT, Buffer.from([0])]))],
    ['a compressed point', b64(compressed)],
    ['65 zero bytes after 0x04', b64(Buffer.concat([Buffer.from([4]), Buffer.alloc(64)]))],
    ['not base64url', `${b64(POINT).slice(0, -1)}!`],
  ])('refuses %s with BAD_USER_INPUT, storing nothing', async (_what, p256dh) => {
    const r = await attempt({ p256dh, auth: b64(AUTH16) });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keys.p256dh' });
    expect(r.stored).toBe(false);
  });
});

describe('keys.auth', () => {
  it.each([
    [15, false],
    [16, true],
    [17, false],
  ])('%i bytes: taken only at 16', async (bytes, ok) => {
    const r = await attempt({ p256dh: b64(POINT), auth: b64(Buffer.alloc(bytes, 9)) });
    if (ok) expect(r).toMatchObject({ status: 201, stored: true });
    else {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keys.auth' });
      expect(r.stored).toBe(false);
    }
  });

  it('takes the padded form of 16 bytes, refuses text that is not base64url', async () => {
    expect(await attempt({ p256dh: b64(POINT), auth: `${b64(AUTH16)}==` })).toMatchObject({ status: 201 });
    const r = await attempt({ p256dh: b64(POINT), auth: 'AAAAAAAAAAAAAAAAAAAA+A' });
    expect(r.body).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keys.auth' });
    expect(r.stored).toBe(false);
  });
});

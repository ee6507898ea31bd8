// The VAPID header cache (push-setup.ts): one ES256 token per push service origin, reused for
// VAPID_REUSE_MS and then signed anew, each valid VAPID_TOKEN_SECONDS from when it was made.
import { decodeJwt, importJWK, jwtVerify } from 'jose';
import { expect, it } from 'vitest';
import webpush from 'web-push';
import { createVapidHeaders, VAPID_REUSE_MS, VAPID_TOKEN_SECONDS } from '../../src/app/push-setup.ts';

const keys = { ...webpush.generateVAPIDKeys(), subject: 'mailto:ops@example.com' };

function tokenOf(header: string): { t: string; k: string } {
  const m = /^vapid t=([^,\s]+), k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`not a vapid header: ${header}`);
  return { t: m[1]!, k: m[2]! };
}

it('one token per push service origin, verifiable with the public key, reused until VAPID_REUSE_MS', async () => {
  // Near the real time: web-push refuses an expiry more than 24 h past its own clock.
  let now = Date.now();
  const header = createVapidHeaders(keys, () => now);
  const a1 = header('https://push.example.com/send/device-1');
  const a2 = header('https://push.example.com/send/device-2');
  expect(a2).toBe(a1);
  const b = header('https://other.example.net:8443/x');
  expect(b).not.toBe(a1);

  const { t, k } = tokenOf(a1);
  expect(k).toBe(keys.publicKey);
  const raw = Buffer.from(k, 'base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: raw.subarray(1, 33).toString('base64url'),
    y: raw.subarray(33).toString('base64url'),
  };
  const { payload } = await jwtVerify(t, await importJWK(jwk, 'ES256'), {
    audience: 'https://push.example.com',
    currentDate: new Date(now),
  });
  expect(payload).toMatchObject({ sub: keys.subject, exp: Math.floor(now / 1000) + VAPID_TOKEN_SECONDS });
  expect(decodeJwt(tokenOf(b).t).aud).toBe('https://other.example.net:8443');

  now += VAPID_REUSE_MS - 1;
  expect(header('https://push.example.com/send/device-3')).toBe(a1);
  now += 1;
  const renewed = header('https://push.example.com/send/device-3');
  expect(renewed).not.toBe(a1);
  expect(decodeJwt(tokenOf(renewed).t).exp).toBe(Math.floor(now / 1000) + VAPID_TOKEN_SECONDS);
});

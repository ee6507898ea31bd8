// A loopback push service for the Web Push tests. It speaks the push protocol's wire format
// (RFC 8030 POST of an aes128gcm body, RFC 8292 VAPID Authorization) and, holding the browser
// side's private key and auth secret, really decrypts each message (RFC 8291, with http_ece)
// and verifies the VAPID token's ES256 signature with the key the request names (jose).
import { createECDH, type ECDH, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { importJWK, jwtVerify } from 'jose';

export interface Received {
  device: string;
  payload: Record<string, unknown>;
  vapid: { aud: string; sub: string; k: string };
  headers: Record<string, string | string[] | undefined>;
}

export interface Device {
  name: string;
  /** What PushSubscription.toJSON() gives the page. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  auth: Buffer;
}

export interface FakePushService {
  origin: string;
  device(name: string): Device;
  /** The status each device's next posts get (default 201). */
  statusFor: Map<string, number>;
  received: Received[];
  /** Resolves with the next message a device receives. */
  next(device: string): Promise<Received>;
  close(): Promise<void>;
}

function b64url(b: Buffer): string {
  return b.toString('base64url');
}

/** The P-256 public key of the VAPID `k` parameter as a JWK, for jose. */
function vapidJwk(k: string): { kty: 'EC'; crv: 'P-256'; x: string; y: string } {
  const raw = Buffer.from(k, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  return { kty: 'EC', crv: 'P-256', x: b64url(raw.subarray(1, 33)), y: b64url(raw.subarray(33)) };
}

export async function startFakePushService(): Promise<FakePushService> {
  const devices = new Map<string, Device>();
  const waiting = new Map<string, ((r: Received) => void)[]>();
  const statusFor = new Map<string, number>();
  const received: Received[] = [];
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const name = decodeURIComponent((req.url ?? '').replace(/^\/push\//, ''));
        const device = devices.get(name);
        if (req.method !== 'POST' || !device) {
          res.writeHead(404).end();
          return;
        }
        const auth = String(req.headers.authorization ?? '');
        const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(auth);
        if (!m || req.headers['content-encoding'] !== 'aes128gcm') {
          res.writeHead(400).end('bad vapid or encoding');
          return;
        }
        const [, token = '', k = ''] = m;
        const { payload: claims } = await jwtVerify(token, await importJWK(vapidJwk(k), 'ES256'), {
          audience: origin,
        });
        const plain = ece.decrypt(Buffer.concat(chunks), {
          version: 'aes128gcm',
          privateKey: device.ecdh,
          authSecret: b64url(device.auth),
        });
        const r: Received = {
          device: name,
          payload: JSON.parse(plain.toString('utf8')),
          vapid: { aud: String(claims.aud), sub: String(claims.sub), k },
          headers: req.headers,
        };
        received.push(r);
        res.writeHead(statusFor.get(name) ?? 201).end();
        const w = waiting.get(name)?.shift();
        w?.(r);
      })().catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    statusFor,
    received,
    device(name) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const d: Device = {
        name,
        ecdh,
        auth,
        subscription: {
          endpoint: `${origin}/push/${encodeURIComponent(name)}`,
          keys: { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) },
        },
      };
      devices.set(name, d);
      return d;
    },
    next(device) {
      return new Promise((resolve) => {
        const list = waiting.get(device) ?? [];
        list.push(resolve);
        waiting.set(device, list);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

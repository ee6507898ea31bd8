// Web Push fan-out (API.md §19) with one hung push service: one question to 1,000 subscribed
// devices, 999 on a healthy loopback push service and one on a push service that takes its
// request and never answers. The clock runs from sending the askUser request until the healthy
// service has received the push of that question for its 999th device ("last push sent"); the
// aim is 2 s (issue 46). Each device's push is its own outbox item targeted at its push
// service's origin, built by web-push (aes128gcm encryption and a VAPID token per push) and
// posted by the outbox worker, at most `perTarget` in flight per origin: the hung origin holds
// its pushes (each for PUSH_TIMEOUT_MS) without holding anyone else's.
import { createECDH, randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { graphqlBody, headersFor, KEYS } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { runPool, within } from '../lib/pool.ts';
import { cpuMs } from '../lib/process.ts';
import { startInstance, uniquePrefix } from '../lib/servers.ts';
import { median, round } from '../lib/stats.ts';

const DEVICES = 1000;
/** API.md §19: at most ten subscriptions per person. */
const PER_PERSON = 10;
const ROUNDS = 5;
const AIM_MS = 2000;

const personKey = (i: number): string => `bench-push-person-${String(i).padStart(12, '0')}`;

interface Listener {
  port: number;
  close(): Promise<void>;
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<Listener> {
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    );
  });
}

export async function webPush(ctx: BenchContext): Promise<Section> {
  // The healthy push service: takes each POST's body and answers 201, as push services do. It
  // only counts: the push tests decrypt and verify (test/support/fake-push-service.ts).
  let expected = 0;
  let arrived = 0;
  let onAll: ((at: number) => void) | null = null;
  const healthy = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201).end();
      if (++arrived === expected && onAll) onAll(performance.now());
    });
  });
  const held: ServerResponse[] = [];
  const hung = await listen((req, res) => {
    req.resume();
    held.push(res);
  });
  const people = Math.ceil(DEVICES / PER_PERSON);
  const principals = [
    { id: 'bench-agent', key: KEYS.agent, roles: ['agent'] },
    ...Array.from({ length: people }, (_, i) => ({
      id: `push-person-${i}`,
      key: personKey(i),
      roles: ['operator'],
    })),
  ];
  const instance = await startInstance({
    name: 'web-push',
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('web-push'),
    env: {
      INTERACTIONS_API_KEYS: JSON.stringify(principals),
      INTERACTIONS_PUSH_HOSTS: `127.0.0.1:${healthy.port},127.0.0.1:${hung.port}`,
    },
  });
  const agent = keepAliveAgent(16);
  try {
    // One browser key pair for every device: each push is encrypted with a fresh ephemeral key
    // anyway, so the server's work per device is the same.
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const keys = {
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    };
    await runPool(DEVICES, 16, async (i) => {
      // Device 0 (the first person's first) is the one on the hung push service.
      const origin = i === 0 ? `http://127.0.0.1:${hung.port}` : `http://127.0.0.1:${healthy.port}`;
      const r = await send(`${instance.url}/api/interactions/push/subscriptions`, {
        agent,
        method: 'POST',
        headers: {
          authorization: `Bearer ${personKey(Math.floor(i / PER_PERSON))}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ endpoint: `${origin}/push/device-${i}`, keys }),
      });
      if (r.status !== 201) throw new Error(`subscribe ${i}: ${r.status} ${r.body.slice(0, 200)}`);
    });

    const cpuPerRound: number[] = [];
    const round1 = async (): Promise<number> => {
      const cpu0 = cpuMs(instance.pid);
      expected = arrived + (DEVICES - 1);
      const all = new Promise<number>((resolve) => {
        onAll = resolve;
      });
      const r = await send(`${instance.url}/graphql`, {
        agent,
        method: 'POST',
        headers: headersFor('agent'),
        body: graphqlBody(
          'mutation { askUser(input: {text: "Roll back the deploy?", format: CONFIRM}, holdSeconds: 0) { question { id } } }',
        ),
      });
      if (r.status !== 200 || !r.body.includes('"id"'))
        throw new Error(`askUser: ${r.status} ${r.body.slice(0, 200)}`);
      const last = await within(all, 30_000, `${DEVICES - 1} healthy pushes`);
      cpuPerRound.push(cpuMs(instance.pid) - cpu0);
      return last - r.sentAt;
    };
    // A warm-up round (JIT, connections to the push service), then the counted ones.
    await round1();
    cpuPerRound.length = 0;
    const rounds: number[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round1());
    ctx.log(
      `  last push sent (ms): ${rounds.map((x) => x.toFixed(0)).join(', ')}; hung requests held ${held.length}; server CPU per round (ms): ${cpuPerRound.join(', ')}`,
    );
    return {
      title: 'Web Push to 1,000 devices, one push service hung',
      about:
        'One question to 1,000 subscribed devices (100 operators, ten devices each), 999 on a healthy loopback push service that answers 201 and one on a push service that takes its request and never answers. The value is the time from sending the askUser request until the healthy service has received the push for its 999th device, the median of 5 rounds after a warm-up one (the worst is in results.json). Each push is its own outbox item per device, encrypted and VAPID-signed by web-push and posted by the outbox worker with at most 8 in flight per push-service origin; it stands beside the aim of issue 46, 2 s. The server’s CPU time per round (results.json) is steadier than the latency on a busy machine.',
      figures: [
        figure({
          name: 'Web Push, 1,000 devices, 1 push service hung: last push sent',
          value: round(median(rounds), 1),
          unit: 'ms',
          floorName: 'aim',
          floor: AIM_MS,
          floorUnit: 'ms',
          parameters: {
            devices: DEVICES,
            rounds: rounds.map((x) => round(x, 1)),
            worstMs: round(Math.max(...rounds), 1),
            serverCpuMsPerRound: cpuPerRound,
            hungRequestsHeld: held.length,
          },
        }),
      ],
    };
  } finally {
    agent.destroy();
    await instance.stop();
    await hung.close();
    await healthy.close();
  }
}

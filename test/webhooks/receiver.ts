// A resume-webhook receiver on loopback for the tests: records every delivery (headers and raw
// body) and answers with the next scripted status (204 when the script is used up).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type QuestionRecord, recordOf } from '../../src/domain/question.ts';
import type { OutboxItem } from '../../src/store/types.ts';
import { specOf } from '../support/fixtures.ts';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  /** The loopback server itself (to watch its connections). */
  server: Server;
  deliveries: Delivery[];
  /** Statuses to answer with, first to last. */
  script: number[];
  /** Resolves once at least `count` deliveries arrived. */
  received(count: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function startReceiver(script: number[] = []): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const waiting: { count: number; resolve(d: Delivery[]): void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = r.script.shift() ?? 204;
      res.end();
      for (const w of [...waiting]) {
        if (deliveries.length >= w.count) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(deliveries.slice());
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    server,
    deliveries,
    script,
    received(count) {
      if (deliveries.length >= count) return Promise.resolve(deliveries.slice());
      return new Promise((resolve) => waiting.push({ count, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return r;
}

/** The outbox item of question `q1`'s resume webhook to the `runs` endpoint. */
export function webhookItemOf(now: number, over: Partial<OutboxItem> = {}): OutboxItem {
  return {
    id: 'q1:webhook:runs',
    questionId: 'q1',
    target: 'webhook:runs',
    attempt: 0,
    dueAt: now,
    enqueuedAt: now,
    leaseToken: 't',
    ...over,
  };
}

/** Question `q1`, which notifies `runs`, cancelled at `now`. */
export function cancelledRunsQuestion(now: number): QuestionRecord {
  return recordOf(specOf({ id: 'q1', notify: 'runs' }), {
    status: 'CANCELLED',
    answer: null,
    answeredBy: null,
    answeredAt: null,
    closedAt: now,
    cancelReason: null,
  });
}

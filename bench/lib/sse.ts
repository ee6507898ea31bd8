// A minimal server-sent-events client over node:http: enough to time when each event's last
// byte arrived. Events are stamped with the arrival time of the chunk that completed them.
import http from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
  /** performance.now() when the chunk completing this event arrived. */
  at: number;
}

export interface SseOptions {
  agent: http.Agent;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

type Listener = (e: SseEvent) => void;

export class SseClient {
  /** performance.now() just before the request was written. */
  readonly sentAt: number;
  /** Resolves when a 200 text/event-stream response has started. */
  readonly opened: Promise<void>;
  private readonly req: http.ClientRequest;
  private readonly listeners = new Set<Listener>();
  private buffer = '';
  private closed = false;

  constructor(url: string, o: SseOptions) {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...o.headers };
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    let open!: () => void;
    let fail!: (err: Error) => void;
    this.opened = new Promise<void>((resolve, reject) => {
      open = resolve;
      fail = reject;
    });
    // A stream that failed before anyone awaited it must not crash the run.
    this.opened.catch(() => undefined);
    this.req = http.request(url, { method: o.method ?? 'GET', agent: o.agent, headers }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers['content-type']).includes('text/event-stream')) {
        res.resume();
        fail(new Error(`SSE ${url}: status ${res.statusCode} ${res.headers['content-type']}`));
        return;
      }
      open();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => this.receive(chunk, performance.now()));
      res.on('error', () => undefined);
    });
    this.req.on('error', (err) => {
      if (!this.closed) fail(err);
    });
    this.sentAt = performance.now();
    this.req.end(o.body);
  }

  /** Calls `listener` for every event until the returned function is called. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first event (from now on) that matches. */
  next(matches: (e: SseEvent) => boolean, timeoutMs: number): Promise<SseEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching SSE event within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on((e) => {
        if (!matches(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.req.destroy();
  }

  private receive(chunk: string, at: number): void {
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      // Comment-only blocks (keepalives, Yoga's opening ":") carry no event.
      if (data.length === 0) continue;
      const e = { event, data: data.join('\n'), at };
      for (const l of [...this.listeners]) l(e);
    }
  }
}

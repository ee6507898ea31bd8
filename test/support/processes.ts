// Real server processes for multi-instance tests (`node --import tsx src/app/main.ts`, each in its own
// process group so a kill takes everything it started), and the small real-socket clients the
// process and stream tests share: one-connection HTTP requests, an SSE reader that also returns
// comments, and GraphQL over a real socket.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A free loopback port (the server's PORT must be 1–65535, so 0 cannot be handed over). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Variables the child must not inherit from the test runner's environment. */
const OWN_VARIABLES = /^(INTERACTIONS_|OTEL_|ACCESS_CONTROL_ENABLE$|PORT$|HOST$|LOG_LEVEL$)/;

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OWN_VARIABLES.test(k)));
  return { ...base, ...env };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly pid: number;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** Resolves with the output so far once `pattern` matches stdout + stderr; rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Signal the whole process group and wait for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

// Belt and braces: if the test worker exits with children still running (a crashed test, a
// missed teardown), take their process groups down with it. Never leave orphans.
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

function start(env: Record<string, string>): {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  onOutput: Set<() => void>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const out = { stdout: '', stderr: '' };
  const onOutput = new Set<() => void>();
  child.stdout?.on('data', (d: Buffer) => {
    out.stdout += d.toString();
    for (const f of onOutput) f();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out.stderr += d.toString();
    for (const f of onOutput) f();
  });
  const exited = new Promise<Exit>((resolve, reject) => {
    // 'close' comes after the pipes are drained, so the output is complete when it resolves.
    child.once('close', (code, signal) => {
      live.delete(child);
      // The leader is gone; anything it left in its group goes too.
      killGroup(child, 'SIGKILL');
      resolve({ code, signal });
    });
    child.once('error', (err) => {
      live.delete(child);
      reject(err);
    });
  });
  return { child, out, exited, onOutput };
}

/** Runs the server with `env` until it exits on its own (config errors); kills it after `timeoutMs`. */
export async function runToExit(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<Exit & { stdout: string; stderr: string }> {
  const { child, out, exited } = start(env);
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
  try {
    const exit = await exited;
    return { ...exit, ...out };
  } finally {
    clearTimeout(timer);
  }
}

/** Polls GET /health until it answers 200 (a connection refused means: not listening yet). */
async function untilHealthy(url: string, exited: Promise<Exit>, timeoutMs: number): Promise<'up' | Exit> {
  let gone: Exit | null = null;
  void exited.then((e) => {
    gone = e;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) return gone;
    try {
      const res = await httpRequest(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      await res.text();
      if (res.status === 200) return 'up';
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server at ${url} did not answer /health within ${timeoutMs} ms`);
}

/**
 * Starts `src/app/main.ts` on a free port (HOST 127.0.0.1) with `env` on top of the runner's
 * environment (minus the server's own variables), and resolves once GET /health answers 200.
 */
export async function spawnServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { child, out, exited, onOutput } = start({ ...env, PORT: String(port), HOST: '127.0.0.1' });
    const proc: ServerProcess = {
      pid: child.pid!,
      port,
      url,
      stdout: () => out.stdout,
      stderr: () => out.stderr,
      exited,
      waitForOutput(pattern, waitMs = 10_000) {
        return new Promise((resolve, reject) => {
          const check = (): boolean => {
            const all = out.stdout + out.stderr;
            if (!pattern.test(all)) return false;
            done();
            resolve(all);
            return true;
          };
          const timer = setTimeout(() => {
            done();
            reject(
              new Error(`no output matching ${pattern} within ${waitMs} ms:\n${out.stdout}${out.stderr}`),
            );
          }, waitMs);
          const done = (): void => {
            clearTimeout(timer);
            onOutput.delete(check);
          };
          if (check()) return;
          onOutput.add(check);
          void exited.then(() => {
            if (check()) return;
            done();
            reject(new Error(`process exited before printing ${pattern}:\n${out.stdout}${out.stderr}`));
          });
        });
      },
      async kill(signal: NodeJS.Signals = 'SIGKILL') {
        killGroup(child, signal);
        if (signal === 'SIGKILL') return exited;
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
        try {
          return await exited;
        } finally {
          clearTimeout(timer);
        }
      },
    };
    let state: 'up' | Exit;
    try {
      state = await untilHealthy(url, exited, timeoutMs);
    } catch (err) {
      await proc.kill();
      throw err;
    }
    if (state === 'up') return proc;
    // Another process took the port between freePort() and listen(): try another one.
    if (/EADDRINUSE/.test(out.stderr + out.stdout) && attempt < 3) continue;
    throw new Error(
      `server exited (${state.code ?? state.signal}) before it was healthy:\n${out.stdout}${out.stderr}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Clients

export type SseItem = { kind: 'comment'; text: string } | { kind: 'event'; event: string; data: string };

export interface SseReader {
  /** The next frame or comment; null when the stream has ended. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseItem | null>;
  /** The next frame, skipping comments; null when the stream has ended. */
  nextEvent(timeoutMs?: number): Promise<{ event: string; data: string } | null>;
  /** Closes the stream from the client side. */
  close(): Promise<void>;
}

/** Reads a text/event-stream body frame by frame (comments included, as the server sent them). */
export function sseReader(body: ReadableStream<Uint8Array>): SseReader {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  const queue: SseItem[] = [];

  function parse(): void {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      const comments: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trimStart());
        else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) queue.push({ kind: 'event', event, data: data.join('\n') });
      else for (const text of comments) queue.push({ kind: 'comment', text });
    }
  }

  async function next(timeoutMs = 10_000): Promise<SseItem | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = queue.shift();
      if (item) return item;
      pending ??= reader.read();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now()));
      });
      const chunk = await Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') throw new Error(`no SSE frame within ${timeoutMs} ms`);
      pending = null;
      if (chunk.done) return null;
      buffer += decoder.decode(chunk.value, { stream: true });
      parse();
    }
  }

  return {
    next,
    async nextEvent(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const item = await next(Math.max(0, deadline - Date.now()));
        if (item === null) return null;
        if (item.kind === 'event') return item;
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  /** The body as a web stream (SSE); or read it whole with text()/json(). */
  body: ReadableStream<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * One request on its own connection (no agent, no pool): the socket lives exactly as long as the
 * exchange, and an abort destroys it. fetch keeps pooled connections around after an abort, which
 * holds up an in-process server's close() for the pool's idle timeout.
 */
export function httpRequest(url: string, init: HttpInit = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false });
    const onAbort = (): void => {
      req.destroy(new Error('aborted by the client'));
    };
    if (init.signal?.aborted) onAbort();
    init.signal?.addEventListener('abort', onAbort, { once: true });
    req.once('error', (err) => {
      init.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    req.once('response', (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      }
      res.once('close', () => init.signal?.removeEventListener('abort', onAbort));
      const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
      const text = async (): Promise<string> => {
        let out = '';
        const decoder = new TextDecoder();
        const reader = body.getReader();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          out += decoder.decode(chunk.value, { stream: true });
        }
        return out + decoder.decode();
      };
      resolve({
        status: res.statusCode ?? 0,
        headers,
        body,
        text,
        json: async () => JSON.parse(await text()),
      });
    });
    req.end(init.body);
  });
}

/** An SSE request; the reader is only meaningful when the status is 200. */
export async function openSse(
  url: string,
  init: HttpInit = {},
): Promise<{ res: HttpResponse; sse: SseReader; abort(): void }> {
  const controller = new AbortController();
  const res = await httpRequest(url, {
    ...init,
    headers: { accept: 'text/event-stream', ...init.headers },
    signal: init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal,
  });
  return { res, sse: sseReader(res.body), abort: () => controller.abort() };
}

export interface GqlResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response data is checked field by field.
  data: any;
  errors: { message: string; extensions?: Record<string, unknown> }[] | undefined;
}

/** One GraphQL request over a real socket. */
export async function gqlAt(
  baseUrl: string,
  key: string | null,
  query: string,
  variables?: Record<string, unknown>,
  init: { signal?: AbortSignal } = {},
): Promise<GqlResult> {
  const res = await httpRequest(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify({ query, variables }),
    ...init,
  });
  const body = (await res.json()) as { data?: unknown; errors?: GqlResult['errors'] };
  return { status: res.status, data: body.data, errors: body.errors };
}

/** A GraphQL subscription over SSE (Yoga's distinct-connections mode) on a real socket. */
export async function subscribeAt(
  baseUrl: string,
  key: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ res: HttpResponse; sse: SseReader }> {
  const { res, sse } = await openSse(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return { res, sse };
}

// `tai-interactions doctor`: checks a deployment from the same settings and manifest as
// `npm start` (the environment and the working directory), one finding per line: what is fine,
// what will bite later (warn), and what keeps the server from working (fail). It changes
// nothing: Redis gets PING and INFO, the public URL (or, unset, the local listener) a GET
// /health, an e-mail channel's SMTP server a login (no mail), and no other provider is called.
import { Redis } from 'ioredis';
import { DISCARD_MAX_BYTES, readCapped } from '../channels/response-body.ts';
import { VERSION } from '../domain/version.ts';
import { createRedisConnections } from '../store/redis/connection.ts';
import { manifestChannels } from './channel-port.ts';
import {
  type Config,
  ConfigError,
  configWarnings,
  type Env,
  isLoopbackHost,
  loadConfig,
  loadManifestSettings,
  type ManifestSettings,
} from './config.ts';
import { checkSmtp } from './doctor-smtp.ts';
import { ManifestError } from './manifest.ts';
import { MIN_REDIS, redisTarget } from './store-setup.ts';

export type DoctorLevel = 'ok' | 'warn' | 'fail';

export interface DoctorFinding {
  level: DoctorLevel;
  /** What was checked: `node`, `settings`, `manifest`, `redis`, `public URL`, `channel <name>`, `keys`, `receipt keys`. */
  check: string;
  /** One line, naming settings and hosts but never a secret. */
  detail: string;
}

export interface DoctorOptions {
  /** Bound on each network check (Redis connect, the public URL's /health, an SMTP login). */
  timeoutMs?: number;
}

const MIN_NODE = [20, 19] as const;

function atLeast(version: readonly number[], min: readonly number[]): boolean {
  const [a = 0, b = 0] = version;
  return a > min[0]! || (a === min[0] && b >= min[1]!);
}

function nodeFinding(): DoctorFinding {
  const parts = process.versions.node.split('.').map(Number);
  const ok = atLeast(parts, MIN_NODE);
  return {
    level: ok ? 'ok' : 'fail',
    check: 'node',
    detail: `tai-interactions ${VERSION} on Node ${process.versions.node}${ok ? '' : ` (needs ${MIN_NODE.join('.')} or newer)`}`,
  };
}

/** host:port of the Redis URL, without its credentials. */
function redisWhere(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '6379'}`;
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function redisFinding(config: Config, timeoutMs: number): Promise<DoctorFinding> {
  if (config.redisUrl === null) {
    return {
      level: 'warn',
      check: 'redis',
      detail:
        'INTERACTIONS_REDIS_URL is not set: the in-memory store (one process; questions are lost on restart)',
    };
  }
  const where =
    config.redisMode === 'sentinel'
      ? `sentinel primary ${config.redisSentinelName}`
      : redisWhere(config.redisUrl);
  // One server: a client that gives up at once. Cluster and Sentinel: the server's own path.
  const redis =
    config.redisMode === 'standalone'
      ? new Redis(config.redisUrl, {
          lazyConnect: true,
          retryStrategy: () => null,
          maxRetriesPerRequest: 0,
          connectTimeout: timeoutMs,
          commandTimeout: timeoutMs,
        })
      : createRedisConnections(redisTarget(config, config.redisUrl)).redis;
  // The socket's own error (ECONNREFUSED, ENOTFOUND, …) says more than "Connection is closed".
  let socketError: string | null = null;
  redis.on('error', (err: Error & { code?: string }) => {
    socketError ??= err.code ?? err.message;
  });
  try {
    await withTimeout(redis.connect(), timeoutMs, 'connecting');
    const info = await withTimeout(redis.info('server'), timeoutMs, 'INFO');
    const found = /redis_version:([\d.]+)/.exec(info)?.[1] ?? 'unknown';
    const parts = found.split('.').map(Number);
    if (!atLeast(parts, MIN_REDIS)) {
      return {
        level: 'fail',
        check: 'redis',
        detail: `reachable at ${where}, but Redis ${found} is older than ${MIN_REDIS.join('.')}`,
      };
    }
    return { level: 'ok', check: 'redis', detail: `reachable at ${where}, Redis ${found}` };
  } catch (err) {
    const why =
      socketError ??
      (err instanceof Error ? err.message.replace(/rediss?:\/\/\S*/g, 'the URL') : 'no answer');
    return {
      level: 'fail',
      check: 'redis',
      detail: `cannot reach Redis at ${where} (${config.redisMode}): ${why}`,
    };
  } finally {
    redis.disconnect();
  }
}

async function publicUrlFinding(
  config: Config,
  channelCount: number,
  timeoutMs: number,
): Promise<DoctorFinding> {
  const check = 'public URL';
  if (config.publicBaseUrl === null) {
    return {
      level: channelCount > 0 ? 'fail' : 'warn',
      check,
      detail:
        'INTERACTIONS_PUBLIC_BASE_URL is not set: no callback URLs for EXTERNAL questions' +
        (channelCount > 0 ? ', and the channels cannot be delivered to or answered' : ''),
    };
  }
  if (config.publicBaseUrlDefaulted) return defaultedUrlFinding(config, channelCount, timeoutMs);
  const base = config.publicBaseUrl;
  const local = /^http:\/\//.test(base);
  const note = local ? ' (http on loopback: providers outside this machine cannot reach it)' : '';
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    // A health answer is tiny: read a few KiB at most and drop the rest (a wrong URL may stream).
    const body = (await readCapped(res, DISCARD_MAX_BYTES)).bytes.toString('utf8');
    const version = /"version"\s*:\s*"([^"]+)"/.exec(body)?.[1];
    if (res.status !== 200 || !/"status"\s*:\s*"ok"/.test(body)) {
      return {
        level: 'warn',
        check,
        detail: `${base}/health answered ${res.status}, not this server's health${note}`,
      };
    }
    if (version !== VERSION) {
      return {
        level: 'warn',
        check,
        detail: `${base} answers, but runs version ${version ?? 'unknown'} (this is ${VERSION})${note}`,
      };
    }
    return {
      level: local ? 'warn' : 'ok',
      check,
      detail: `${base} answers /health (version ${version})${note}`,
    };
  } catch {
    return {
      level: 'warn',
      check,
      detail: `${base} is set, but ${base}/health did not answer from here (is the server running, and the URL routed to it?)${note}`,
    };
  }
}

/** GET `${base}/health`: the version when this server answers there, else what answered. */
async function healthAt(base: string, timeoutMs: number): Promise<{ version?: string; status?: number }> {
  const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  const body = (await readCapped(res, DISCARD_MAX_BYTES)).bytes.toString('utf8');
  if (res.status !== 200 || !/"status"\s*:\s*"ok"/.test(body)) return { status: res.status };
  return { version: /"version"\s*:\s*"([^"]+)"/.exec(body)?.[1] ?? 'unknown', status: 200 };
}

/**
 * No INTERACTIONS_PUBLIC_BASE_URL, on loopback: the server links to its own listener, which
 * only this machine can open. Said as unset (a warning; a failure with channels), and whether
 * a server answers on the port these settings (or `--port`) give.
 */
async function defaultedUrlFinding(
  config: Config,
  channelCount: number,
  timeoutMs: number,
): Promise<DoctorFinding> {
  const base = config.publicBaseUrl!;
  let here: string;
  try {
    const { version, status } = await healthAt(base, timeoutMs);
    here =
      version === undefined
        ? `; ${base}/health answered ${status}, not this server's health`
        : `; a server answers there (version ${version})`;
  } catch {
    here = `; no server answers at ${base} (not started, or on another port: doctor --port <port>)`;
  }
  return {
    level: channelCount > 0 ? 'fail' : 'warn',
    check: 'public URL',
    detail:
      `INTERACTIONS_PUBLIC_BASE_URL is not set: links use ${base}, which only this machine can open` +
      (channelCount > 0 ? ', so the channels cannot be answered' : '') +
      here,
  };
}

function keysFinding(config: Config): DoctorFinding {
  const check = 'keys';
  if (!config.accessControl) {
    return {
      level: isLoopbackHost(config.host) ? 'warn' : 'fail',
      check,
      detail: `ACCESS_CONTROL_ENABLE=false: every caller acts as "anonymous"${isLoopbackHost(config.host) ? '' : `, and HOST=${config.host} is not loopback`}`,
    };
  }
  if (config.principals.length === 0) {
    return {
      level: 'warn',
      check,
      detail: 'no INTERACTIONS_API_KEYS: every start mints a one-off admin key (printed once)',
    };
  }
  const roles = new Map<string, number>();
  for (const p of config.principals) for (const r of p.roles) roles.set(r, (roles.get(r) ?? 0) + 1);
  const list = [...roles].map(([r, n]) => `${r} ${n}`).join(', ');
  return { level: 'ok', check, detail: `${config.principals.length} API key(s) configured (roles: ${list})` };
}

function receiptKeysFinding(config: Config): DoctorFinding {
  if (config.deliveryKeys === null) {
    return {
      level: 'warn',
      check: 'receipt keys',
      detail:
        'INTERACTIONS_RECEIPT_KEYS_FILE is not set: each start generates a signing key, and receipts signed before a restart stop verifying',
    };
  }
  return {
    level: 'ok',
    check: 'receipt keys',
    detail: `${config.deliveryKeys.length} key(s) from INTERACTIONS_RECEIPT_KEYS_FILE (the first signs)`,
  };
}

/** The MCP elicitation state key matters once several instances may serve one client. */
function mcpStateKeyFinding(config: Config): DoctorFinding {
  const check = 'mcp state key';
  if (config.mcpStateKey !== null) {
    return { level: 'ok', check, detail: 'INTERACTIONS_MCP_STATE_KEY is set (signs MCP elicitation states)' };
  }
  if (config.redisUrl !== null) {
    return {
      level: 'warn',
      check,
      detail:
        'INTERACTIONS_MCP_STATE_KEY is not set: each instance signs MCP elicitation states with a key of its own, so an answer given in an MCP client may reach an instance that refuses it',
    };
  }
  return {
    level: 'ok',
    check,
    detail: 'generated at each start (one instance; set INTERACTIONS_MCP_STATE_KEY for several)',
  };
}

async function channelFindings(
  config: Config,
  settings: ManifestSettings,
  env: Env,
  timeoutMs: number,
): Promise<DoctorFinding[]> {
  const declared = settings.manifest.channels;
  const names = Object.keys(declared);
  if (names.length === 0) return [{ level: 'ok', check: 'channels', detail: 'none configured' }];
  const quiet = { info() {}, warn() {}, error() {} };
  const made = manifestChannels(settings, { logger: quiet, publicBaseUrl: config.publicBaseUrl });
  // Each e-mail channel's SMTP server, all at once (each bounded by the timeout).
  const smtp = new Map(
    await Promise.all(
      names
        .filter((name) => declared[name]!.plugin === 'email')
        .map(async (name) => {
          const urlEnv = (declared[name]!.config as { smtpUrlEnv?: unknown }).smtpUrlEnv;
          const url = typeof urlEnv === 'string' ? env[urlEnv] : undefined;
          return [name, url ? await checkSmtp(url, timeoutMs) : null] as const;
        }),
    ),
  );
  try {
    return names.map((name) => {
      const decl = declared[name]!;
      const vars = envNames(decl.config);
      const instance = made.port.instance?.(name);
      const parts = [
        `plugin ${decl.plugin}`,
        vars.length ? `credentials set (${vars.join(', ')})` : 'no credentials needed',
      ];
      if (instance?.inbound) parts.push(`inbound door /api/interactions/channels/${name}`);
      if (instance?.setup) parts.push(`after a URL change run \`tai-interactions channels setup ${name}\``);
      const mail = smtp.get(name);
      if (mail) parts.push(mail.detail);
      if (mail && !mail.ok) return { level: 'fail', check: `channel ${name}`, detail: parts.join('; ') };
      if (config.publicBaseUrl === null) {
        return {
          level: 'fail',
          check: `channel ${name}`,
          detail: `${parts.join('; ')}; not ready: INTERACTIONS_PUBLIC_BASE_URL is missing`,
        };
      }
      return { level: 'ok', check: `channel ${name}`, detail: parts.join('; ') };
    });
  } finally {
    await made.close();
  }
}

function envNames(value: unknown, out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, v] of Object.entries(value)) {
    if (key.endsWith('Env') && typeof v === 'string') out.push(v);
    else envNames(v, out);
  }
  return out;
}

/** Every finding, in a stable order. A setting or manifest that does not load ends the checks there. */
export async function runDoctor(env: Env, cwd: string, o: DoctorOptions = {}): Promise<DoctorFinding[]> {
  const timeoutMs = o.timeoutMs ?? 5000;
  const findings: DoctorFinding[] = [nodeFinding()];
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    findings.push({ level: 'fail', check: 'settings', detail: err.message });
    return findings;
  }
  findings.push({ level: 'ok', check: 'settings', detail: `listens on ${config.host}:${config.port}` });
  for (const warning of configWarnings(config))
    findings.push({ level: 'warn', check: 'settings', detail: warning });
  let settings: ManifestSettings;
  try {
    settings = await loadManifestSettings(env, cwd);
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    findings.push({ level: 'fail', check: 'manifest', detail: err.message });
    return findings;
  }
  const channelCount = Object.keys(settings.manifest.channels).length;
  findings.push({
    level: 'ok',
    check: 'manifest',
    detail: env.INTERACTIONS_MANIFEST
      ? `${env.INTERACTIONS_MANIFEST} loads`
      : 'loads (interactions.yaml in this folder, or the defaults)',
  });
  const [redis, publicUrl] = await Promise.all([
    redisFinding(config, timeoutMs),
    publicUrlFinding(config, channelCount, timeoutMs),
  ]);
  findings.push(
    redis,
    publicUrl,
    ...(await channelFindings(config, settings, env, timeoutMs)),
    keysFinding(config),
    receiptKeysFinding(config),
    mcpStateKeyFinding(config),
  );
  return findings;
}

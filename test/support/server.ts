// A whole server (config → store → engine → GraphQL → HTTP) in this process, on the memory
// store or on the private test Redis, with a fixed set of principals.
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/app/config.ts';
import { createLogger, createServer, type Server, type ServerPlugins } from '../../src/app/server.ts';
import { uniquePrefix } from './fixtures.ts';

export const KEYS = {
  agent: 'test-agent-key-0000000001',
  agent2: 'test-agent2-key-000000002',
  ops: 'test-ops-key-000000000003',
  admin: 'test-admin-key-0000000004',
  alice: 'test-alice-key-0000000005',
  bob: 'test-bob-key-000000000006',
} as const;
export type Who = keyof typeof KEYS;

export const PRINCIPALS = [
  { id: 'agent', key: KEYS.agent, roles: ['agent'] },
  { id: 'agent2', key: KEYS.agent2, roles: ['agent'] },
  { id: 'ops', key: KEYS.ops, roles: ['operator'] },
  { id: 'admin', key: KEYS.admin, roles: ['admin'] },
  { id: 'alice', key: KEYS.alice, roles: ['operator', 'agent'], restricted: true },
  { id: 'bob', key: KEYS.bob, roles: ['operator', 'agent'], restricted: true },
];

export interface TestServerOptions {
  store: 'memory' | 'redis';
  env?: Record<string, string>;
  /** Shared with another server (multi-instance tests). */
  prefix?: string;
  /** Settings the environment cannot give a loopback test server (e.g. no public base URL). */
  config?: Partial<Config>;
  plugins?: ServerPlugins;
}

export interface TestServer {
  server: Server;
  config: Config;
  prefix: string;
  /** Set once listen() was called. */
  url: string | null;
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startServer(o: TestServerOptions): Promise<TestServer> {
  const prefix = o.prefix ?? uniquePrefix();
  const env: Record<string, string> = {
    INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
    INTERACTIONS_KEY_PREFIX: prefix,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:4000',
    LOG_LEVEL: 'silent',
    ...(o.store === 'redis' ? { INTERACTIONS_REDIS_URL: inject('redisUrl') } : {}),
    ...o.env,
  };
  const loaded = loadConfig(env);
  // A free port unless the test chose one (e.g. to match INTERACTIONS_PUBLIC_BASE_URL).
  const config = { ...loaded, port: o.env?.PORT ? loaded.port : 0, ...o.config } as Config;
  const server = await createServer(config, createLogger('silent'), o.plugins);
  const t: TestServer = {
    server,
    config,
    prefix,
    url: null,
    async listen() {
      t.url = await server.listen();
      return t.url;
    },
    close: () => server.close(),
  };
  return t;
}

export function auth(who: Who): Record<string, string> {
  return { authorization: `Bearer ${KEYS[who]}` };
}

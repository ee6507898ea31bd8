// Test helpers: the official MCP client connected to a test server's /mcp, in either era.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Principal } from '../../src/domain/principal.ts';
import type { Interactions } from '../../src/engine/types.ts';

export const ERAS = ['legacy', 'modern'] as const;
export type Era = (typeof ERAS)[number];

export async function connectMcp(
  baseUrl: string,
  key: string | null,
  era: Era,
  fetchImpl?: typeof fetch,
): Promise<Client> {
  const client = new Client(
    { name: 'tai-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: key === null ? {} : { authorization: `Bearer ${key}` } },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    // A dropped stream is a test's own doing: no resumption attempts that outlive the test.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  await client.connect(transport);
  return client;
}

const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };

/** Resolves with the id of the next question asked (registered before the ask is sent). */
export function nextAsked(engine: Interactions): Promise<string> {
  return new Promise((resolve) => {
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type === 'ASKED') {
          stop();
          resolve(e.question.id);
        }
      },
      resync() {},
    });
  });
}

/** The text of a tool result's first content block. */
export function textOf(result: { content?: unknown }): string {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return first?.text ?? '';
}

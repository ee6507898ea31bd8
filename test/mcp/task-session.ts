// Test helpers: the official Tasks requester (@modelcontextprotocol/ext-tasks) over a test
// server's /mcp. The SDK Client refuses `resultType: "task"` on 2026-07-28, so the package asks
// its host for a raw JSON-RPC path (rawDispatch): a plain POST with the transport's headers.
import type { Client } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { connectMcp } from './mcp-client.ts';

export const TASKS = 'io.modelcontextprotocol/tasks';
const VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'tai-task-test', version: '1.0.0' };

type Json = Parameters<Parameters<typeof createTaskSessionFromClient>[1]['rawDispatch'] & object>[0];

/** The JSON-RPC response to `id` in a JSON or an event-stream body. */
function responseIn(contentType: string, text: string, id: unknown): unknown {
  if (!contentType.includes('text/event-stream')) return JSON.parse(text);
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const msg = JSON.parse(line.slice(5)) as { id?: unknown };
    if (msg.id === id) return msg;
  }
  throw new Error(`no response to ${String(id)} in the stream`);
}

/** A JSON-RPC response as the tests read it, field by field. */
export interface RpcResponse {
  // biome-ignore lint/suspicious/noExplicitAny: results are read field by field in assertions.
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** POSTs one JSON-RPC request to /mcp as a 2026-07-28 client would, returning its response. */
export async function postRpc(
  baseUrl: string,
  key: string,
  request: Record<string, unknown>,
): Promise<RpcResponse> {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const name = params.taskId ?? params.name;
  const res = await fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      'mcp-protocol-version': VERSION,
      'mcp-method': String(request.method),
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify(request),
  });
  return responseIn(res.headers.get('content-type') ?? '', await res.text(), request.id) as RpcResponse;
}

/** The 2026-07-28 `_meta` envelope of a request, with or without the Tasks extension. */
export function envelope(tasks: boolean): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

export interface TaskClient {
  client: Client;
  session: ReturnType<typeof createTaskSessionFromClient>;
  close(): Promise<void>;
}

type SessionOptions = Parameters<typeof createTaskSessionFromClient>[1];

/**
 * A task-enabled session on `baseUrl` for the principal of `key`; with `onInputRequest` it also
 * declares form elicitation and answers the server's input requests with it.
 */
export async function connectTaskSession(
  baseUrl: string,
  key: string,
  onInputRequest?: SessionOptions['onInputRequest'],
): Promise<TaskClient> {
  const client = await connectMcp(baseUrl, key, 'modern');
  let nextId = 0;
  const session = createTaskSessionFromClient(client, {
    endpointId: `tai-test ${baseUrl}`,
    rawDispatch: async (request: Json) => {
      // The package hands over method and params; the host frames the JSON-RPC message.
      nextId += 1;
      const r = await postRpc(baseUrl, key, { ...(request as object), jsonrpc: '2.0', id: nextId });
      return r.error
        ? { kind: 'error', error: r.error as { code: number; message: string } }
        : { kind: 'result', result: r.result };
    },
    v2RequestFraming: {
      protocolVersion: VERSION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: {
        extensions: { [TASKS]: {} },
        ...(onInputRequest ? { elicitation: { form: {} } } : {}),
      },
    },
    ...(onInputRequest ? { onInputRequest } : {}),
  });
  return {
    client,
    session,
    async close() {
      await session.close();
      await client.close();
    },
  };
}

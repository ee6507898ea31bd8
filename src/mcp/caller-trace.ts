// The trace an MCP call continues (API.md §24), for ask_user and permission_prompt alike.
import type { ServerContext } from '@modelcontextprotocol/server';
import { type CallerTrace, callerTraceOf } from '../domain/trace.ts';

/**
 * The caller's trace (API.md §24): `traceparent`/`tracestate` in the request's `_meta` (where MCP
 * clients carry trace context), else the HTTP request's own headers.
 */
export function mcpCallerTrace(ctx: ServerContext): CallerTrace | null {
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  const fromMeta = callerTraceOf((name) => {
    const v = meta?.[name];
    return typeof v === 'string' ? v : null;
  });
  if (fromMeta) return fromMeta;
  const headers = ctx.http?.req?.headers;
  return headers ? callerTraceOf((name) => headers.get(name)) : null;
}

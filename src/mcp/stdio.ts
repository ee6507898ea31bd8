// The MCP tools over stdio (`tai mcp`), both protocol eras: the SDK's serveStdio pins one
// server instance per connection, in the era the client opened with.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { InteractionsPort } from './port.ts';
import { createMcpTools, type McpToolsOptions } from './tools.ts';

/** Serves until the client closes standard input, then resolves. */
export async function serveMcpStdio(port: InteractionsPort, options: McpToolsOptions = {}): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const handle = serveStdio(() => createMcpTools(port, options));
  await ended;
  await handle.close();
}

// `tai mcp`: the MCP tools over stdio for clients that launch local servers, forwarding every
// call to the server at TAI_URL with TAI_API_KEY (or --url/--key) through the SDK.
// Standard output carries the protocol only: nothing else may be printed there.
import { Command } from 'commander';
import { createInteractionsClient } from '../../client/index.ts';

/** The bridge's MCP progress heartbeat; TAI_MCP_PROGRESS_MS shortens it in tests. */
const PROGRESS_ENV = 'TAI_MCP_PROGRESS_MS';

export function createMcpCommand(
  env: Readonly<Record<string, string | undefined>>,
  defaultUrl: string,
): Command {
  return new Command('mcp')
    .description('serve the MCP tools (ask_user, await_answer, …) over stdio, forwarding to TAI_URL')
    .action(async function (this: Command) {
      const g = this.optsWithGlobals<{ url?: string; key?: string }>();
      const client = createInteractionsClient({
        url: g.url ?? env.TAI_URL ?? defaultUrl,
        apiKey: g.key ?? env.TAI_API_KEY,
        // Each held request stays under common proxy idle limits; the tool's own wait bounds it.
        holdSeconds: 25,
      });
      // Loaded only when this command runs: the other commands never pay for the MCP SDK.
      const { createClientPort } = await import('../../mcp/client-port.ts');
      const { serveMcpStdio } = await import('../../mcp/stdio.ts');
      const progress = Number(env[PROGRESS_ENV]);
      await serveMcpStdio(
        createClientPort(client),
        Number.isInteger(progress) && progress > 0 ? { progressIntervalMs: progress } : {},
      );
    });
}

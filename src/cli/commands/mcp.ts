// `tai mcp`: the MCP tools over stdio for clients that launch local servers, forwarding every
// call to the server at TAI_URL with TAI_API_KEY (or --url/--key) through the SDK.
// Standard output carries the protocol only: nothing else may be printed there.
import { Command } from 'commander';
import {
  createInteractionsClient,
  type InteractionsClient,
  NetworkError,
  UnauthenticatedError,
} from '../../client/index.ts';

/** The bridge's MCP progress heartbeat; TAI_MCP_PROGRESS_MS shortens it in tests. */
const PROGRESS_ENV = 'TAI_MCP_PROGRESS_MS';

/**
 * A refused key fails the start (on stderr, exit 1) instead of serving tools that fail one by
 * one. A server that cannot be reached now is only warned about: it may come up later, and
 * each call then says what went wrong.
 */
async function checkKey(
  client: InteractionsClient,
  url: string,
  warn: (line: string) => void,
): Promise<void> {
  try {
    await client.viewer();
  } catch (err) {
    if (err instanceof UnauthenticatedError) {
      throw new UnauthenticatedError(
        `the server at ${url} refused the API key (set TAI_API_KEY, or --key, to a valid key): ${err.message}`,
        { status: err.status },
      );
    }
    if (!(err instanceof NetworkError)) throw err;
    warn(`warning: cannot reach ${url} yet (${err.message}); serving anyway\n`);
  }
}

export function createMcpCommand(
  env: Readonly<Record<string, string | undefined>>,
  defaultUrl: string,
  /** Standard error (standard output is the protocol's). */
  warn: (line: string) => void,
): Command {
  return new Command('mcp')
    .description('serve the MCP tools (ask_user, await_answer, …) over stdio, forwarding to TAI_URL')
    .action(async function (this: Command) {
      const g = this.optsWithGlobals<{ url?: string; key?: string }>();
      const url = g.url ?? env.TAI_URL ?? defaultUrl;
      const client = createInteractionsClient({
        url,
        apiKey: g.key ?? env.TAI_API_KEY,
        // Each held request stays under common proxy idle limits; the tool's own wait bounds it.
        holdSeconds: 25,
      });
      await checkKey(client, url, warn);
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

// `tai serve`: the server itself, configured from the environment like `npm start`.
import { Command } from 'commander';
import type { CommandContext } from '../context.ts';

export function serveCommand(ctx: CommandContext): Command {
  return (
    new Command('serve')
      .description('run the server (settings from the environment, as `npm start`)')
      .option('--port <port>', 'listen on this port (sets PORT)')
      .option('--host <host>', 'listen on this address (sets HOST)')
      // Read by the server itself (src/app/main.ts) from the command line.
      .option('--verbose', 'say each setting left at its start-time default in full')
      .action(async (o: { port?: string; host?: string }) => {
        await ctx.io.serve(o);
      })
  );
}

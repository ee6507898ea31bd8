// The `tai` binary (bin/tai.mjs loads this through tsx): run the CLI on this process's
// arguments and streams, and exit with its code. `tai serve` keeps running until its server
// stops, so the exit code is set rather than forced.
import { processIO, runCli } from './program.ts';

process.exitCode = await runCli(process.argv.slice(2), processIO());

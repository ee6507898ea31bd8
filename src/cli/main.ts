// The `tai-interactions` binary (bin/tai-interactions.mjs loads this, through tsx in a
// checkout): run the CLI on this process's arguments and streams, and exit with its code. The
// program names itself as it was started (`tai` is its second name). `serve` keeps running until
// its server stops, so the exit code is set rather than forced.
import path from 'node:path';
import { processIO, runCli } from './program.ts';

const started = path.basename(process.argv[1] ?? '').replace(/\.mjs$/, '');
process.exitCode = await runCli(
  process.argv.slice(2),
  processIO(),
  started === 'tai' ? 'tai' : 'tai-interactions',
);

// `npm run build:server`: compile src/ (server, CLI, SDK, plugin types) to lib/ with
// declarations, then copy what tsc does not emit (the Redis Lua scripts, read at run time next
// to the module that loads them). lib/ mirrors src/, so relative paths such as the inbox's
// `../../../dist/inbox` resolve the same from either.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const lib = new URL('lib/', root);

// A clean tree: a deleted source file must not live on as a stale module.
rmSync(lib, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
cpSync(new URL('src/', root), lib, {
  recursive: true,
  filter: (from) => !from.includes('/src/inbox') && (!/\.[a-z]+$/i.test(from) || from.endsWith('.lua')),
});

// `npm run build:server`: compile src/ (server, CLI, SDK, plugin types) to lib/ with
// declarations, then copy what tsc does not emit (the Redis Lua scripts, read at run time next
// to the module that loads them). lib/ mirrors src/, so relative paths such as the inbox's
// `../../../dist/inbox` resolve the same from either.
//
// The new tree is built beside lib/ and swapped in with two renames, so a server running from
// this checkout (`npm start`) never finds lib/ half-built while a build runs: it sees the old
// tree or the new one. A clean tree each time: a deleted source file must not live on as a
// stale module.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const lib = fileURLToPath(new URL('lib', root));
const next = `${lib}.next-${process.pid}`;
const old = `${lib}.old-${process.pid}`;

rmSync(next, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], {
  cwd: root,
  stdio: 'inherit',
});
if (built.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  process.exit(built.status ?? 1);
}
cpSync(new URL('src/', root), next, {
  recursive: true,
  filter: (from) => !from.includes('/src/inbox') && (!/\.[a-z]+$/i.test(from) || from.endsWith('.lua')),
});
if (existsSync(lib)) renameSync(lib, old);
renameSync(next, lib);
rmSync(old, { recursive: true, force: true });

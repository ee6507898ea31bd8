// `prepare` (run by `npm ci`/`npm install` in this directory): build when this is a source
// checkout. An unpacked tarball ships lib/ and dist/inbox already built and has no src/, so a
// production install there (`npm ci --omit=dev`) needs no compiler.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/', import.meta.url))) {
  const npm = process.env.npm_execpath;
  const run = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(run.status ?? 1);
}

// The package as the registry would carry it, packed once from a copy of the checkout (the
// checkout's own lib/ is never touched, so a server running from it keeps running): the server
// built, then what `prepack` does (npm-shrinkwrap.json from package-lock.json, and the
// package.json without its clone-only `prepare` script), then `npm pack`. .ci/node-lines packs
// once for its Node 22 and 24 runs and passes the file in TAI_PACKED_TARBALL.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** What the package is built and packed from: everything `files` ships, and what builds it. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'CHANGELOG.md',
  'interactions.example.yaml',
  'src',
  'bin',
  'scripts',
  'schema',
  'docs',
  'examples',
  'dist/inbox',
];

/** TAI_PACKED_TARBALL when set (packed earlier by the same sources), else a fresh pack into `tmp`. */
export async function packedTarball(tmp: string): Promise<string> {
  const given = process.env.TAI_PACKED_TARBALL;
  if (given) {
    if (!existsSync(given)) throw new Error(`TAI_PACKED_TARBALL=${given} does not exist`);
    return given;
  }
  return packFromCopy(tmp);
}

export async function packFromCopy(tmp: string): Promise<string> {
  const copy = path.join(tmp, 'source');
  rmSync(copy, { recursive: true, force: true });
  for (const entry of SOURCES) {
    if (!existsSync(path.join(REPO, entry))) throw new Error(`${entry} is missing: run npm run build first`);
    cpSync(path.join(REPO, entry), path.join(copy, entry), { recursive: true });
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build-server.mjs'], { cwd: copy });
  // What `prepack` does after the build (a copy: nothing to restore afterwards).
  await run(process.execPath, ['scripts/shrinkwrap.mjs'], { cwd: copy });
  await run(process.execPath, ['scripts/pack-manifest.mjs', '--strip'], { cwd: copy });
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp, '--loglevel=warn'],
    { cwd: copy, maxBuffer: 16 * 1024 * 1024 },
  );
  return path.join(tmp, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

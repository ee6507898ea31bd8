// `prepack` / `postpack`: the package.json that goes into the tarball has no `prepare` script
// and no devDependencies. In a clone `prepare` builds lib/ and dist/inbox on `npm ci`; in the
// published package those ship built, and npm lists a `prepare` script among the install
// scripts it warns about on every install ("install scripts not yet covered by allowScripts").
// The devDependencies are not in the shipped npm-shrinkwrap.json (scripts/shrinkwrap.mjs), so
// without them here `npm ci --omit=dev` in the unpacked package installs exactly that tree (the
// container image does so); with them npm refuses the lock file as out of sync. `--strip` keeps the checkout's
// file beside it (package.json.prepack) and writes it without `prepare`; `--restore` puts the
// original back. A pack that died between the two leaves the copy behind: the next `--strip`
// (or a `--restore`) restores it first, so the checkout's package.json is never lost.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const file = new URL('package.json', root);
const kept = new URL('package.json.prepack', root);

if (existsSync(kept)) renameSync(kept, file);
if (process.argv.includes('--restore')) process.exit(0);
if (!process.argv.includes('--strip')) {
  console.error('usage: node scripts/pack-manifest.mjs --strip | --restore');
  process.exit(2);
}

const text = readFileSync(file, 'utf8');
const pkg = JSON.parse(text);
const { prepare: _prepare, ...scripts } = pkg.scripts ?? {};
const { devDependencies: _dev, ...shipped } = pkg;
writeFileSync(kept, text);
writeFileSync(file, `${JSON.stringify({ ...shipped, scripts }, null, 2)}\n`);

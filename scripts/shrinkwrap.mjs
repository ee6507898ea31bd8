// `prepack`: writes npm-shrinkwrap.json, the dependency tree the package ships to the people
// who install it, from package-lock.json (the one lockfile of this repository, which records
// the `overrides` that pin Node-20 releases). Only the runtime tree goes in: npm installs the
// devDependencies listed in a dependency's shrinkwrap too, so they are left out. `postpack`
// removes the file again (`--remove`): in the checkout npm would prefer it to package-lock.json.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const target = new URL('npm-shrinkwrap.json', root);

if (process.argv.includes('--remove')) {
  rmSync(target, { force: true });
  process.exit(0);
}

const lockFile = new URL('package-lock.json', root);
if (!existsSync(lockFile)) {
  console.error('package-lock.json is missing: run npm install first');
  process.exit(1);
}
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
if (lock.lockfileVersion !== 3) {
  console.error(`package-lock.json: lockfileVersion 3 expected, found ${lock.lockfileVersion}`);
  process.exit(1);
}
if (lock.name !== pkg.name || lock.version !== pkg.version) {
  console.error('package-lock.json does not match package.json (name or version): run npm install');
  process.exit(1);
}

const packages = {};
for (const [location, entry] of Object.entries(lock.packages)) {
  if (location === '') {
    // The root as a consumer sees it: no devDependencies to resolve.
    const { devDependencies: _dev, ...rootEntry } = entry;
    packages[location] = rootEntry;
    continue;
  }
  if (entry.dev) continue;
  // Needed by a devDependency and by an optional runtime one: here only the latter counts.
  if (entry.devOptional) {
    const { devOptional: _devOptional, ...rest } = entry;
    packages[location] = { ...rest, optional: true };
    continue;
  }
  packages[location] = entry;
}
writeFileSync(target, `${JSON.stringify({ ...lock, packages }, null, 2)}\n`);
console.log(`npm-shrinkwrap.json: ${Object.keys(packages).length - 1} runtime packages locked`);

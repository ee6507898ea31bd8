// `tsx test/package/pack-once.ts <dir>`: packs the package once into <dir> and prints the
// tarball's path (.ci/node-lines shares it between its Node 22 and Node 24 runs).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { packFromCopy } from './packed.ts';

const dir = path.resolve(process.argv[2] ?? '.tmp/packed');
mkdirSync(dir, { recursive: true });
process.stdout.write(`${await packFromCopy(dir)}\n`);

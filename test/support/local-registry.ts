// A loopback npm registry that serves one packed tarball as a published version, the way the
// public registry serves a package: its metadata says `_hasShrinkwrap: true` when the tarball
// carries npm-shrinkwrap.json, and npm then installs the tree that file locks. (npm reads a
// dependency's shrinkwrap only when the registry's metadata says it has one; a tarball installed
// by path gets its dependencies re-resolved from their ranges.) Every other request is
// redirected to the registry npm is configured with, so the real npm client does the rest.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';

export interface LocalRegistry {
  url: string;
  close(): Promise<void>;
}

/** Serves `tarball` (from `npm pack`) as its package's only version. */
export async function startLocalRegistry(tarball: string): Promise<LocalRegistry> {
  const run = promisify(execFile);
  const bytes = readFileSync(tarball);
  const manifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as {
    name: string;
    version: string;
  };
  const files = (await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 })).stdout.split('\n');
  const upstream = (await run('npm', ['config', 'get', 'registry'])).stdout.trim().replace(/\/+$/, '');
  const file = `${manifest.name}-${manifest.version}.tgz`;
  let base = '';
  const packument = () => ({
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        _hasShrinkwrap: files.includes('package/npm-shrinkwrap.json'),
        dist: {
          tarball: `${base}/${manifest.name}/-/${file}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        },
      },
    },
  });
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === `/${manifest.name}`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument()));
    } else if (url === `/${manifest.name}/-/${file}`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    } else {
      res.writeHead(302, { location: `${upstream}${url}` }).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

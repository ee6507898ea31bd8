// The package's version, read once from package.json: the one source that the CLI's --version,
// /health, the MCP server info and the GraphQL schema's description all show (a test fails if
// any of them drifts). src/domain/ and lib/domain/ sit two levels below the package root alike.
import { readFileSync } from 'node:fs';

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  if (typeof pkg.version !== 'string') throw new Error('package.json has no version');
  return pkg.version;
}

export const VERSION = readVersion();

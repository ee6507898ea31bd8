// Outside an installed copy of this package, `npx tai` runs an unrelated npm package named
// `tai`: no doc, example or paste-ready config may tell anyone to run it. The forms that can
// never reach somebody else's package are `npx tai-interactions …`, `npx --package
// tai-interactions -- tai …`, or the installed binary's path. The scan covers README.md, docs/
// and examples/, and JSON configs whose args start with "tai".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = /\.(md|ts|mjs|js|json|ya?ml|service|sh|txt)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full);
    return TEXT.test(name) ? [full] : [];
  });
}

/** Each `npx` command that would run the package named `tai` (a command line or a JSON args list). */
function strangerRuns(text: string): string[] {
  const found: string[] = [];
  // `npx tai …`, `npx -y tai …`, `npx --yes tai`: npx and its options, then the bare name `tai`.
  for (const m of text.matchAll(/\bnpx((?:\s+-{1,2}[\w-]+(?:=\S+)?)*)\s+tai(?=\s|$|[`'"])/gm)) {
    if (!/--package|-p\b/.test(m[1] ?? '')) found.push(m[0]);
  }
  // "command": "npx", "args": ["tai", …] (or ["-y", "tai", …]).
  for (const m of text.matchAll(/"command"\s*:\s*"npx"\s*,\s*"args"\s*:\s*\[([^\]]*)\]/g)) {
    const args = [...(m[1] ?? '').matchAll(/"([^"]*)"/g)].map((a) => a[1]);
    const first = args.find((a) => !a?.startsWith('-'));
    if (first === 'tai' && !args.some((a) => a?.startsWith('--package'))) found.push(m[0]);
  }
  return found;
}

describe('docs, README and examples never run somebody else’s `tai`', () => {
  it('the scan recognises the forms it must refuse, and passes the safe ones', () => {
    expect(strangerRuns('npx tai interactions list')).toHaveLength(1);
    expect(strangerRuns('run `npx tai mcp` now')).toHaveLength(1);
    expect(strangerRuns('npx -y tai mcp')).toHaveLength(1);
    expect(strangerRuns('"command": "npx", "args": ["tai", "mcp"]')).toHaveLength(1);
    expect(strangerRuns('"command": "npx", "args": ["--yes", "tai", "mcp"]')).toHaveLength(1);
    expect(strangerRuns('npx tai-interactions mcp')).toEqual([]);
    expect(strangerRuns('npx --package tai-interactions -- tai mcp')).toEqual([]);
    expect(strangerRuns('"command": "npx", "args": ["--yes", "tai-interactions", "mcp"]')).toEqual([]);
  });

  it('README.md, docs/ and examples/ hold none', () => {
    const files = [
      path.join(REPO, 'README.md'),
      ...filesUnder(path.join(REPO, 'docs')),
      ...filesUnder(path.join(REPO, 'examples')),
    ];
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((file) =>
      strangerRuns(readFileSync(file, 'utf8')).map((hit) => `${path.relative(REPO, file)}: ${hit}`),
    );
    expect(offending).toEqual([]);
  });
});

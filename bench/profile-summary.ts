// `npx tsx bench/profile-summary.ts <file.cpuprofile> [--from <function>] [--top N]`: sums a V8
// CPU profile's self time by module (our src files, each package, node internals, GC, idle) and
// by function. --from counts only the samples from the first one whose stack holds that function
// (or a frame of a file whose path ends so) on, so a figure's setup (asking the questions) stays out of a profile of its measured phase.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  parent?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function moduleOf(f: CallFrame): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  const nm = f.url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = f.url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = f.url.indexOf('/src/');
  if (src >= 0) return f.url.slice(src + 1).replace(/\?.*$/, '');
  if (f.url.startsWith('node:')) return f.url;
  return f.url;
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--from fn] [--top N]');
  const from = args.includes('--from') ? args[args.indexOf('--from') + 1] : undefined;
  const top = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 25;
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const stackHas = (id: number, fn: string): boolean => {
    for (let n = byId.get(id); n; n = n.parent === undefined ? undefined : byId.get(n.parent)) {
      if (n.callFrame.functionName === fn || n.callFrame.url.endsWith(fn)) return true;
    }
    return false;
  };
  let start = 0;
  if (from) {
    start = p.samples.findIndex((id) => stackHas(id, from));
    if (start < 0) throw new Error(`no sample under ${from}`);
  }
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (let i = start; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i + 1] ?? 0;
    const f = byId.get(p.samples[i]!)!.callFrame;
    total += dt;
    const m = moduleOf(f);
    byModule.set(m, (byModule.get(m) ?? 0) + dt);
    const key = `${f.functionName || '(anonymous)'}  ${m}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + dt);
  }
  const idle = byModule.get('(idle)') ?? 0;
  const busy = total - idle;
  const print = (title: string, m: Map<string, number>): void => {
    console.log(`\n${title} (ms, % of busy time)`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${(v / 1000).toFixed(0).padStart(7)} ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  console.log(
    `window ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`,
  );
  print('by module', byModule);
  print('by function', byFunction);
}

main();

// Sums the self time of a .cpuprofile (Node --cpu-prof or bench/servers/cpu-profile-on-signal.ts)
// by function and by module, largest first: `npx tsx bench/profile-summary.ts <file> [rows]`.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A module's short name: the package under node_modules, the path under the repo, or node's own. */
function moduleOf(url: string): string {
  if (!url) return '(native/vm)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return url;
  const src = /\/((?:src|bench)\/.*)$/.exec(url);
  return src ? src[1]! : url;
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: tsx bench/profile-summary.ts <file.cpuprofile> [rows]\n');
  process.exit(2);
}
const rows = Number(rowsArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nameOf = (id: number): string => {
  const f = byId.get(id)!.callFrame;
  return `${f.functionName || '(anonymous)'} ${moduleOf(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
const total = profile.endTime - profile.startTime;
const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
for (const [id, us] of selfUs) {
  const mod = moduleOf(byId.get(id)!.callFrame.url);
  const fn = nameOf(id);
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byModule.set(mod, (byModule.get(mod) ?? 0) + us);
}
// Inclusive time: each sample counts once for every distinct function on its stack.
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(nameOf(at));
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
}
const table = (title: string, m: Map<string, number>): void => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    process.stdout.write(
      `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}\n`,
    );
  }
};
process.stdout.write(`profile ${(total / 1000).toFixed(0)} ms, ${profile.samples.length} samples\n`);
table('self time by module', byModule);
table('self time by function', byFunction);
table('inclusive time by function', inclusive);

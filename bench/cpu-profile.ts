// `npx tsx bench/cpu-profile.ts <file.cpuprofile> [from=<s>] [to=<s>] [top=<n>] [filter=<text>]
// [callers=<text> depth=<n>]`: where a server's CPU time went, from a V8 profile written by
// `BENCH_CPU_PROF_DIR=<dir> npm run bench -- <figure>`. Prints busy time per second (to see where start-up ends), then, from second `from`
// on (to second `to`, when given), self time by module (a package, a src/ file, or a V8 bucket such as (garbage collector))
// and by function, inclusive time of the functions whose name or file contains `filter`, and
// the stacks (`depth` frames) under which functions matching `callers` spent their self time.
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

function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  return url.startsWith('node:') ? url : url.replace(/^file:\/\/.*\//, '');
}

function label(f: CallFrame): string {
  return `${f.functionName || '(anonymous)'} ${moduleOf(f.url, f.functionName)}:${f.lineNumber + 1}`;
}

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  process.stderr.write(
    'usage: tsx bench/cpu-profile.ts <file.cpuprofile> [from=<s>] [to=<s>] [top=<n>] [filter=<text>]\n',
  );
  process.exit(2);
}
const opts = Object.fromEntries(rest.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const top = Number(opts.top ?? 25);
const fromUs = Number(opts.from ?? 0) * 1e6;
const toUs = opts.to === undefined ? Number.POSITIVE_INFINITY : Number(opts.to) * 1e6;
const filter: string | undefined = opts.filter;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
const perSecond: number[] = [];
let at = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  const second = Math.floor(at / 1e6);
  if (byId.get(id)?.callFrame.functionName !== '(idle)') perSecond[second] = (perSecond[second] ?? 0) + dt;
  if (at >= fromUs && at < toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
});
process.stdout.write(
  `busy ms per second: ${Array.from(perSecond, (us, s) => `${s}:${Math.round((us ?? 0) / 1000)}`).join(' ')}\n`,
);

const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const idle = [...selfUs].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)');
const idleUs = idle.reduce((a, [, us]) => a + us, 0);
const busy = total - idleUs;

const sum = (key: (n: ProfileNode) => string): [string, number][] => {
  const m = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n || n.callFrame.functionName === '(idle)') continue;
    const k = key(n);
    m.set(k, (m.get(k) ?? 0) + us);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
};
const ms = (us: number): string => (us / 1000).toFixed(1).padStart(9);
const pct = (us: number): string => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;

process.stdout.write(
  `${file} from ${fromUs / 1e6} s\n  wall ${ms(total)} ms, busy ${ms(busy)} ms (idle ${ms(idleUs)} ms)\n`,
);
process.stdout.write('\nself time by module\n');
for (const [k, us] of sum((n) => moduleOf(n.callFrame.url, n.callFrame.functionName)).slice(0, top)) {
  process.stdout.write(`${ms(us)} ms ${pct(us)}  ${k}\n`);
}
process.stdout.write('\nself time by function\n');
for (const [k, us] of sum((n) => label(n.callFrame)).slice(0, top)) {
  process.stdout.write(`${ms(us)} ms ${pct(us)}  ${k}\n`);
}

if (filter) {
  // Inclusive time: a sample counts once for each distinct matching function on its stack.
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const k = label(n.callFrame);
      if (!seen.has(k) && k.includes(filter)) {
        seen.add(k);
        incl.set(k, (incl.get(k) ?? 0) + us);
      }
    }
  }
  process.stdout.write(`\ninclusive time of functions matching ${JSON.stringify(filter)}\n`);
  for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${ms(us)} ms ${pct(us)}  ${k}\n`);
  }
}

if (opts.callers) {
  // The stacks (innermost first, a few frames deep) under which functions matching `callers` ran.
  const depth = Number(opts.depth ?? 6);
  const stacks = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const leaf = byId.get(id);
    if (!leaf || !label(leaf.callFrame).includes(opts.callers)) continue;
    const frames: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && frames.length < depth; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (n) frames.push(label(n.callFrame));
    }
    const k = `${label(leaf.callFrame)}\n      < ${frames.join('\n      < ')}`;
    stacks.set(k, (stacks.get(k) ?? 0) + us);
  }
  process.stdout.write(`\nwhere ${JSON.stringify(opts.callers)} ran\n`);
  for (const [k, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${ms(us)} ms ${pct(us)}  ${k}\n`);
  }
}

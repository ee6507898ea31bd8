// Prints who retains objects of one constructor in a V8 heap snapshot: for the first few such
// objects, chains of (retainer constructor, edge name) up to a depth. Profiling aid:
//   node --import tsx bench/profile/heap-retainers.ts file.heapsnapshot Name [samples] [depth]
import { readFileSync } from 'node:fs';

const [file, wanted, samplesArg, depthArg] = process.argv.slice(2);
if (!file || !wanted) throw new Error('usage: heap-retainers.ts file Name [samples] [depth]');
const snap = JSON.parse(readFileSync(file, 'utf8')) as {
  snapshot: {
    meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
};
const { meta } = snap.snapshot;
const nw = meta.node_fields.length;
const ew = meta.edge_fields.length;
const nName = meta.node_fields.indexOf('name');
const nType = meta.node_fields.indexOf('type');
const nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type');
const eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const edgeTypes = meta.edge_types[0];
const nodeTypes = meta.node_types[0];
const count = snap.nodes.length / nw;
const retainers: number[][] = Array.from({ length: count }, () => []);
const retainerEdge: number[][] = Array.from({ length: count }, () => []);
let e = 0;
for (let n = 0; n < count; n++) {
  const edges = snap.nodes[n * nw + nEdges]!;
  for (let k = 0; k < edges; k++, e += ew) {
    if (edgeTypes[snap.edges[e + eType]!] === 'weak') continue;
    const to = snap.edges[e + eTo]! / nw;
    retainers[to]!.push(n);
    retainerEdge[to]!.push(e);
  }
}
const label = (n: number) =>
  `${nodeTypes[snap.nodes[n * nw + nType]!]}:${snap.strings[snap.nodes[n * nw + nName]!]!.slice(0, 50)}`;
const edgeLabel = (ei: number) => {
  const t = edgeTypes[snap.edges[ei + eType]!];
  const v = snap.edges[ei + eName]!;
  return t === 'element' || t === 'hidden' ? `[${v}]` : String(snap.strings[v]);
};
const samples = Number(samplesArg ?? 3);
const depth = Number(depthArg ?? 8);
let shown = 0;
for (let n = count - 1; n >= 0 && shown < samples; n--) {
  // `Name` matches objects of that constructor; `type:name` any node (e.g. `array:(object properties)`).
  const [t, name] = wanted.includes(':')
    ? [wanted.slice(0, wanted.indexOf(':')), wanted.slice(wanted.indexOf(':') + 1)]
    : ['object', wanted];
  if (snap.strings[snap.nodes[n * nw + nName]!] !== name) continue;
  if (nodeTypes[snap.nodes[n * nw + nType]!] !== t) continue;
  shown++;
  console.log(`— ${label(n)}`);
  let at = n;
  const seen = new Set([n]);
  for (let d = 0; d < depth; d++) {
    const rs = retainers[at]!;
    const list = rs.map((r, i) => `${label(r)}.${edgeLabel(retainerEdge[at]![i]!)}`);
    console.log(
      `${'  '.repeat(d + 1)}← ${list.slice(0, 4).join(' | ')}${list.length > 4 ? ` (+${list.length - 4})` : ''}`,
    );
    const next = rs.find((r) => !seen.has(r));
    if (next === undefined) break;
    seen.add(next);
    at = next;
  }
}

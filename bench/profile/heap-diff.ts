// Sums two V8 heap snapshots by node type and constructor name and prints the difference
// (count and self bytes), divided by a count (e.g. per held call):
//   node --import tsx bench/profile/heap-diff.ts before.heapsnapshot after.heapsnapshot [per]
import { readFileSync } from 'node:fs';

interface Totals {
  count: number;
  bytes: number;
}

function totals(file: string): { by: Map<string, Totals>; all: number } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const by = new Map<string, Totals>();
  let all = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const raw = snap.strings[snap.nodes[i + nameAt]!]!;
    // Strings and code are grouped by type; objects by constructor.
    const name = ['string', 'concatenated string', 'sliced string', 'code', 'number'].includes(type)
      ? ''
      : raw.length > 60
        ? `${raw.slice(0, 60)}…`
        : raw;
    const key = `${type}:${name}`;
    const size = snap.nodes[i + sizeAt]!;
    const t = by.get(key) ?? { count: 0, bytes: 0 };
    t.count++;
    t.bytes += size;
    by.set(key, t);
    all += size;
  }
  return { by, all };
}

const [beforeFile, afterFile, perArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts before after [per]');
const per = Number(perArg ?? 1);
const a = totals(beforeFile);
const b = totals(afterFile);
const rows = [...b.by.entries()].map(([key, t]) => {
  const was = a.by.get(key) ?? { count: 0, bytes: 0 };
  return { key, count: (t.count - was.count) / per, bytes: (t.bytes - was.bytes) / per };
});
rows.sort((x, y) => y.bytes - x.bytes);
console.log(`total self size: ${a.all} → ${b.all}; per: ${((b.all - a.all) / per).toFixed(0)} B`);
for (const r of rows.slice(0, Number(process.env.ROWS ?? 45))) {
  console.log(`${r.bytes.toFixed(0).padStart(8)} B ${r.count.toFixed(2).padStart(7)}×  ${r.key}`);
}

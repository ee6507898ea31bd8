// Preloaded into a server by bench/profile/held-heap.ts with PROMOTED=1 (a profiling run, never
// `npm run bench`): SIGPWR starts Node's GC profiler, the next SIGPWR stops it and prints one line,
// `gc-promoted {...}`: how many young collections ran and the bytes they moved into the old
// space (old-space use after each minus before), how many full collections ran. Promoted bytes
// that die later are what leaves the old space's pages half empty.
import v8 from 'node:v8';

interface Space {
  spaceName: string;
  spaceUsedSize: number;
}
interface Stat {
  gcType: string;
  beforeGC: { heapSpaceStatistics: Space[] };
  afterGC: { heapSpaceStatistics: Space[] };
}

const used = (spaces: Space[], name: string): number =>
  spaces.find((s) => s.spaceName === name)?.spaceUsedSize ?? 0;

let profiler: v8.GCProfiler | null = null;
process.on('SIGPWR', () => {
  if (!profiler) {
    profiler = new v8.GCProfiler();
    profiler.start();
    return;
  }
  const report = profiler.stop() as unknown as { statistics: Stat[] };
  profiler = null;
  let young = 0;
  let full = 0;
  let promoted = 0;
  for (const s of report.statistics) {
    if (s.gcType === 'Scavenge' || s.gcType === 'MinorMarkSweep' || s.gcType === 'MinorMarkCompact') {
      young++;
      promoted +=
        used(s.afterGC.heapSpaceStatistics, 'old_space') - used(s.beforeGC.heapSpaceStatistics, 'old_space');
    } else full++;
  }
  process.stdout.write(`gc-promoted ${JSON.stringify({ young, full, promoted })}\n`);
});

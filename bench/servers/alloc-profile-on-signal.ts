// Preloaded into a server by bench/profile/held-alloc.ts (a profiling run, never `npm run bench`):
// SIGWINCH starts V8's sampling heap profiler, counting every allocation whether or not it is
// collected later (so the profile shows the garbage a request makes, not only what it keeps);
// the next SIGWINCH stops it and writes <BENCH_ALLOC_PROFILE_DIR>/<pid>-<n>.heapprofile.
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_ALLOC_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  let n = 0;
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: Number(process.env.BENCH_ALLOC_SAMPLING ?? 4096),
        // BENCH_ALLOC_PROMOTED=1: leave out what young collections free, so what remains is what
        // was promoted to the old space (whether a full collection freed it later or not).
        // BENCH_ALLOC_RETAINED=1: leave out everything collected, with a full collection (gc(),
        // with --expose-gc) before the profile stops: what is still alive.
        includeObjectsCollectedByMajorGC: process.env.BENCH_ALLOC_RETAINED !== '1',
        includeObjectsCollectedByMinorGC:
          process.env.BENCH_ALLOC_PROMOTED !== '1' && process.env.BENCH_ALLOC_RETAINED !== '1',
      });
      return;
    }
    running = false;
    if (process.env.BENCH_ALLOC_RETAINED === '1') (globalThis as { gc?: () => void }).gc?.();
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) return;
      n++;
      // Whole or not at all: the reader waits for the name.
      const file = path.join(dir, `${process.pid}-${n}.heapprofile`);
      writeFileSync(`${file}.part`, JSON.stringify(result.profile));
      renameSync(`${file}.part`, file);
    });
  });
}

// Preloaded into server instances when BENCH_CPU_PROFILE_DIR is set (a profiling run, never
// `npm run bench` as recorded): SIGWINCH starts Node's CPU profiler, the next SIGWINCH stops it
// and writes <dir>/<name>-<pid>-<n>.cpuprofile, so a profile covers only a figure's load and
// not the start-up. Summarise with `npx tsx bench/cpu-profile.ts <file>`.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROFILE_DIR;
const name = process.env.BENCH_CPU_PROFILE_NAME ?? 'server';
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  let n = 0;
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      n++;
      writeFileSync(path.join(dir, `${name}-${process.pid}-${n}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

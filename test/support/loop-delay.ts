// How long the event loop was blocked while something ran, measured by a timer-lag probe: a 1 ms
// timer re-armed on every tick records the longest gap between two of its ticks. Waiting on I/O
// does not count; synchronous work (hashing, parsing, a quadratic loop) does.
// The gap is counted in this process's CPU time, not wall time: on a machine shared with other
// busy processes a 5 ms stretch of work can take 50 ms of wall time, while the work a forged
// request makes the loop do is what the bound is about. (perf_hooks' monitorEventLoopDelay
// records nothing for a block that ends just before it is disabled, and counts wall time.)

/** The longest gap between two ticks of a 1 ms timer, in milliseconds of CPU time, while `run` ran. */
export async function loopDelayDuring(run: () => Promise<unknown>): Promise<number> {
  let last = process.cpuUsage();
  let max = 0;
  let timer: NodeJS.Timeout;
  const tick = () => {
    const spent = process.cpuUsage(last);
    max = Math.max(max, (spent.user + spent.system) / 1000);
    last = process.cpuUsage();
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  try {
    await run();
    // One more tick after the work: a timer due later fires after the probe's, so a block at
    // the very end of `run` is measured too.
    await new Promise((resolve) => setTimeout(resolve, 3));
  } finally {
    clearTimeout(timer);
  }
  return max;
}

/**
 * The smallest of up to `tries` (default 5) measurements, stopping at the first one within `boundMs`. Other
 * processes on a busy machine can pause this whole process, which the probe cannot tell from a
 * block; code that blocks the loop blocks it on every try, so the minimum still catches it.
 */
export async function leastLoopDelay(
  run: () => Promise<unknown>,
  boundMs: number,
  tries = 5,
): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries && least >= boundMs; i++) {
    const delay = await loopDelayDuring(run);
    least = Math.min(least, delay);
  }
  return least;
}

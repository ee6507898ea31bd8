// Preloaded into the servers whose memory is measured (with --expose-gc): SIGUSR2 runs a full
// garbage collection, so an RSS reading compares live memory rather than whatever garbage
// happened to be waiting for the next collection, then prints one line with the process's
// memory after it (`gc-memory {...}`: a count, rss, heapTotal, heapUsed, external, arrayBuffers, and the
// size and use of each V8 heap space), so a
// figure can tell the JS heap from the rest. The server code itself is unchanged.
import v8 from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;
let collections = 0;
process.on('SIGUSR2', () => {
  gc?.();
  collections++;
  const spaces = Object.fromEntries(
    v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
  );
  process.stdout.write(`gc-memory ${JSON.stringify({ collections, ...process.memoryUsage(), spaces })}\n`);
});

// Preloaded into the servers whose memory is measured (with --expose-gc): SIGUSR2 runs a full
// garbage collection, so an RSS reading compares live memory rather than whatever garbage
// happened to be waiting for the next collection, then prints one line with the process's
// memory after it (`gc-memory {...}`: a count, rss, heapTotal, heapUsed, external, arrayBuffers), so a
// figure can tell the JS heap from the rest. The server code itself is unchanged.
const gc = (globalThis as { gc?: () => void }).gc;
let collections = 0;
process.on('SIGUSR2', () => {
  gc?.();
  collections++;
  process.stdout.write(`gc-memory ${JSON.stringify({ collections, ...process.memoryUsage() })}\n`);
});

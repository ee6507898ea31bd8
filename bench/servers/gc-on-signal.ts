// Preloaded into the servers whose memory is measured (with --expose-gc): SIGUSR2 runs a full
// garbage collection, so an RSS reading compares live memory rather than whatever garbage
// happened to be waiting for the next collection. The server code itself is unchanged.
const gc = (globalThis as { gc?: () => void }).gc;
process.on('SIGUSR2', () => gc?.());

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Two files at once even on two cores (vitest's default there is one): most of a file's time
    // is spent importing the server and waiting on Redis, Chromium and sockets, not computing,
    // and one at a time put CI's whole run at 26 of its 30 minutes (the suite 1,004 s → 672 s).
    // No test bounds wall time (the loop-delay probe counts CPU time), so sharing cores only
    // makes a test slower: the time-outs below are hang guards, sized for a loaded machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print its closing "N passed, M failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
  },
});

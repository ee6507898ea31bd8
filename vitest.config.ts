import { defineConfig } from 'vitest/config';

// Two groups, one after the other. First every file that needs no browser, two at a time: one at
// a time, a clean-clone `.ci/run` took 33 of its 30 minutes on two cores, most of it each file's
// start (a fresh process, the server's modules imported) while the other core idled. Then the
// inbox's Chromium files (test/e2e), one at a time: two browsers at once on two cores left a
// page's live feed short of "live" for 30 s (inbox-audience, inbox-step-up).
const BROWSER = ['test/e2e/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print its closing "N passed, M failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: BROWSER,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'browser', include: BROWSER, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});

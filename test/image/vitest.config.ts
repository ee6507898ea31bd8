// `npm run test:image` (container/test-image.sh): the container image test alone. Slow (an image
// built from Debian's packages, with podman's vfs driver), so it is not part of `npm test`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The repository, not this folder: the paths below are the same as in vitest.config.ts.
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    include: ['test/image/**/*.image.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_800_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-image.json' },
  },
});

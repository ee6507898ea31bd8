// Once per run, before any test: checks that a run which includes the inbox's browser tests
// (test/e2e/) has a Chromium, and stops at once with one line saying how to get one if not (the
// tests stay mandatory; a newcomer gets that line instead of stack traces among 1,600 results).
// Then starts a private redis-server on a free loopback port for the whole run, so the Redis
// suites never touch the machine's shared Redis on 6379. Tests read its URL with
// inject('redisUrl') and use a unique key prefix each.
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { missingChromium } from './chromium.ts';
import { startRedisServer } from './redis-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** Where the browser tests live: a run that selects any file here needs Chromium. */
const BROWSER_TESTS = /[\\/]test[\\/]e2e[\\/]/;

/** Whether this run's test files include a browser test (the whole suite does). */
async function runsBrowserTests(project: TestProject): Promise<boolean> {
  // The file filters given on the command line (`vitest run test/unit`); undefined: every file.
  const filters = (project.vitest as { filenamePattern?: string[] }).filenamePattern;
  const specs = await project.vitest.getRelevantTestSpecifications(filters);
  return specs.some((s) => BROWSER_TESTS.test(s.moduleId));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const missing = (await runsBrowserTests(project)) ? missingChromium() : null;
  if (missing) {
    // One line and out: an Error thrown here would be printed with a stack and a banner.
    process.stderr.write(`\n[test setup] ${missing}\n\n`);
    process.exit(1);
  }
  const redis = await startRedisServer();
  project.provide('redisUrl', redis.url);
  console.log(`[test setup] private redis-server on ${redis.url}`);
  return () => redis.stop();
}

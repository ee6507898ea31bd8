#!/usr/bin/env node
// Prints each failed test in the vitest JSON reports given as arguments, and each test that
// passed only on its retry: the file, the test's full name and the first lines of its message.
// .ci/run prints this just before its closing line, so the tail of a run names what failed (a
// run's log is often read from its end).
import fs from 'node:fs';
import path from 'node:path';

let shown = 0;
let flaky = 0;
for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    continue;
  }
  for (const suite of report.testResults ?? []) {
    const where = path.relative(process.cwd(), suite.name);
    const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    // A file that failed outside any test (an import error, a hook) has a message and no test.
    if (failed.length === 0 && suite.status === 'failed') {
      console.log(`FAILED ${where}: ${firstLines(suite.message)}`);
      shown++;
    }
    // A test that failed and then passed on its retry (vitest.config.ts `retry`) keeps the
    // first attempt's error: it counts as passed, and is named here so the flake gets fixed.
    for (const t of (suite.assertionResults ?? []).filter(
      (t) => t.status === 'passed' && (t.failureMessages ?? []).length > 0,
    )) {
      console.log(`FLAKY (passed on its retry) ${where} > ${t.fullName}`);
      console.log(`  ${firstLines(t.failureMessages[0])}`);
      flaky++;
    }
    for (const t of failed) {
      console.log(`FAILED ${where} > ${t.fullName}`);
      console.log(`  ${firstLines((t.failureMessages ?? [])[0])}`);
      shown++;
    }
  }
}
if (shown > 0) console.log(`${shown} failure(s) listed above`);
if (flaky > 0) console.log(`${flaky} test(s) passed only on their retry, listed above`);

function firstLines(text) {
  return String(text ?? '')
    .split('\n')
    .slice(0, 4)
    .join('\n  ')
    .slice(0, 800);
}

#!/usr/bin/env node
// The `tai-interactions` command (package.json "bin"; `tai` is the same program under a second
// name, for an installed package only). Installed from the package it runs the compiled CLI
// (lib/); in a source checkout (src/ beside lib/, tsx installed) it runs the sources through
// tsx, so a change needs no rebuild before the command or the tests that spawn it see it.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  await import('../lib/cli/main.js');
}

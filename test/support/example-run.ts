// Runs one of examples/ as its own Node process, the way a reader would, and lets the test wait
// for a line it prints (registered before any output can arrive, so no line is missed).
import { spawn } from 'node:child_process';

export interface ExampleRun {
  /** stdout so far. */
  stdout(): string;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** The exit code once the example has exited. */
  readonly exited: Promise<number | null>;
  /** The first match of `pattern` in stdout; rejects if the example exits before printing it. */
  readonly printed: Promise<RegExpExecArray>;
}

export function runExample(script: string, env: Record<string, string>, pattern: RegExp): ExampleRun {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const printed = new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) resolve(m);
    });
    child.on('exit', () => reject(new Error(`example exited early: ${out}${err}`)));
  });
  return { stdout: () => out, output: () => out + err, exited, printed };
}

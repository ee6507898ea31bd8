// The `tai` CLI run in this process (runCli with captured streams), for tests that drive its
// commands without a process start per case. `serve` is not available in process.
import { type CliIO, runCli } from '../../src/cli/program.ts';
import { inquirerPrompter, type Prompter } from '../../src/cli/prompt.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  /** TAI_URL, TAI_API_KEY and the like; nothing from the test runner's environment. */
  env?: Record<string, string>;
  interactive?: boolean;
  prompter?: Prompter;
  setupChannel?: CliIO['setupChannel'];
}

export async function runCliInProcess(args: string[], o: InProcessOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
    env: o.env ?? {},
    interactive: o.interactive ?? false,
    prompter: o.prompter ?? inquirerPrompter(),
    onInterrupt: () => () => {},
    serve: () => Promise.reject(new Error('not served in process')),
    ...(o.setupChannel ? { setupChannel: o.setupChannel } : {}),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

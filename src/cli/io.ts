// What the CLI reads and writes, as one object, so tests run it in process with their own streams.
import { inquirerPrompter, type Prompter } from './prompt.ts';

export interface CliIO {
  /** Standard output: results. */
  out(text: string): void;
  /** Standard error: errors, usage, progress notes and prompts. */
  err(text: string): void;
  /** The environment (TAI_URL, TAI_API_KEY). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether the person can be prompted (stdin is a terminal). */
  interactive: boolean;
  prompter: Prompter;
  /** Calls `stop` once when the person interrupts (Ctrl-C); returns a function that stops listening. */
  onInterrupt(stop: () => void): () => void;
  /** Standard input, read to its end (`tai hook codex` reads the hook event there). */
  readStdin?(): Promise<string>;
  /** `tai serve`: start the server from the environment (and the given overrides). */
  serve(overrides: { port?: string; host?: string }): Promise<void>;
  /** `tai channels setup <name>`: the channel's one-time provider set-up, from the server's settings. */
  setupChannel?(name: string): Promise<string>;
}

/** The CLI of this process: real streams, SIGINT, the real server for `serve`. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    interactive: process.stdin.isTTY === true,
    prompter: inquirerPrompter(),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    onInterrupt(stop) {
      process.once('SIGINT', stop);
      return () => process.off('SIGINT', stop);
    },
    async serve(overrides) {
      if (overrides.port !== undefined) process.env.PORT = overrides.port;
      if (overrides.host !== undefined) process.env.HOST = overrides.host;
      // The only place the CLI loads server code: src/app/main.ts reads the environment, starts,
      // prints the one-off admin key if it mints one, and stops cleanly on SIGINT/SIGTERM.
      await import('../app/main.ts');
    },
    async setupChannel(name) {
      // Like `serve`, this reads the server's settings and manifest: server code loads only here.
      const { setupChannel } = await import('../app/channel-setup.ts');
      const log = (obj: object, msg?: string) =>
        process.stderr.write(`${msg ?? ''} ${JSON.stringify(obj)}\n`);
      return setupChannel(name, process.env, process.cwd(), { info: log, warn: log, error: log });
    },
  };
}

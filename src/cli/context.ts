// What every command needs from the program: the SDK client for the global --url/--key, and
// printing as text or, with --json, as JSON.
import type { Command } from 'commander';
import { type ClientOptions, createInteractionsClient, type InteractionsClient } from '../client/index.ts';
import type { CliIO } from './io.ts';
import { parseUrl } from './parse.ts';

export const DEFAULT_URL = 'http://127.0.0.1:4000';

interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
}

export interface CommandContext {
  io: CliIO;
  /** The client for the command's --url and --key (or TAI_URL, TAI_API_KEY), with any `extra` options. */
  clientOf(cmd: Command, extra?: Omit<ClientOptions, 'url' | 'apiKey'>): InteractionsClient;
  /** Whether --json was given. */
  asJson(cmd: Command): boolean;
  /** `value` as JSON with --json, else `text()`. */
  print(cmd: Command, value: unknown, text: () => string): void;
}

export function createCommandContext(io: CliIO): CommandContext {
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals<GlobalOptions>();
  const asJson = (cmd: Command): boolean => globals(cmd).json === true;
  return {
    io,
    clientOf(cmd, extra = {}) {
      const g = globals(cmd);
      const url = g.url ?? io.env.TAI_URL ?? DEFAULT_URL;
      return createInteractionsClient({ ...extra, url: parseUrl(url), apiKey: g.key ?? io.env.TAI_API_KEY });
    },
    asJson,
    print(cmd, value, text) {
      io.out(asJson(cmd) ? `${JSON.stringify(value, null, 2)}\n` : text());
    },
  };
}

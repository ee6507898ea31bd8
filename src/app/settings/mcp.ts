// MCP elicitation (API.md §13.1): the HMAC key that signs the `requestState` a 2026-07-28 client
// echoes back after it put a question to its own user. Every instance must share it, since the
// retry may reach any of them. Unset: the server makes one at start and warns (server.ts).
import { z } from 'zod';
import { settingsArea } from './fields.ts';

/** The SDK's HMAC codec wants at least 256 bits of key. */
export const MCP_STATE_KEY_MIN_CHARS = 32;

export interface McpSettings {
  /** The requestState signing key; null: generate one at start. Never logged or echoed. */
  readonly mcpStateKey: string | null;
}

export const mcpSettings = settingsArea({
  env: {
    INTERACTIONS_MCP_STATE_KEY: z
      .string()
      // The value is a secret: the message says what is wrong, never what was given.
      .min(MCP_STATE_KEY_MIN_CHARS, {
        error: `expected at least ${MCP_STATE_KEY_MIN_CHARS} characters (a random secret shared by every instance)`,
      })
      .optional(),
  },
  read: (e): McpSettings => ({ mcpStateKey: e.INTERACTIONS_MCP_STATE_KEY ?? null }),
});

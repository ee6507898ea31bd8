// The key that signs MCP elicitation states (API.md §13.1), from INTERACTIONS_MCP_STATE_KEY or,
// without it, made at start: a client's retry then verifies only on this instance, until it stops.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../engine/logger.ts';
import type { Config } from './config.ts';

export function mcpStateKey(config: Pick<Config, 'mcpStateKey'>, logger: Logger): string {
  if (config.mcpStateKey !== null) return config.mcpStateKey;
  logger.warn(
    { setting: 'INTERACTIONS_MCP_STATE_KEY' },
    'INTERACTIONS_MCP_STATE_KEY is not set: MCP elicitation states are signed with a key made at ' +
      'start, so an answer given in an MCP client must come back to this instance before it ' +
      'restarts; set it (the same random secret on every instance) when several instances serve /mcp',
  );
  return randomBytes(32).toString('base64url');
}

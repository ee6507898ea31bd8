// The channel instances a manifest declares, created once at start: the seam the composition
// root adapts to the engine's ChannelPort and the HTTP layer's inbound door.
import { cappedFetch } from './response-body.ts';
import type { ChannelContext, ChannelInstance, ChannelLogger, ChannelPlugin } from './types.ts';

/** A declaration as the manifest returns it (`config` already parsed by the plugin's schema). */
export interface ChannelDeclarationInput {
  config: unknown;
  implementation: ChannelPlugin;
}

export interface ChannelSetDeps {
  env: Readonly<Record<string, string | undefined>>;
  logger: ChannelLogger;
  /** Without a trailing slash; null when unset (channels then cannot be used: NOT_CONFIGURED). */
  publicBaseUrl: string | null;
  fetch?: typeof fetch;
}

export interface ChannelSet {
  names(): ReadonlySet<string>;
  get(name: string): ChannelInstance | undefined;
  /** Closes every instance; one failing does not stop the others. */
  close(): Promise<void>;
}

export function inboundPath(name: string): string {
  return `/api/interactions/channels/${encodeURIComponent(name)}`;
}

export function createChannelSet(
  declarations: Record<string, ChannelDeclarationInput>,
  deps: ChannelSetDeps,
): ChannelSet {
  const instances = new Map<string, ChannelInstance>();
  const base = deps.publicBaseUrl?.replace(/\/+$/, '') ?? '';
  for (const [name, decl] of Object.entries(declarations)) {
    const context: ChannelContext = {
      name,
      // Looked up when used, never copied into the instance's config or deliveries.
      secret: (envName) => deps.env[envName] || undefined,
      logger: deps.logger,
      // Every response a plugin reads is bounded, whichever client library reads it.
      fetch: cappedFetch(deps.fetch ?? globalThis.fetch),
      publicBaseUrl: base,
      inboundUrl: `${base}${inboundPath(name)}`,
    };
    instances.set(name, decl.implementation.create(decl.config, context));
  }
  return {
    names: () => new Set(instances.keys()),
    get: (name) => instances.get(name),
    async close() {
      await Promise.allSettled([...instances.values()].map((i) => i.close?.()));
    },
  };
}

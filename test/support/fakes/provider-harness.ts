// The shape a channel's test fake takes so one contract suite can run every built-in plugin:
// start the fake, configure the plugin against it, read what it received, build a signed inbound
// request as the provider sends it, and tamper with one. Discord's and Teams' harnesses
// (discord-harness.ts, teams-harness.ts) have it.
import type { InboundRequest } from '../../../src/channels/types.ts';

type Obj = Record<string, unknown>;

export interface ProviderHarness {
  /** The built-in plugin's name (`discord`). */
  plugin: string;
  /** The manifest `config` for the plugin, pointed at the fake. */
  config: Obj;
  /** The environment the config names (`*Env` keys). */
  secrets: Record<string, string>;
  /** A recipient the fake accepts (also the config's `defaultRecipient`). */
  recipient: string;
  /** What the fake received for new messages, in the provider's wire format, oldest first. */
  deliveries(): Obj[];
  /** Edits of delivered messages (Discord PATCH, Teams PUT), oldest first. */
  edits(): Obj[];
  /** Resolves with the first edit whose JSON contains `text`. */
  waitForEdit(text: string): Promise<Obj>;
  /** A signed request answering CONFIRM question `questionId`, exactly as the provider sends it. */
  confirm(questionId: string, yes: boolean): Promise<InboundRequest>;
  /** The same request with one byte changed where the provider's signature covers it. */
  tamper(request: InboundRequest): InboundRequest;
  /** The next delivery is refused by the provider. */
  failNextDelivery(): void;
  close(): Promise<void>;
}

/** `request` with the byte at `at` of `bytes` changed. */
export function flipByte(bytes: Buffer, at: number): Buffer {
  const out = Buffer.from(bytes);
  const i = Math.min(Math.max(at, 0), out.length - 1);
  out[i] = out[i] === 0x41 ? 0x42 : 0x41;
  return out;
}

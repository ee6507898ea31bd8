// The decision-receipt signer (API.md §16), from the configured key set or, without one, a key
// generated now: receipts then verify only against this process's JWKS, until it stops.
import type { Logger } from '../engine/logger.ts';
import { generateReceiptKey } from '../proof/receipt-keys.ts';
import { createReceiptSigner, type ReceiptSigner } from '../proof/receipt-signer.ts';
import type { Config } from './config.ts';

export async function openReceiptSigner(
  config: Pick<Config, 'deliveryKeys'>,
  logger: Logger,
  issuer: () => string,
): Promise<ReceiptSigner> {
  if (config.deliveryKeys) return createReceiptSigner({ keys: config.deliveryKeys, issuer });
  const key = await generateReceiptKey();
  logger.warn(
    { kid: key.kid },
    'INTERACTIONS_RECEIPT_KEYS_FILE is not set: decision receipts are signed with a key made at ' +
      'start, so they stop verifying after a restart and differ between instances; set it for ' +
      'receipts a tool can check later (docs/receipts-and-audit.md)',
  );
  return createReceiptSigner({ keys: [key], issuer });
}

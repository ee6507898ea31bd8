// Decision receipts (API.md §16): the JWK Set whose first key signs them. Unset: the server
// generates a key at start and warns that its receipts stop verifying after a restart.
import { parseReceiptKeySet, type ReceiptJwk } from '../../proof/receipt-keys.ts';
import { ConfigError, optionalPath, readSettingFile, settingsArea } from './fields.ts';

export interface ReceiptSettings {
  /** The signing keys, the signing one first; null: generate one at start. */
  readonly deliveryKeys: readonly ReceiptJwk[] | null;
}

const VARIABLE = 'INTERACTIONS_RECEIPT_KEYS_FILE';

export const receiptSettings = settingsArea({
  env: { INTERACTIONS_RECEIPT_KEYS_FILE: optionalPath },
  read: (e, io): ReceiptSettings => {
    const path = e.INTERACTIONS_RECEIPT_KEYS_FILE;
    if (path === null) return { deliveryKeys: null };
    const text = readSettingFile(VARIABLE, path, io.readFile);
    try {
      return { deliveryKeys: Object.freeze(parseReceiptKeySet(text)) };
    } catch (err) {
      // The parser's messages name the key by position and kid, never its material.
      throw new ConfigError(VARIABLE, (err as Error).message);
    }
  },
});

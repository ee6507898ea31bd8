// The start-up secrets every server instance of one benchmark run is given: a receipt key file, a
// VAPID key file and an MCP state key, made once per run in a temporary directory (removed when
// the run ends). Without them each instance makes its own at start and warns that it did, and
// those three warnings per instance buried the real ones in RESULTS.md's notes. They are set
// rather than filtered away, so any warning an instance prints is one worth reading.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { generateReceiptKey } from '../../src/proof/receipt-keys.ts';

let made: Promise<{ dir: string; env: Record<string, string> }> | null = null;
let madeDir: string | null = null;

async function make(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-secrets-'));
  madeDir = dir;
  const receipts = join(dir, 'receipt-keys.json');
  writeFileSync(receipts, JSON.stringify({ keys: [await generateReceiptKey()] }), { mode: 0o600 });
  const vapid = join(dir, 'vapid-keys.json');
  writeFileSync(vapid, JSON.stringify(webpush.generateVAPIDKeys()), { mode: 0o600 });
  return {
    dir,
    env: {
      INTERACTIONS_RECEIPT_KEYS_FILE: receipts,
      INTERACTIONS_VAPID_KEYS_FILE: vapid,
      INTERACTIONS_MCP_STATE_KEY: randomBytes(32).toString('base64url'),
    },
  };
}

/** The settings that point an instance at this run's secrets (made on first use). */
export async function runSecretsEnv(): Promise<Record<string, string>> {
  made ??= make();
  return (await made).env;
}

/** Removes this run's secrets directory (synchronous, so it works in an exit handler). */
export function removeRunSecrets(): void {
  if (madeDir !== null) rmSync(madeDir, { recursive: true, force: true });
  madeDir = null;
  made = null;
}

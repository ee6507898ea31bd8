// The minimal passkey control (API.md §23): a person signed in through the identity provider
// registers a passkey or security key here, needed to approve HIGH-assurance actions. The server
// asks for a sign-in under 5 minutes old; its refusal is shown as it says it.
import { useState } from 'react';
import type { Transport } from '../lib/api.ts';
import { passkeysSupported, registerPasskey } from '../lib/passkeys.ts';

export function PasskeySettings({ api }: { api: Transport }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  if (!passkeysSupported()) return null;
  const register = async (): Promise<void> => {
    setBusy(true);
    setNote(null);
    try {
      await registerPasskey(api);
      setNote('Passkey registered');
    } catch (err) {
      setNote(err instanceof Error ? err.message : 'The passkey was not registered.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="passkeys">
      <button type="button" className="quiet" disabled={busy} onClick={() => void register()}>
        Register a passkey
      </button>
      {note && (
        <span role="status" data-testid="passkey-status">
          {note}
        </span>
      )}
    </div>
  );
}

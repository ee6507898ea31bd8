// "Grants you have given" (API.md §20): the ALLOWs the signed-in person gave while approving
// ("Approve and allow for 1 hour"), each with what it covers, until when and how often it was
// used, and Revoke, which ends it at once (the server checks that it is theirs).
import { useCallback, useEffect, useId, useState } from 'react';
import {
  InboxMyGrantsDocument,
  type InboxMyGrantsQuery,
  InboxRevokeGrantDocument,
} from '../../client/generated/graphql.ts';
import { failureText, type Transport } from '../lib/api.ts';
import { formatWhen } from '../lib/time.ts';
import { plainId } from './hooks.ts';

type Grant = InboxMyGrantsQuery['myGrants'][number];

const SCOPE_TEXT: Record<string, string> = {
  SAME_ARGUMENTS: 'the same arguments',
  SAME_ACTION: 'any arguments',
};

function usesText(g: Grant): string {
  if (g.maxUses === null) return `used ${g.uses} ${g.uses === 1 ? 'time' : 'times'}`;
  return `used ${g.uses} of ${g.maxUses}`;
}

export function GrantsSettings({ api }: { api: Transport }) {
  const id = plainId(useId());
  const [grants, setGrants] = useState<readonly Grant[] | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setGrants((await api.request(InboxMyGrantsDocument, {})).myGrants);
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'Could not read your grants.') });
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const revoke = async (g: Grant): Promise<void> => {
    setBusy(g.id);
    setNote(null);
    try {
      const done = (await api.request(InboxRevokeGrantDocument, { id: g.id })).revokeGrant;
      setNote({ ok: true, text: done ? `Grant for ${g.action} revoked.` : 'That grant had already ended.' });
      await load();
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'The grant was not revoked.') });
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="grants-settings" data-testid="grants-settings">
      {grants === null ? (
        <p className="hint">Loading your grants…</p>
      ) : grants.length === 0 ? (
        <p data-testid="grants-empty">
          You have given no grants. “Approve and allow for 1 hour” on an approval gives one.
        </p>
      ) : (
        <ul className="grant-list">
          {grants.map((g) => (
            <li key={g.id} className="grant" data-grant-id={g.id}>
              <p id={`${id}-${g.id}`} className="grant-line">
                <strong>{g.action}</strong> asked by {g.asker}, with {SCOPE_TEXT[g.scope] ?? g.scope}
                <span className="hint">
                  {' '}
                  · until <time dateTime={g.expiresAt}>{formatWhen(Date.parse(g.expiresAt))}</time> ·{' '}
                  {usesText(g)}
                </span>
              </p>
              <button
                type="button"
                className="quiet"
                disabled={busy !== null}
                aria-describedby={`${id}-${g.id}`}
                onClick={() => void revoke(g)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'settings-ok' : 'card-error'}>
          {note.text}
        </p>
      )}
    </div>
  );
}

// Away and quiet hours (API.md §22): the signed-in person hands their questions to someone
// while away (at most 90 days), ends that early, sees whose questions they receive, and sets
// quiet hours and a digest. Every check is the server's: this page shows its refusals as they
// come (what is wrong, and which values are allowed), and changes nothing itself.
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import {
  type Digest as DigestEnum,
  PeopleEndDelegationDocument,
  PeopleSetDelegationDocument,
  PeopleSetNotificationPrefsDocument,
  PeopleSettingsDocument,
  type PeopleSettingsQuery,
} from '../../client/generated/graphql.ts';
import { failureText, type Transport } from '../lib/api.ts';

type Settings = PeopleSettingsQuery['viewer'];

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function PeopleSettings({ api }: { api: Transport }) {
  const id = useId();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [to, setTo] = useState('');
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');
  const [from, setFrom] = useState('');
  const [quietTo, setQuietTo] = useState('');
  const [zone, setZone] = useState(localZone());
  const [digest, setDigest] = useState<DigestEnum>('NONE');

  const load = useCallback(async () => {
    try {
      const s = (await api.request(PeopleSettingsDocument, {})).viewer;
      setSettings(s);
      const q = s.notificationPrefs.quietHours;
      setFrom(q?.from ?? '');
      setQuietTo(q?.to ?? '');
      if (q) setZone(q.timeZone);
      setDigest(s.notificationPrefs.digest);
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'Could not read your settings.') });
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const run = async (what: () => Promise<string>): Promise<void> => {
    setNote(null);
    try {
      setNote({ ok: true, text: await what() });
      await load();
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'The change was not saved.') });
    }
  };

  const delegate = (e: FormEvent): Promise<void> => {
    e.preventDefault();
    return run(async () => {
      // A datetime-local value is the person's local time: the server takes UTC.
      const at = until === '' ? '' : new Date(until).toISOString();
      const d = (await api.request(PeopleSetDelegationDocument, { to, until: at, reason: reason || null }))
        .setDelegation;
      return `Your questions go to ${d.to} until ${new Date(d.until).toLocaleString()}.`;
    });
  };

  const saveQuiet = (e: FormEvent): Promise<void> => {
    e.preventDefault();
    return run(async () => {
      const quietHours = from && quietTo ? { from, to: quietTo, timeZone: zone } : null;
      await api.request(PeopleSetNotificationPrefsDocument, { input: { quietHours, digest } });
      return quietHours ? `Quiet hours ${from}–${quietTo} saved.` : 'Notifications are not held.';
    });
  };

  const d = settings?.delegation ?? null;
  return (
    <section className="people-settings" aria-label="Away and quiet hours" data-testid="people-settings">
      <h2>Away</h2>
      {d ? (
        <p data-testid="delegation-current">
          Your questions go to <strong>{d.to}</strong> until {new Date(d.until).toLocaleString()}
          {d.reason ? ` (${d.reason})` : ''}.{' '}
          <button
            type="button"
            className="quiet"
            onClick={() =>
              run(async () =>
                (await api.request(PeopleEndDelegationDocument, {})).endDelegation
                  ? 'Delegation ended.'
                  : 'No delegation was in force.',
              )
            }
          >
            End now
          </button>
        </p>
      ) : (
        <p data-testid="delegation-current">Your questions come to you.</p>
      )}
      {settings && settings.actingFor.length > 0 && (
        <p data-testid="acting-for">You receive the questions of {settings.actingFor.join(', ')}.</p>
      )}
      <form onSubmit={delegate} className="settings-form">
        <label htmlFor={`${id}-to`}>Hand my questions to</label>
        <input id={`${id}-to`} value={to} onChange={(e) => setTo(e.target.value)} required />
        <label htmlFor={`${id}-until`}>Until</label>
        <input
          id={`${id}-until`}
          type="datetime-local"
          value={until}
          onChange={(e) => setUntil(e.target.value)}
          required
        />
        <label htmlFor={`${id}-reason`}>Reason</label>
        <input
          id={`${id}-reason`}
          value={reason}
          maxLength={200}
          onChange={(e) => setReason(e.target.value)}
        />
        <button type="submit">Hand over</button>
      </form>
      <h2>Quiet hours</h2>
      <form onSubmit={saveQuiet} className="settings-form">
        <label htmlFor={`${id}-from`}>From</label>
        <input id={`${id}-from`} type="time" value={from} onChange={(e) => setFrom(e.target.value)} />
        <label htmlFor={`${id}-qto`}>To</label>
        <input id={`${id}-qto`} type="time" value={quietTo} onChange={(e) => setQuietTo(e.target.value)} />
        <label htmlFor={`${id}-zone`}>Time zone</label>
        <input id={`${id}-zone`} value={zone} onChange={(e) => setZone(e.target.value)} />
        <label htmlFor={`${id}-digest`}>Digest</label>
        <select id={`${id}-digest`} value={digest} onChange={(e) => setDigest(e.target.value as DigestEnum)}>
          <option value="NONE">None</option>
          <option value="HOURLY">Hourly</option>
          <option value="DAILY">Daily</option>
        </select>
        <button type="submit">Save</button>
      </form>
      {note && (
        <p
          role={note.ok ? 'status' : 'alert'}
          data-testid="settings-note"
          className={note.ok ? 'note' : 'error'}
        >
          {note.text}
        </p>
      )}
    </section>
  );
}

/** The settings behind a disclosure in the top bar: read when opened, not before. */
export function PeopleSettingsMenu({ api }: { api: Transport }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="people-menu" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Away &amp; quiet hours</summary>
      {open && <PeopleSettings api={api} />}
    </details>
  );
}

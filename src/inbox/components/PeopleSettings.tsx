// Away and quiet hours (API.md §22), two sections of the settings page over one read of the
// person's settings: hand their questions to someone while away (at most 90 days), end that
// early, see whose questions they receive; quiet hours and a digest. Every check is the
// server's: each section shows its refusals as they come (what is wrong, and which values are
// allowed), and changes nothing itself.
import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useState } from 'react';
import {
  type Digest as DigestEnum,
  PeopleEndDelegationDocument,
  PeopleSetDelegationDocument,
  PeopleSetNotificationPrefsDocument,
  PeopleSettingsDocument,
  type PeopleSettingsQuery,
} from '../../client/generated/graphql.ts';
import { failureText, type Transport } from '../lib/api.ts';

export type PeopleSettingsData = PeopleSettingsQuery['viewer'];

export interface PeopleSettingsState {
  settings: PeopleSettingsData | null;
  /** Why they could not be read, if they could not. */
  problem: string | null;
  reload(): Promise<void>;
}

/** The person's delegation, whom they act for, and notification preferences, read once. */
export function usePeopleSettings(api: Transport): PeopleSettingsState {
  const [settings, setSettings] = useState<PeopleSettingsData | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setSettings((await api.request(PeopleSettingsDocument, {})).viewer);
      setProblem(null);
    } catch (err) {
      setProblem(failureText(err, 'Could not read your settings.'));
    }
  }, [api]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { settings, problem, reload };
}

type Note = { ok: boolean; text: string } | null;

/** Runs a change and says how it went; the settings are read again after a success. */
function useChange(reload: () => Promise<void>) {
  const [note, setNote] = useState<Note>(null);
  const run = async (what: () => Promise<string>): Promise<void> => {
    setNote(null);
    try {
      setNote({ ok: true, text: await what() });
      await reload();
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'The change was not saved.') });
    }
  };
  return { note, run };
}

function NoteLine({ note, problem }: { note: Note; problem: string | null }): ReactNode {
  const shown = note ?? (problem ? { ok: false, text: problem } : null);
  if (!shown) return null;
  return (
    <p
      role={shown.ok ? 'status' : 'alert'}
      data-testid="settings-note"
      className={shown.ok ? 'settings-ok' : 'card-error'}
    >
      {shown.text}
    </p>
  );
}

export function AwaySettings({ api, people }: { api: Transport; people: PeopleSettingsState }) {
  const id = useId();
  const { settings, problem, reload } = people;
  const { note, run } = useChange(reload);
  const [to, setTo] = useState('');
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');

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

  const d = settings?.delegation ?? null;
  return (
    <div className="people-settings" data-testid="away-settings">
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
        <div className="settings-actions">
          <button type="submit">Hand over</button>
        </div>
      </form>
      <p className="hint">At most 90 days; your delegate’s own delegation is not followed.</p>
      <NoteLine note={note} problem={problem} />
    </div>
  );
}

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function QuietHoursSettings({ api, people }: { api: Transport; people: PeopleSettingsState }) {
  const id = useId();
  const { settings, problem, reload } = people;
  const { note, run } = useChange(reload);
  const [from, setFrom] = useState('');
  const [quietTo, setQuietTo] = useState('');
  const [zone, setZone] = useState(localZone());
  const [digest, setDigest] = useState<DigestEnum>('NONE');

  // The form shows what is saved whenever that changes (by value: a change in the other section
  // reads the settings again, and must not undo what is being typed here).
  const saved = settings ? JSON.stringify(settings.notificationPrefs) : null;
  useEffect(() => {
    if (saved === null) return;
    const prefs = JSON.parse(saved) as PeopleSettingsData['notificationPrefs'];
    const q = prefs.quietHours;
    setFrom(q?.from ?? '');
    setQuietTo(q?.to ?? '');
    if (q) setZone(q.timeZone);
    setDigest(prefs.digest);
  }, [saved]);

  const saveQuiet = (e: FormEvent): Promise<void> => {
    e.preventDefault();
    return run(async () => {
      const quietHours = from && quietTo ? { from, to: quietTo, timeZone: zone } : null;
      await api.request(PeopleSetNotificationPrefsDocument, { input: { quietHours, digest } });
      return quietHours ? `Quiet hours ${from}–${quietTo} saved.` : 'Notifications are not held.';
    });
  };

  return (
    <div className="people-settings" data-testid="quiet-settings">
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
        <div className="settings-actions">
          <button type="submit">Save</button>
        </div>
      </form>
      <p className="hint">
        Pushes to your devices wait during quiet hours (the questions still wait here); a digest sums them up
        when they end. Messages to the chats, numbers and addresses you linked below wait too, and go out one
        by one when the quiet hours end.
      </p>
      <NoteLine note={note} problem={problem} />
    </div>
  );
}

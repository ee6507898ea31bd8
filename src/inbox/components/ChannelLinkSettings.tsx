// "Linked channels" (API.md §22): the chat accounts, phone numbers and addresses the signed-in
// person has linked, so that their quiet hours hold those deliveries too; Unlink on each; and a
// form that asks a recipient on a channel to confirm a link. The link is made by a "yes" answered
// there, on the channel, never here: this page only asks. Every check is the server's (which
// channels can be linked, what a recipient looks like, at most 10 links), shown as it comes.
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import {
  ChannelLinksDocument,
  type ChannelLinksQuery,
  LinkChannelDocument,
  UnlinkChannelDocument,
} from '../../client/generated/graphql.ts';
import { failureText, type Transport } from '../lib/api.ts';
import { formatWhen } from '../lib/time.ts';
import { plainId } from './hooks.ts';

type Link = ChannelLinksQuery['viewer']['channelLinks'][number];
type Note = { ok: boolean; text: string } | null;

export function ChannelLinkSettings({ api }: { api: Transport }) {
  const id = plainId(useId());
  const [links, setLinks] = useState<readonly Link[] | null>(null);
  // Channels with an inbound door: a "yes" can come back only from those (the server says which take a recipient).
  const [channels, setChannels] = useState<readonly string[]>([]);
  const [channel, setChannel] = useState('');
  const [recipient, setRecipient] = useState('');
  const [note, setNote] = useState<Note>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const data = await api.request(ChannelLinksDocument, {});
      setLinks(data.viewer.channelLinks);
      const names = data.channelDetails.filter((c) => c.inbound).map((c) => c.name);
      setChannels(names);
      setChannel((current) => (current === '' || !names.includes(current) ? (names[0] ?? '') : current));
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'Could not read your linked channels.') });
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  const act = async (what: () => Promise<string>): Promise<void> => {
    setBusy(true);
    setNote(null);
    try {
      setNote({ ok: true, text: await what() });
      await load();
    } catch (err) {
      setNote({ ok: false, text: failureText(err, 'Nothing was changed.') });
    } finally {
      setBusy(false);
    }
  };

  const ask = (e: FormEvent): Promise<void> => {
    e.preventDefault();
    return act(async () => {
      const q = (await api.request(LinkChannelDocument, { channel, recipient })).linkChannel;
      setRecipient('');
      return `We sent a question to ${q.recipient ?? recipient} on ${q.channel ?? channel}: answer yes there.`;
    });
  };

  const unlink = (l: Link): Promise<void> =>
    act(async () =>
      (await api.request(UnlinkChannelDocument, { channel: l.channel, recipient: l.recipient })).unlinkChannel
        ? `${l.recipient} on ${l.channel} is no longer linked.`
        : 'That link had already ended.',
    );

  return (
    <div className="links-settings" data-testid="links-settings">
      {links === null ? (
        <p className="hint">Loading your linked channels…</p>
      ) : links.length === 0 ? (
        <p data-testid="links-empty">No channel is linked: your quiet hours hold pushes only.</p>
      ) : (
        <ul className="link-list">
          {links.map((l, i) => {
            const key = `${l.channel}\u0000${l.recipient}`;
            const lineId = `${id}-link-${i}`;
            return (
              <li key={key} className="channel-link" data-channel={l.channel}>
                <p id={lineId} className="link-line">
                  <strong>{l.recipient}</strong> on {l.channel}
                  <span className="hint">
                    {' '}
                    · confirmed by {l.confirmedBy} ·{' '}
                    <time dateTime={l.linkedAt}>{formatWhen(Date.parse(l.linkedAt))}</time>
                  </span>
                </p>
                <button
                  type="button"
                  className="quiet"
                  disabled={busy}
                  aria-describedby={lineId}
                  onClick={() => void unlink(l)}
                >
                  Unlink
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {channels.length === 0 ? (
        <p className="hint" data-testid="links-no-channel">
          No channel on this server can send the confirming question.
        </p>
      ) : (
        <form onSubmit={ask} className="settings-form">
          <label htmlFor={`${id}-channel`}>Channel</label>
          <select id={`${id}-channel`} value={channel} onChange={(e) => setChannel(e.target.value)}>
            {channels.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-recipient`}>Your id there</label>
          <input
            id={`${id}-recipient`}
            value={recipient}
            onChange={(e) => setRecipient(e.target.value)}
            placeholder="a Slack user id, a Telegram chat id, a phone number"
            required
          />
          <div className="settings-actions">
            <button type="submit" disabled={busy}>
              Send the question
            </button>
          </div>
        </form>
      )}
      <p className="hint">
        The link is made when you answer yes on that channel; an answer here does not count. A recipient is
        one person’s (linking it again replaces the earlier link); at most 10.
      </p>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'settings-ok' : 'card-error'}>
          {note.text}
        </p>
      )}
    </div>
  );
}

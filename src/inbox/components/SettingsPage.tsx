// The settings page (issue 44 item 5): every setting of the signed-in person in one layout, one
// section per subject under the same heading style, reached from the top bar's Settings button
// and by the address `#settings` (a bookmark, or the printed sign-in URL with `&settings`).
// Sections: Account & sign-in, Passkeys, Notifications (this device's pushes, quiet hours and
// digests), Linked channels (whose deliveries quiet hours hold), Away (delegation), and Grants
// you have given. One column that reads the same at a
// desk and on a phone.
import { type ReactNode, useId } from 'react';
import type { Transport } from '../lib/api.ts';
import type { Viewer } from '../lib/model.ts';
import { passkeysSupported } from '../lib/passkeys.ts';
import { ChannelLinkSettings } from './ChannelLinkSettings.tsx';
import { GrantsSettings } from './GrantsSettings.tsx';
import { plainId } from './hooks.ts';
import { PasskeySettings } from './PasskeySettings.tsx';
import { AwaySettings, QuietHoursSettings, usePeopleSettings } from './PeopleSettings.tsx';
import { PushSettings } from './PushSettings.tsx';
import './settings.css';

function Section({ title, about, children }: { title: string; about?: string; children: ReactNode }) {
  const id = plainId(useId());
  return (
    <section className="settings-section" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {about && <p className="hint settings-about">{about}</p>}
      {children}
    </section>
  );
}

export function SettingsPage({
  api,
  viewer,
  signedIn,
  onSignOut,
  onClose,
}: {
  api: Transport;
  viewer: Viewer;
  /** Signed in through the identity provider (a person, who may register a passkey). */
  signedIn: boolean;
  onSignOut(message: string | null): void;
  onClose(): void;
}) {
  const people = usePeopleSettings(api);
  return (
    <section id="panel-settings" className="settings-page" aria-labelledby="settings-title">
      <div className="settings-head">
        <h2 id="settings-title">Settings</h2>
        <button type="button" className="quiet" onClick={onClose}>
          Back to the inbox
        </button>
      </div>

      <Section title="Account & sign-in">
        <p className="who">
          Signed in as <strong title={viewer.id}>{viewer.name ?? viewer.id}</strong>
        </p>
        <p className="hint" data-testid="account-detail">
          {signedIn ? 'Through your identity provider' : 'With an API key, kept for this tab only'} · id{' '}
          <code>{viewer.id}</code>
          {viewer.roles.length > 0 && ` · ${viewer.roles.join(', ')}`}
          {viewer.restricted && ' · sees only questions addressed to it'}
        </p>
        <div className="settings-actions">
          <button type="button" className="quiet" onClick={() => onSignOut(null)}>
            Sign out
          </button>
        </div>
      </Section>

      <Section
        title="Passkeys"
        about="A passkey or security key is asked for before you approve a high-assurance action."
      >
        {signedIn && passkeysSupported() ? (
          <PasskeySettings api={api} />
        ) : (
          <p data-testid="passkeys-unavailable">
            {signedIn
              ? 'This browser cannot register a passkey.'
              : 'Passkeys belong to people signed in through the identity provider; an API key has none.'}
          </p>
        )}
      </Section>

      <Section title="Notifications" about="On this device, and when to hold them everywhere.">
        <h4>This device</h4>
        <PushSettings api={api} />
        <h4>Quiet hours and digest</h4>
        <QuietHoursSettings api={api} people={people} />
      </Section>

      <Section
        title="Linked channels"
        about="Your accounts on the server’s channels: your quiet hours hold what is sent to them too."
      >
        <ChannelLinkSettings api={api} />
      </Section>

      <Section title="Away" about="While you are away, someone else receives and answers your questions.">
        <AwaySettings api={api} people={people} />
      </Section>

      <Section
        title="Grants you have given"
        about="Approvals that also allowed the same ask of the same agent for a while: revoke one to be asked again."
      >
        <GrantsSettings api={api} />
      </Section>
    </section>
  );
}

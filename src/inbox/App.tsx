// Sign-in and the signed-in inbox. The key comes from the `#key=` fragment the server prints at
// start (then removed from the address bar with history.replaceState) or is typed in; it is kept
// in sessionStorage only and sent as a Bearer header, never in a URL. When the server offers
// sign-in through the organisation's identity provider (API.md §19), the card also shows
// "Sign in with …"; a person signed in that way is carried by an httpOnly session cookie.
import { type FormEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { InboxViewerDocument } from '../client/generated/graphql.ts';
import { SignInWith } from './components/SignInWith.tsx';
import { Inbox } from './Inbox.tsx';
import { createInboxApi, failureText, isRefusedKey } from './lib/api.ts';
import { createFeedSession, type FeedSession } from './lib/feed-session.ts';
import { createKeyStore, type KeyStorage, normalizeKey, takeKeyFromFragment } from './lib/key.ts';
import type { Viewer } from './lib/model.ts';
import { endSession, fetchSignInState, type SignInState } from './lib/sign-in.ts';

type Session =
  | { phase: 'checking' }
  /** The server could not be reached to check a stored key: the key is kept for a retry. */
  | { phase: 'unreachable'; key: string; message: string }
  | { phase: 'signed-out'; message: string | null }
  /** `key` null: signed in through the identity provider (the session cookie). */
  | { phase: 'signed-in'; key: string | null; viewer: Viewer; feed: FeedSession };

function sessionStore(): KeyStorage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Checks a key against the API: the viewer, or the sign-in message saying why not. */
async function verify(key: string): Promise<{ viewer: Viewer } | { refused: boolean; message: string }> {
  try {
    const data = await createInboxApi({ key }).request(InboxViewerDocument, {});
    return { viewer: data.viewer };
  } catch (err) {
    if (isRefusedKey(err)) {
      return { refused: true, message: 'That API key was not accepted (401). Check it and try again.' };
    }
    return {
      refused: false,
      message: failureText(err, 'The key could not be checked: try again.'),
    };
  }
}

function SignIn({
  message,
  provider,
  onSubmit,
}: {
  message: string | null;
  provider: SignInState['signIn'];
  onSubmit(key: string): Promise<void>;
}) {
  const id = useId();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [local, setLocal] = useState<string | null>(null);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const key = normalizeKey(value);
    if (key === null) {
      setLocal('Enter an API key (it has no spaces).');
      return;
    }
    setLocal(null);
    setBusy(true);
    await onSubmit(key);
    setBusy(false);
  };
  const shown = local ?? message;
  return (
    <main className="signin">
      <form className="signin-card" onSubmit={(e) => void submit(e)} aria-describedby={`${id}-about`}>
        <h1>Inbox</h1>
        <p id={`${id}-about`} className="hint">
          Sign in with an API key to see and answer the questions waiting for you. The key is kept for this
          tab only.
        </p>
        {shown && (
          <p className="card-error" role="alert">
            {shown}
          </p>
        )}
        {provider && <SignInWith label={provider.label} url={provider.url} />}
        <label htmlFor={`${id}-key`}>API key</label>
        <input
          id={`${id}-key`}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  );
}

export function App() {
  const keys = useMemo(() => createKeyStore(sessionStore()), []);
  const [session, setSession] = useState<Session>({ phase: 'checking' });
  const [provider, setProvider] = useState<SignInState['signIn']>(null);

  /** The feed of the signed-in session (or the one being entered): closed when another replaces it. */
  const liveFeed = useRef<FeedSession | null>(null);
  const enter = useCallback((key: string | null, viewer: Viewer, feed: FeedSession) => {
    if (liveFeed.current !== feed) liveFeed.current?.close();
    liveFeed.current = feed;
    setSession({ phase: 'signed-in', key, viewer, feed });
  }, []);
  /** Counts sign-in attempts: only the latest one's check decides the page. */
  const attempts = useRef(0);

  const signIn = useCallback(
    async (key: string) => {
      const attempt = ++attempts.current;
      // The feed is asked for beside the viewer check, not after it (the backlog starts streaming
      // a round trip earlier); nothing of it shows until the check accepts the key, and a key the
      // check refuses or cannot check has its feed closed.
      const feed = createFeedSession(createInboxApi({ key }));
      feed.open();
      const result = await verify(key);
      if (attempt !== attempts.current) {
        feed.close();
        return;
      }
      if ('viewer' in result) {
        keys.set(key);
        enter(key, result.viewer, feed);
        return;
      }
      feed.close();
      if (!result.refused && keys.get() === key) {
        setSession({ phase: 'unreachable', key, message: result.message });
      } else {
        keys.clear();
        setSession({ phase: 'signed-out', message: result.message });
      }
    },
    [keys, enter],
  );

  useEffect(() => {
    /** Takes a key from the fragment (removing it from the address bar); true when there was one. */
    const takeFromUrl = (): boolean => {
      const fromUrl = takeKeyFromFragment(window.location.hash);
      if (!fromUrl.found) return false;
      // The key must not linger in the address bar, the history or a bookmark.
      const { pathname, search } = window.location;
      const rest = fromUrl.rest ? `#${fromUrl.rest}` : '';
      window.history.replaceState(window.history.state, '', `${pathname}${search}${rest}`);
      if (fromUrl.key !== null) keys.set(fromUrl.key);
      return true;
    };
    takeFromUrl();
    const stored = keys.get();
    // A key in hand wins; else a session cookie may already sign this person in.
    void fetchSignInState().then((state) => {
      setProvider(state.signIn);
      if (stored !== null) return;
      const person = state.signedIn;
      if (person) enter(null, { ...person }, createFeedSession(createInboxApi({ key: null })));
      else setSession({ phase: 'signed-out', message: null });
    });
    if (stored !== null) void signIn(stored);
    // The printed URL pasted into a tab that already shows the page changes only the fragment.
    const onHashChange = (): void => {
      const key = takeFromUrl() ? keys.get() : null;
      if (key !== null) void signIn(key);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [keys, signIn, enter]);

  const signOut = useCallback(
    (message: string | null) => {
      keys.clear();
      attempts.current++;
      liveFeed.current?.close();
      liveFeed.current = null;
      setSession({ phase: 'signed-out', message });
      // Ending the server's session too (harmless without one): the cookie is httpOnly.
      void endSession();
    },
    [keys],
  );

  switch (session.phase) {
    case 'checking':
      return (
        <main className="signin">
          <p className="empty">Signing in…</p>
        </main>
      );
    case 'unreachable':
      return (
        <main className="signin">
          <div className="signin-card">
            <h1>Inbox</h1>
            <p className="card-error" role="alert">
              {session.message}
            </p>
            <div className="actions">
              <button type="button" className="primary" onClick={() => void signIn(session.key)}>
                Try again
              </button>
              <button type="button" className="quiet" onClick={() => signOut(null)}>
                Sign out
              </button>
            </div>
          </div>
        </main>
      );
    case 'signed-out':
      return <SignIn message={session.message} provider={provider} onSubmit={signIn} />;
    case 'signed-in':
      return <Inbox apiKey={session.key} feed={session.feed} viewer={session.viewer} onSignOut={signOut} />;
  }
}

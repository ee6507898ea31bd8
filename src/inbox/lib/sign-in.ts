// Sign-in through the organisation's identity provider (API.md §19): the server's own
// /auth/session says whether it is offered and who is signed in; the session itself is an
// httpOnly cookie the page never sees. Signing out is a POST the browser sends with our Origin.

export interface SignedInPerson {
  id: string;
  name: string;
  roles: readonly string[];
  restricted: boolean;
}

export interface SignInState {
  /** The "Sign in with …" button's provider label and door; null when OIDC is not configured. */
  signIn: { label: string; url: string } | null;
  signedIn: SignedInPerson | null;
}

const NONE: SignInState = { signIn: null, signedIn: null };

function isState(value: unknown): value is SignInState {
  return typeof value === 'object' && value !== null && 'signIn' in value && 'signedIn' in value;
}

/** What the server says about sign-in; nothing offered when it cannot be asked (keys still work). */
export async function fetchSignInState(fetchFn: typeof fetch = fetch): Promise<SignInState> {
  try {
    const res = await fetchFn('/auth/session', { credentials: 'same-origin', cache: 'no-store' });
    if (!res.ok) return NONE;
    const body: unknown = await res.json();
    return isState(body) ? body : NONE;
  } catch {
    return NONE;
  }
}

/** Ends the session on the server (every instance); resolves whether the server confirmed it. */
export async function endSession(fetchFn: typeof fetch = fetch): Promise<boolean> {
  try {
    const res = await fetchFn('/auth/logout', {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
    });
    return res.ok;
  } catch {
    return false;
  }
}

// The "Sign in with …" link of the sign-in card (API.md §19): a plain navigation to the server's
// /auth/login, which sends the person on to the identity provider and back.
export function SignInWith({ label, url }: { label: string; url: string }) {
  return (
    <div className="signin-oidc">
      <a className="button primary" href={url} data-testid="sign-in-with">
        Sign in with {label}
      </a>
      <p className="hint">or paste an API key below.</p>
    </div>
  );
}

// The settings page's address (issue 44 item 5): `#settings`, alone or beside other fragment
// parameters (the printed sign-in URL `#key=…&settings` opens it once the key is taken out).

/** Whether a URL fragment asks for the settings page. */
export function isSettingsHash(hash: string): boolean {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  return body.split('&').includes('settings');
}

/** The fragment with the settings page added or removed, other parameters kept (no leading `#`). */
export function withSettings(hash: string, on: boolean): string {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const rest = body.split('&').filter((p) => p !== '' && p !== 'settings');
  return (on ? [...rest, 'settings'] : rest).join('&');
}

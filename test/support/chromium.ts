// Which Chromium the inbox's browser tests drive (test/e2e/), and the one line a run prints
// when there is none. Nothing is downloaded: a missing binary is reported with how to get one.
import { existsSync } from 'node:fs';

/** Debian's package; elsewhere set CHROMIUM_PATH (e.g. `/usr/bin/chromium-browser`, Chrome). */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

type Env = Readonly<Record<string, string | undefined>>;

function chosenPath(env: Env): string {
  return env.CHROMIUM_PATH?.trim() || DEFAULT_CHROMIUM_PATH;
}

/** What to do when the browser is missing; null when CHROMIUM_PATH (or Debian's path) names a file. */
export function missingChromium(env: Env = process.env): string | null {
  const chosen = chosenPath(env);
  if (existsSync(chosen)) return null;
  return (
    `no Chromium at ${chosen}: the inbox's browser tests (test/e2e/) need one; install it ` +
    '(Debian/Ubuntu: apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary'
  );
}

/** The browser binary to drive: `CHROMIUM_PATH` when set, else Debian's; throws the hint when missing. */
export function chromiumPath(env: Env = process.env): string {
  const missing = missingChromium(env);
  if (missing) throw new Error(missing);
  return chosenPath(env);
}

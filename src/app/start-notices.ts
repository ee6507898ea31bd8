// What the server says at start about its public base URL (API.md §1): the loopback default it
// took, and every channel that cannot reach people because of it. Pure over the settings, so it
// is tested without a process; main.ts logs each line as a warning.
import type { Config, ManifestSettings } from './config.ts';

export function baseUrlNotices(
  config: Pick<Config, 'publicBaseUrl' | 'publicBaseUrlDefaulted'>,
  manifest: Pick<ManifestSettings, 'manifest'> | undefined,
): string[] {
  const channels = Object.entries(manifest?.manifest.channels ?? {});
  const notices: string[] = [];
  if (config.publicBaseUrlDefaulted) {
    notices.push(
      `INTERACTIONS_PUBLIC_BASE_URL is not set: callback URLs use ${config.publicBaseUrl}, which only ` +
        'this machine can open; set it to an https:// origin that people and providers can reach',
    );
    for (const [name, { plugin }] of channels) {
      notices.push(
        `channel ${name} (${plugin}): its links point at ${config.publicBaseUrl}, which its recipients ` +
          'cannot reach; set INTERACTIONS_PUBLIC_BASE_URL',
      );
    }
  } else if (config.publicBaseUrl === null) {
    for (const [name, { plugin }] of channels) {
      notices.push(
        `channel ${name} (${plugin}) cannot be used: INTERACTIONS_PUBLIC_BASE_URL is not set, so ` +
          'questions to it fail with NOT_CONFIGURED',
      );
    }
  }
  return notices;
}

/** A start-time default said at start: "<SETTING> is not set: <what that means>". */
const DEFAULTED = /^([A-Z][A-Z0-9_]*) is not set: /;

/** The one line that stands for every "<SETTING> is not set" warning of a start. */
export function notSetSummary(settings: readonly string[]): string {
  const verb = settings.length === 1 ? 'is' : 'are';
  return (
    `${settings.join(', ')} ${verb} not set: this run uses start-time defaults (fine to try it out, ` +
    'not for a deployment); start with --verbose to see what each means, or run tai-interactions doctor'
  );
}

type WarnLogger = { warn(...args: unknown[]): void };

export interface HeldWarnings<L> {
  /** The logger to start with: while held, its "is not set" warnings are collected. */
  logger: L;
  /** Says the collected ones in one line (if any) and lets later warnings through. */
  release(): void;
}

/**
 * A start used to print one JSON warning per setting left at its default (five on a plain
 * `serve`), before the inbox URL a newcomer is looking for. Until `release()`, each such warning
 * is kept back, and then said once, by setting name. Every other warning passes at once, and
 * with `verbose` every warning does (the full text: what the default means and what to set).
 */
export function holdStartWarnings<L extends WarnLogger>(logger: L, verbose: boolean): HeldWarnings<L> {
  const held: string[] = [];
  let holding = !verbose;
  const warn = (...args: unknown[]): void => {
    const msg = typeof args[0] === 'string' ? args[0] : args[1];
    const setting = holding && typeof msg === 'string' ? DEFAULTED.exec(msg)?.[1] : undefined;
    if (setting === undefined) logger.warn(...args);
    else if (!held.includes(setting)) held.push(setting);
  };
  const proxy = new Proxy(logger, {
    get(target, prop) {
      if (prop === 'warn') return warn;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    logger: proxy,
    release() {
      if (!holding) return;
      holding = false;
      if (held.length > 0) logger.warn({ notSet: held }, notSetSummary(held));
    },
  };
}

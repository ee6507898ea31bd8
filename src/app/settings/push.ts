// Web Push (API.md §19): the VAPID key pair (INTERACTIONS_VAPID_KEYS_FILE; unset: generated at
// start, with a warning, so subscriptions end at each restart), the push services the server
// may post to (INTERACTIONS_PUSH_HOSTS: a bare host means port 443, `host:port` only for a
// loopback host) and how long a signed-in person's devices keep receiving after the session
// that subscribed them expired (INTERACTIONS_PUSH_GRACE_DAYS). The private key is never echoed.
import { z } from 'zod';
import { isPlainObject } from '../../domain/values.ts';
import { DEFAULT_PUSH_HOSTS, LOOPBACK_HOSTS, pushHostEntry } from '../../engine/people/push-subscription.ts';
import { ConfigError, optionalPath, readSettingFile, settingsArea, shown, wholeNumber } from './fields.ts';

export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
  /** Who runs the server, for push services (a mailto: or https: URL). */
  readonly subject: string;
}

export interface PushSettings {
  /** Null: generate a pair at start. */
  readonly vapidKeys: VapidKeys | null;
  /** `host` (port 443) or, for a loopback host, `host:port`; lowercase. */
  readonly pushHosts: readonly string[];
  /** A session's subscriptions work this long after the person's last sign-in, once it expired. */
  readonly pushGraceDays: number;
}

export const DEFAULT_PUSH_GRACE_DAYS = 30;
/** Below the 400 days a person's last sign-in is remembered (engine/people.ts). */
export const MAX_PUSH_GRACE_DAYS = 365;

const VAPID_VAR = 'INTERACTIONS_VAPID_KEYS_FILE';
const HOSTS_VAR = 'INTERACTIONS_PUSH_HOSTS';
const B64URL = /^[A-Za-z0-9_-]+$/;
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const LOOPBACKS = [...LOOPBACK_HOSTS].join(', ');
export const DEFAULT_VAPID_SUBJECT = 'mailto:tai-interactions@localhost';

function parseVapid(text: string): VapidKeys {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ConfigError(
      VAPID_VAR,
      'the file is not valid JSON (expected {"publicKey": …, "privateKey": …})',
    );
  }
  if (!isPlainObject(v))
    throw new ConfigError(VAPID_VAR, 'expected a JSON object with publicKey and privateKey');
  const { publicKey, privateKey, subject } = v;
  // An uncompressed P-256 point is 65 bytes (87 base64url characters); the private scalar 32 (43).
  if (typeof publicKey !== 'string' || !B64URL.test(publicKey) || publicKey.length !== 87) {
    throw new ConfigError(
      VAPID_VAR,
      'publicKey must be the base64url uncompressed P-256 public key (87 characters)',
    );
  }
  if (typeof privateKey !== 'string' || !B64URL.test(privateKey) || privateKey.length !== 43) {
    throw new ConfigError(VAPID_VAR, 'privateKey must be the base64url P-256 private key (43 characters)');
  }
  if (
    subject !== undefined &&
    (typeof subject !== 'string' || !/^(mailto:|https:\/\/)\S{3,200}$/.test(subject))
  ) {
    throw new ConfigError(VAPID_VAR, 'subject must be a mailto: or https:// URL');
  }
  return Object.freeze({
    publicKey,
    privateKey,
    subject: (subject as string | undefined) ?? DEFAULT_VAPID_SUBJECT,
  });
}

/**
 * One entry of the list: a host name (a `*.` prefix for its subdomains), which means port 443;
 * a port only on a loopback host (the tests' push service), so no listed push service can be
 * reached on another of its ports.
 */
function checkHost(entry: string): void {
  const { host, port } = pushHostEntry(entry);
  const ported = host !== entry;
  if (ported && !LOOPBACK_HOSTS.has(host)) {
    throw new ConfigError(
      HOSTS_VAR,
      `a port is allowed only on a loopback host (${LOOPBACKS}); a bare host means port 443, got ${shown(entry)}`,
    );
  }
  if (ported && (port < 1 || port > 65535)) {
    throw new ConfigError(HOSTS_VAR, `expected a port from 1 to 65535, got ${shown(entry)}`);
  }
  if (!LOOPBACK_HOSTS.has(host) && !HOST.test(host)) {
    throw new ConfigError(HOSTS_VAR, `expected host names such as fcm.googleapis.com, got ${shown(entry)}`);
  }
}

export const pushSettings = settingsArea({
  env: {
    INTERACTIONS_VAPID_KEYS_FILE: optionalPath,
    INTERACTIONS_PUSH_HOSTS: z.string().optional(),
    INTERACTIONS_PUSH_GRACE_DAYS: wholeNumber(DEFAULT_PUSH_GRACE_DAYS, 0, MAX_PUSH_GRACE_DAYS),
  },
  read: (e, io): PushSettings => {
    const path = e.INTERACTIONS_VAPID_KEYS_FILE;
    const vapidKeys = path === null ? null : parseVapid(readSettingFile(VAPID_VAR, path, io.readFile));
    const raw = e.INTERACTIONS_PUSH_HOSTS;
    let pushHosts = DEFAULT_PUSH_HOSTS;
    if (raw !== undefined) {
      const hosts = raw
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== '');
      if (hosts.length === 0) throw new ConfigError(HOSTS_VAR, 'expected a comma list of push service hosts');
      for (const h of hosts) checkHost(h);
      pushHosts = Object.freeze(hosts);
    }
    return { vapidKeys, pushHosts, pushGraceDays: e.INTERACTIONS_PUSH_GRACE_DAYS };
  },
});

// INTERACTIONS_PUSH_HOSTS and INTERACTIONS_PUSH_GRACE_DAYS (API.md §19): a bare host means port
// 443 and `host:port` is allowed only on a loopback host, refused at load with one line; the
// grace is whole days from 0 to 365. The endpoint rule the list feeds is checked here too.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';
import { endpointAllowed } from '../../src/engine/people/push-subscription.ts';

function refusal(env: Record<string, string>, variable: string): string {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const err = caught as ConfigError;
  expect(err.variable).toBe(variable);
  expect(err.message).not.toMatch(/[\r\n]/);
  return err.message;
}

const allowed = (endpoint: string, list: string): boolean =>
  endpointAllowed(new URL(endpoint), loadConfig({ INTERACTIONS_PUSH_HOSTS: list }).pushHosts);

describe('INTERACTIONS_PUSH_HOSTS', () => {
  it('keeps bare hosts and loopback host:port entries, lowercased', () => {
    const hosts = loadConfig({
      INTERACTIONS_PUSH_HOSTS:
        ' FCM.googleapis.com , *.notify.windows.com,127.0.0.1:8443,localhost:1,[::1]:65535',
    }).pushHosts;
    expect(hosts).toEqual([
      'fcm.googleapis.com',
      '*.notify.windows.com',
      '127.0.0.1:8443',
      'localhost:1',
      '[::1]:65535',
    ]);
  });

  it.each(['fcm.googleapis.com:443', 'fcm.googleapis.com:8443', '*.notify.windows.com:443', '10.0.0.1:80'])(
    'refuses a port on a host that is not loopback (%s)',
    (entry) => {
      const message = refusal(
        { INTERACTIONS_PUSH_HOSTS: `web.push.apple.com,${entry}` },
        'INTERACTIONS_PUSH_HOSTS',
      );
      expect(message).toBe(
        `INTERACTIONS_PUSH_HOSTS: a port is allowed only on a loopback host (localhost, 127.0.0.1, [::1]); a bare host means port 443, got ${JSON.stringify(entry)}`,
      );
    },
  );

  it.each(['127.0.0.1:0', '127.0.0.1:65536'])('refuses a port out of range (%s)', (entry) => {
    expect(refusal({ INTERACTIONS_PUSH_HOSTS: entry }, 'INTERACTIONS_PUSH_HOSTS')).toContain(
      'a port from 1 to 65535',
    );
  });

  it.each(['https://fcm.googleapis.com', 'fcm googleapis', ' , '])('refuses %j', (value) => {
    refusal({ INTERACTIONS_PUSH_HOSTS: value }, 'INTERACTIONS_PUSH_HOSTS');
  });

  it('a bare host is port 443 only', () => {
    expect(allowed('https://fcm.googleapis.com/send/x', 'fcm.googleapis.com')).toBe(true);
    expect(allowed('https://fcm.googleapis.com:443/send/x', 'fcm.googleapis.com')).toBe(true);
    expect(allowed('https://fcm.googleapis.com:8443/send/x', 'fcm.googleapis.com')).toBe(false);
    expect(allowed('https://fcm.googleapis.com:444/send/x', 'fcm.googleapis.com')).toBe(false);
    expect(allowed('https://db5.notify.windows.com/w/x', '*.notify.windows.com')).toBe(true);
    expect(allowed('https://db5.notify.windows.com:8080/w/x', '*.notify.windows.com')).toBe(false);
  });

  it('a loopback host:port admits that port alone, over http or https', () => {
    expect(allowed('http://127.0.0.1:8443/push/a', '127.0.0.1:8443')).toBe(true);
    expect(allowed('https://127.0.0.1:8443/push/a', '127.0.0.1:8443')).toBe(true);
    expect(allowed('http://127.0.0.1:8444/push/a', '127.0.0.1:8443')).toBe(false);
    expect(allowed('http://127.0.0.1/push/a', '127.0.0.1:8443')).toBe(false);
    expect(allowed('http://[::1]:9/push/a', '[::1]:9')).toBe(true);
    // http:// only on loopback, whatever the list says.
    expect(allowed('http://fcm.googleapis.com/x', 'fcm.googleapis.com')).toBe(false);
  });
});

describe('INTERACTIONS_PUSH_GRACE_DAYS', () => {
  it('is 30 by default; 0 and 365 are the ends', () => {
    expect(loadConfig({}).pushGraceDays).toBe(30);
    expect(loadConfig({ INTERACTIONS_PUSH_GRACE_DAYS: '0' }).pushGraceDays).toBe(0);
    expect(loadConfig({ INTERACTIONS_PUSH_GRACE_DAYS: '365' }).pushGraceDays).toBe(365);
  });

  it.each(['366', '-1', '1.5', 'thirty'])('refuses %j', (value) => {
    expect(refusal({ INTERACTIONS_PUSH_GRACE_DAYS: value }, 'INTERACTIONS_PUSH_GRACE_DAYS')).toContain(
      'a whole number from 0 to 365',
    );
  });
});

// Notifications on this device (API.md §19): turn Web Push on or off for this browser, and send
// a test notification to every device of the signed-in person. The browser's subscription is
// made with the server's VAPID key and stored through /api/interactions/push/subscriptions;
// the service worker (public/sw.js) shows the pushes and answers from their buttons.
import { useCallback, useEffect, useState } from 'react';
import type { Transport } from '../lib/api.ts';

type State = 'unsupported' | 'checking' | 'off' | 'on' | 'busy';

function supported(): boolean {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

export function PushSettings({ api }: { api: Transport }) {
  const [state, setState] = useState<State>(supported() ? 'checking' : 'unsupported');
  const [note, setNote] = useState<string | null>(null);

  const call = useCallback(
    (path: string, method: string, body?: unknown) =>
      api.fetch(`${api.baseUrl}${path}`, {
        method,
        headers: {
          ...api.authHeaders(),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    [api],
  );

  useEffect(() => {
    if (!supported()) return;
    void navigator.serviceWorker.ready
      .then((reg) => reg.pushManager.getSubscription())
      .then((sub) => setState(sub ? 'on' : 'off'))
      .catch(() => setState('off'));
  }, []);

  const turnOn = async (): Promise<void> => {
    setState('busy');
    setNote(null);
    try {
      if ((await Notification.requestPermission()) !== 'granted')
        throw new Error('notifications are blocked for this site');
      const keyRes = await call('/api/interactions/push/key', 'GET');
      const { publicKey } = (await keyRes.json()) as { publicKey: string };
      const reg = await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey });
      const saved = await call('/api/interactions/push/subscriptions', 'POST', sub.toJSON());
      if (!saved.ok) {
        await sub.unsubscribe();
        throw new Error(((await saved.json()) as { error?: string }).error ?? `HTTP ${saved.status}`);
      }
      setState('on');
    } catch (err) {
      setState('off');
      setNote(`Notifications could not be turned on: ${(err as Error).message}`);
    }
  };

  const turnOff = async (): Promise<void> => {
    setState('busy');
    try {
      const reg = await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.getSubscription();
      if (sub) {
        await call('/api/interactions/push/subscriptions', 'DELETE', { endpoint: sub.endpoint });
        await sub.unsubscribe();
      }
    } finally {
      setState('off');
    }
  };

  const test = async (): Promise<void> => {
    setNote(null);
    const res = await call('/api/interactions/push/test', 'POST');
    const sent = res.ok ? ((await res.json()) as { sent: number }).sent : 0;
    setNote(
      sent > 0 ? `Test notification sent to ${sent} device${sent === 1 ? '' : 's'}.` : 'No device took it.',
    );
  };

  if (state === 'unsupported')
    return <p className="hint">This browser cannot receive notifications from the inbox.</p>;
  return (
    <div className="push-settings" data-testid="push-settings">
      {state === 'on' ? (
        <button type="button" className="quiet" onClick={() => void turnOff()}>
          Notifications on
        </button>
      ) : (
        <button type="button" className="quiet" disabled={state !== 'off'} onClick={() => void turnOn()}>
          Turn on notifications
        </button>
      )}
      <button type="button" className="quiet" onClick={() => void test()}>
        Send a test notification
      </button>
      {note && (
        <span className="hint" role="status">
          {note}
        </span>
      )}
    </div>
  );
}

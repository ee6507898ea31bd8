// The one announcement channel of a store, on the subscriber connection the composition root
// owns. Pub/sub is at-most-once: after a reconnect, resubscribe first, then tell every
// listener to re-read what it holds.

import { decodeEvent } from '../record-codec.ts';
import type { StoreListener } from '../types.ts';
import type { RedisClient } from './client.ts';

export interface Subscription {
  listen(listener: StoreListener): Promise<() => void>;
  close(): Promise<void>;
}

export function createSubscription(subscriber: RedisClient, channel: string): Subscription {
  const listeners = new Set<StoreListener>();
  let subscribed: Promise<void> | null = null;
  let lostConnection = false;

  function onMessage(ch: string, message: string): void {
    if (ch !== channel) return;
    const ev = decodeEvent(message);
    if (!ev) return;
    for (const l of listeners) l.event(ev);
  }
  function onClose(): void {
    lostConnection = true;
  }
  async function onReady(): Promise<void> {
    if (!lostConnection || !subscribed) return;
    lostConnection = false;
    await subscriber.subscribe(channel);
    for (const l of listeners) l.resync();
  }
  const readyHandler = (): void => {
    onReady().catch(() => {
      lostConnection = true;
    });
  };

  return {
    async listen(listener) {
      listeners.add(listener);
      if (!subscribed) {
        subscriber.on('message', onMessage);
        subscriber.on('close', onClose);
        subscriber.on('ready', readyHandler);
        subscribed = subscriber.subscribe(channel).then(() => undefined);
      }
      await subscribed;
      return () => listeners.delete(listener);
    },

    async close() {
      listeners.clear();
      if (!subscribed) return;
      subscriber.off('message', onMessage);
      subscriber.off('close', onClose);
      subscriber.off('ready', readyHandler);
      // Only while connected: offline, ioredis would queue it and shutdown would hang.
      if (subscriber.status === 'ready') await subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}

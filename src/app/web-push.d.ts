// The parts of web-push (shipped without types) the server uses: VAPID keys and headers, and one send.
declare module 'web-push' {
  export interface SendResult {
    statusCode: number;
    body: string;
    headers: Record<string, string>;
  }
  export class WebPushError extends Error {
    statusCode: number;
  }
  export function generateVAPIDKeys(): { publicKey: string; privateKey: string };
  export function sendNotification(
    subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
    payload: string,
    options: {
      vapidDetails: { subject: string; publicKey: string; privateKey: string };
      TTL?: number;
      timeout?: number;
      contentEncoding?: 'aes128gcm' | 'aesgcm';
      urgency?: 'very-low' | 'low' | 'normal' | 'high';
    },
  ): Promise<SendResult>;
  export function generateRequestDetails(
    subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
    payload: string,
    options: Omit<Parameters<typeof sendNotification>[2], 'vapidDetails'> & {
      /** null: no VAPID header made here (one is given in `headers`). */
      vapidDetails: Parameters<typeof sendNotification>[2]['vapidDetails'] | null;
      headers?: Record<string, string>;
    },
  ): { method: string; headers: Record<string, string | number>; body: Buffer; endpoint: string };
  /** The VAPID header (RFC 8292) for one push service origin; `expiration` in seconds since the epoch. */
  export function getVapidHeaders(
    audience: string,
    subject: string,
    publicKey: string,
    privateKey: string,
    contentEncoding: 'aes128gcm',
    expiration?: number,
  ): { Authorization: string };
  const webpush: {
    generateVAPIDKeys: typeof generateVAPIDKeys;
    getVapidHeaders: typeof getVapidHeaders;
    sendNotification: typeof sendNotification;
    generateRequestDetails: typeof generateRequestDetails;
  };
  export default webpush;
}

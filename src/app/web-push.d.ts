// The parts of web-push (shipped without types) the server uses: VAPID keys and one send.
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
    options: Parameters<typeof sendNotification>[2],
  ): { method: string; headers: Record<string, string | number>; body: Buffer; endpoint: string };
  const webpush: {
    generateVAPIDKeys: typeof generateVAPIDKeys;
    sendNotification: typeof sendNotification;
    generateRequestDetails: typeof generateRequestDetails;
  };
  export default webpush;
}

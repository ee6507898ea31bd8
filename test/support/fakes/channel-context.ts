// A ChannelContext for plugin tests: secrets from a given map, a capturing logger, the real fetch.
import type { ChannelContext, ChannelQuestion } from '../../../src/channels/types.ts';

export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

export function channelContext(
  name: string,
  secrets: Record<string, string | undefined>,
): ChannelContext & { logs: CapturedLog[] } {
  const logs: CapturedLog[] = [];
  const log = (level: CapturedLog['level']) => (obj: object, msg?: string) => logs.push({ level, obj, msg });
  return {
    name,
    secret: (env) => secrets[env] || undefined,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    fetch: globalThis.fetch,
    publicBaseUrl: 'https://tai.example',
    inboundUrl: `https://tai.example/api/interactions/channels/${name}`,
    logs,
  };
}

export function channelQuestion(over: Partial<ChannelQuestion> = {}): ChannelQuestion {
  const createdAt = Date.now();
  return {
    id: 'q_01HZXAMPLE',
    text: 'Ship it?',
    format: 'CONFIRM',
    options: null,
    schema: null,
    link: null,
    recipient: 'C0123456789',
    sensitive: false,
    status: 'PENDING',
    answer: null,
    answeredBy: null,
    cancelReason: null,
    createdAt,
    timeoutAt: createdAt + 60_000,
    ...over,
  };
}

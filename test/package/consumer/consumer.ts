// A consumer as an agent author writes one: the SDK and the plugin types from the package.
import type { ChannelPlugin, ChannelQuestion } from 'tai-interactions/channel';
import {
  createInteractionsClient,
  type InteractionsClient,
  InteractionsError,
} from 'tai-interactions/client';

const client: InteractionsClient = createInteractionsClient({ url: 'http://127.0.0.1:4000', apiKey: 'key' });

export async function confirm(text: string): Promise<boolean> {
  try {
    // A CONFIRM question's answer is typed boolean.
    const yes: boolean = await client.askUser({ text, format: 'CONFIRM' });
    return yes;
  } catch (err) {
    if (err instanceof InteractionsError) return false;
    throw err;
  }
}

export function describeQuestion(q: ChannelQuestion): string {
  return `${q.format}: ${q.text}`;
}

export type Plugin = ChannelPlugin;

// Must not type-check: the client is typed, not `any`.
import { createInteractionsClient } from 'tai-interactions/client';

export const wrong: number = createInteractionsClient({ url: 'http://127.0.0.1:4000', apiKey: 'key' });

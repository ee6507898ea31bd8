// Closing a server ends its held waits (they return PENDING, to re-attach elsewhere) and its
// live streams, instead of waiting out holds of up to an hour.
import { describe, expect, it } from 'vitest';
import { auth, startServer } from '../support/server.ts';

describe('shutdown', () => {
  it('returns held askUser requests as PENDING and ends streams, then closes', async () => {
    const t = await startServer({ store: 'redis' });
    const url = await t.listen();
    const held = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation { askUser(input: {text: "Hold"}, holdSeconds: 3600) { status question { id } } }',
      }),
    });
    const stream = await fetch(`${url}/api/interactions/stream`, { headers: auth('ops') });
    const reader = stream.body!.getReader();
    // the stream delivers the held question once it is asked: both are now in flight
    let text = '';
    while (!text.includes('"text":"Hold"')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before the question arrived: ${text}`);
      text += new TextDecoder().decode(chunk.value);
    }
    await t.close();
    const res = await (await held).json();
    expect(res.data.askUser.status).toBe('PENDING');
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});

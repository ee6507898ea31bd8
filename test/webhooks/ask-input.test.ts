// `metadata` and `notify` on askUser (API.md §12) through the real server: limits at the limit
// and one past it, unknown endpoints refused, and nothing stored when the input is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlAt } from '../support/processes.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { webhookSecret } from './receiver.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!) {
    askUser(input: $input, holdSeconds: 0) {
      status
      question { id metadata notify }
    }
  }
`;

/** A metadata object whose JSON encoding is exactly `bytes` UTF-8 bytes (two-byte characters). */
function metadataOf(bytes: number): Record<string, string> {
  const overhead = '{"k":""}'.length;
  const room = bytes - overhead;
  return { k: 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2) };
}

describe('metadata and notify', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({
      store: 'redis',
      plugins: { webhookEndpoints: { runs: { url: 'http://127.0.0.1:9/hooks', secret: webhookSecret() } } },
    });
    await t.listen();
  });
  afterAll(async () => {
    await t.close();
  });

  const ask = (input: Record<string, unknown>) => gqlAt(t.url!, KEYS.agent, ASK, { input });

  async function pendingCount(): Promise<number> {
    const r = await gqlAt(
      t.url!,
      KEYS.admin,
      'query { questions(filter: { status: [PENDING] }) { totalCount } }',
    );
    return r.data.questions.totalCount as number;
  }

  it('accepts metadata of exactly 4096 bytes and returns it on the question', async () => {
    const metadata = metadataOf(4096);
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(4096);
    const r = await ask({ text: 'At the limit?', metadata, notify: 'runs' });
    expect(r.errors).toBeUndefined();
    expect(r.data.askUser).toMatchObject({ status: 'PENDING', question: { metadata, notify: 'runs' } });
    const read = await gqlAt(
      t.url!,
      KEYS.agent,
      'query Q($id: ID!) { question(id: $id) { metadata notify } }',
      {
        id: r.data.askUser.question.id,
      },
    );
    expect(read.data.question).toEqual({ metadata, notify: 'runs' });
  });

  it.each([
    ['metadata one byte past 4096', { metadata: metadataOf(4097) }, 'input.metadata'],
    ['an unknown notify endpoint', { notify: 'elsewhere' }, 'input.notify'],
  ])('refuses %s with BAD_USER_INPUT and stores nothing', async (_name, extra, field) => {
    const before = await pendingCount();
    const r = await ask({ text: 'Refused?', ...extra });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(await pendingCount()).toBe(before);
  });

  it('refuses metadata that is not an object', async () => {
    const r = await gqlAt(t.url!, KEYS.agent, ASK, { input: { text: 'Array?', metadata: [1, 2] } });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('a question without them shows null for both', async () => {
    const r = await ask({ text: 'Plain?' });
    expect(r.data.askUser.question).toMatchObject({ metadata: null, notify: null });
  });
});

// The callback page of a HIGH approval (API.md §23): GET shows the action and a link to the inbox
// (where the passkey is asked for) with Reject only, script-free; a posted approval (and one
// through the REST answer door) is refused
// with STEP_UP_REQUIRED and changes nothing; a posted rejection is recorded with what was shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentOn } from '../../src/domain/presentation.ts';
import { presentedDigestOf } from '../../src/domain/presented-digest.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), async deliver(_q: QuestionRecord) {} };
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
const ACTION = { name: 'payments.wire', summary: 'Wire it', arguments: { amount: 7 } };

describe('the callback page of a HIGH approval', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory', plugins: { channels: pager } });
  });
  afterAll(() => t.close());

  async function gql(query: string, variables: Record<string, unknown>) {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    return r.json().data;
  }
  async function ask() {
    const d = await gql(
      'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } callbackUrl } }',
      {
        i: { text: 'Wire?', format: 'APPROVAL', channel: 'pager', action: { ...ACTION, assurance: 'HIGH' } },
      },
    );
    return { id: d.askUser.question.id as string, url: new URL(d.askUser.callbackUrl).pathname };
  }
  const read = async (id: string) =>
    (await gql('query($id: ID!) { question(id: $id) { status presentedDigest } }', { id })).question;

  it('links to the inbox, offers only Reject, and refuses a posted approval', async () => {
    const q = await ask();
    const page = await t.server.inject({ method: 'GET', url: q.url, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="http://127.0.0.1:4000/?question=${q.id}"`);
    expect(page.body).toContain('value="REJECTED"');
    expect(page.body).not.toContain('value="APPROVED"');
    expect(page.body).not.toContain('<script');

    const approve = await t.server.inject({
      method: 'POST',
      url: q.url,
      headers: FORM,
      payload: 'decision=APPROVED',
    });
    expect(approve.statusCode).toBe(403);
    expect((await read(q.id)).status).toBe('PENDING');

    // The REST answer door (an API key) says why, and where to go.
    const rest = await t.server.inject({
      method: 'POST',
      url: `/api/interactions/${q.id}/answer`,
      headers: { ...auth('ops'), 'content-type': 'application/json' },
      payload: { answer: { decision: 'APPROVED' } },
    });
    expect(rest.statusCode).toBe(403);
    expect(rest.json()).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'STEP_UP_REQUIRED',
      url: `http://127.0.0.1:4000/?question=${q.id}`,
    });
    expect(rest.json().error).toContain(`http://127.0.0.1:4000/?question=${q.id}`);

    const reject = await t.server.inject({
      method: 'POST',
      url: q.url,
      headers: FORM,
      payload: 'decision=REJECTED',
    });
    expect(reject.statusCode).toBe(200);
    expect(await read(q.id)).toEqual({
      status: 'ANSWERED',
      presentedDigest: presentedDigestOf(presentOn('callback', ACTION, ACTION.arguments)),
    });
  });
});

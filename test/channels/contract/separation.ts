// Separation of duties through a channel's own inbound door (API.md §22, §2 amended): the person
// an action is requested for (`action.requestedBy` = `<channel>:<user>`) presses Approve or Reject
// in the channel as the provider would post it, on a single approval and on a quorum: nothing is
// recorded, the door answers without a 500. Nor does their delegate (a person who handed their
// questions to that channel user). The same press on an approval requested for someone else is
// recorded, so the refusal is the rule and not a press the door did not understand.
//
// And step-up (API.md §23) on the same wire: Approve on an `assurance: HIGH` approval is never
// recorded (it needs the approver's passkey, in the inbox); Reject needs none and is recorded.
//
// Kept apart from suite.ts (which calls it once per channel with an inbound door) so the suite's
// own blocks and these stay separately editable.
import { expect, it } from 'vitest';
import type { GraphqlResponse } from '../../support/channel-server.ts';
import type { Who } from '../../support/server.ts';
import type { AskedQuestion, ChannelHarness, Delivered, InboundHttp } from './harness.ts';

export interface SeparationContext {
  inbound: NonNullable<ChannelHarness['inbound']>;
  channel: string;
  ask(input: Record<string, unknown>): Promise<{ id: string }>;
  delivered(marker: string): Promise<Delivered>;
  post(req: InboundHttp): Promise<Response>;
  gql(query: string, variables?: Record<string, unknown>, who?: Who): Promise<GraphqlResponse>;
  unique(text: string): string;
}

const READ = 'query($id: ID!) { question(id: $id) { status answeredBy decision votes { by } } }';

export function separationOfDuties(c: SeparationContext): void {
  const user = `${c.channel}:${c.inbound.by}`;
  const action = (requestedBy?: string) => ({
    name: 'payments.refund',
    arguments: { charge: 'ch_sod', amount: 40 },
    ...(requestedBy ? { requestedBy } : {}),
  });
  async function approval(text: string, extra: Record<string, unknown>): Promise<AskedQuestion> {
    const { id } = await c.ask({ text, format: 'APPROVAL', ...extra });
    return { id, format: 'APPROVAL', options: null, delivered: await c.delivered(text) };
  }
  const press = async (q: AskedQuestion, approve: boolean) => {
    const res = await c.post(c.inbound.answer(q, { confirm: approve }));
    await res.arrayBuffer();
    return res.status;
  };
  const read = async (id: string) => (await c.gql(READ, { id }, 'ops')).data!.question;

  it(`separation of duties: the requester (${user}) never approves, rejects or votes on its own request from ${c.channel}`, async () => {
    const single = await approval(c.unique('Refund requested by this channel user?'), {
      action: action(user),
    });
    expect(await press(single, true)).toBeLessThan(500);
    expect(await press(single, false)).toBeLessThan(500);
    expect(await read(single.id)).toMatchObject({ status: 'PENDING', answeredBy: null });
    const voted = await approval(c.unique('Refund (two approvers) requested by this channel user?'), {
      action: action(user),
      quorum: { approvals: 2 },
    });
    expect(await press(voted, true)).toBeLessThan(500);
    expect(await read(voted.id)).toMatchObject({ status: 'PENDING', votes: [] });
    // Another person decides it, through the inbox's door.
    const r = await c.gql(
      'mutation($id: ID!) { answer(id: $id, answer: {decision: "APPROVED"}) { status } }',
      { id: single.id },
      'ops',
    );
    expect(r.errors).toBeUndefined();
    expect(await read(single.id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'ops' });
  });

  it(`step-up: Approve on a HIGH approval is not recorded from ${c.channel}; Reject is`, async () => {
    const high = { ...action(), assurance: 'HIGH' };
    const q = await approval(c.unique('Wire the supplier (passkey needed)?'), { action: high });
    expect(await press(q, true)).toBeLessThan(500);
    expect(await read(q.id)).toMatchObject({ status: 'PENDING', answeredBy: null });
    const voted = await approval(c.unique('Wire the supplier (two approvers, passkey needed)?'), {
      action: high,
      quorum: { approvals: 2 },
    });
    expect(await press(voted, true)).toBeLessThan(500);
    expect(await read(voted.id)).toMatchObject({ status: 'PENDING', votes: [] });
    expect(await press(q, false)).toBe(200);
    expect(await read(q.id)).toMatchObject({ status: 'ANSWERED', answeredBy: user, decision: 'REJECTED' });
  });

  it(`separation of duties: a delegate of the requester (${user} acting for bob) never approves it from ${c.channel}; another request is recorded`, async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    const set = await c.gql(
      'mutation($to: String!, $until: DateTime!) { setDelegation(to: $to, until: $until) { to } }',
      { to: user, until },
      'bob',
    );
    expect(set.errors, JSON.stringify(set.errors)).toBeUndefined();
    try {
      const forBob = await approval(c.unique('Refund requested for bob?'), { action: action('bob') });
      expect(await press(forBob, true)).toBeLessThan(500);
      expect(await read(forBob.id)).toMatchObject({ status: 'PENDING', answeredBy: null });
    } finally {
      await c.gql('mutation { endDelegation }', {}, 'bob');
    }
    // The same press on a request made for someone else is recorded: the door understood it.
    const other = await approval(c.unique('Refund requested for someone else?'), { action: action('alice') });
    expect(await press(other, true)).toBe(200);
    expect(await read(other.id)).toMatchObject({
      status: 'ANSWERED',
      answeredBy: user,
      decision: 'APPROVED',
    });
  });
}

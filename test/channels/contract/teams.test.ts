// The channel contract for `teams`: the loopback fake of the Bot Framework (OpenID metadata and
// keys, the token endpoint, the connector), card submits posted as the Bot Framework posts them,
// with its JWT in `Authorization`. The Bot Framework signs no body: the token is what a changed
// byte must break, so the signed material is that header.
import fc from 'fast-check';
import { TEAMS_INBOUND_MAX_BYTES } from '../../../src/channels/teams/plugin.ts';
import { type FakeTeams, startFakeTeams, type TeamsCall } from '../../support/fakes/teams-api.ts';
import { cardSubmit, TEAMS_USER, teamsChannelLines } from '../../support/fakes/teams-requests.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const APP_ID = '00000000-0000-0000-0000-0000000c0a7e';
const PASSWORD = 'teams-contract-password-01';
const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
const UPDATES = /^\/v3\/conversations\/[^/]+\/activities\/[^/]+$/;
let teams: FakeTeams;
/** One token for the run (answers are synchronous in the harness; the token is not bound to a body). */
let token: string;

const found =
  (method: string, path: RegExp, pred: (strings: string[]) => boolean = () => true) =>
  async (marker: string): Promise<Delivered> => {
    const call: TeamsCall = await teams.waitFor(method, path, (c) => {
      const strings = stringsOf(c.body);
      return strings.some((s) => s.includes(marker)) && pred(strings);
    });
    return { strings: stringsOf(call.body), raw: call };
  };

const reminder = (s: string[]) => s.some((x) => x.startsWith('Reminder'));

const teamsHarness: ChannelHarness = {
  channel: 'ops-teams',
  async start() {
    teams = await startFakeTeams(APP_ID, PASSWORD);
    token = await teams.token();
    // teamsChannelLines starts with `channels:`; the suite adds its own.
    return {
      lines: teamsChannelLines(teams).slice(1),
      env: { TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD },
    };
  },
  close: () => teams.close(),
  delivered: found('POST', SENDS, (s) => !reminder(s)),
  // A reminder is a reply to the card's activity (POST …/activities/{id}).
  reminded: found('POST', UPDATES, reminder),
  resolved: {
    edited: found('PUT', UPDATES),
    says: {
      inbox: /Answered in the inbox by ops/,
      timedOut: /Timed out/,
      cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
      approvedWithChanges: /Answered in the inbox by ops: Approved with changes/,
    },
  },
  inbound: {
    answer(q, choice) {
      const value =
        'confirm' in choice
          ? // An APPROVAL's card submits `a` (Approve 1, Reject 0).
            { tai: q.format === 'APPROVAL' ? 'a' : 'c', q: q.id, i: choice.confirm ? 1 : 0 }
          : { tai: 's', q: q.id, i: choice.select };
      return {
        body: Buffer.from(JSON.stringify(cardSubmit(teams, value))),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      };
    },
    by: TEAMS_USER.aadObjectId,
    signed: { header: 'authorization' },
    forged: fc
      .record({
        body: fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
        ),
        auth: fc.oneof(
          fc.string({ maxLength: 120 }).map((s) => `Bearer ${encodeURIComponent(s)}`),
          fc
            .stringMatching(/^[A-Za-z0-9_-]{10,40}\.[A-Za-z0-9_-]{10,40}\.[A-Za-z0-9_-]{10,60}$/)
            .map((s) => `Bearer ${s}`),
        ),
        withAuth: fc.boolean(),
      })
      .map(({ body, auth, withAuth }) => ({
        body: Buffer.from(body),
        headers: { 'content-type': 'application/json', ...(withAuth ? { authorization: auth } : {}) },
      })),
    maxBytes: TEAMS_INBOUND_MAX_BYTES,
  },
};

runChannelContract(teamsHarness);

// Linking a channel recipient to a person end to end (API.md §22), on both stores: the real server
// with a Slack channel on the loopback fake Slack Web API (and a webhook channel, which cannot be
// linked), GraphQL over HTTP, and clicks posted to the inbound door signed as Slack signs them.
// linkChannel asks the recipient a CONFIRM question on that channel; a "yes" clicked there links
// it (Viewer.channelLinks, CHANNEL_LINKED); a "no", or a "yes" from the inbox, links nothing;
// refusals change nothing; unlink; a second person's confirmation replaces the first's link; in
// the person's quiet hours a question to the linked id is held; and no door's input can make a
// link question.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/channels/slack/blocks.ts';
import type { AuditEntry } from '../../src/domain/audit.ts';
import { LABEL_MAX_CHARS } from '../../src/domain/limits.ts';
import { LINK_QUESTION_SECONDS, MAX_LINKS } from '../../src/engine/people/channel-links.ts';
import { graphqlAt, LINK_SECRETS, linkableManifest } from '../support/channel-server.ts';
import { AGENT } from '../support/engines.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { click, postSlack } from '../support/fakes/slack-requests.ts';
import { startServer, type TestServer, type Who } from '../support/server.ts';

const CLICKER = 'U024BE7LH';

const LINK = `mutation($c: String!, $r: String!) { linkChannel(channel: $c, recipient: $r) {
  id status format channel recipient askedBy audience text createdAt timeoutAt } }`;
const UNLINK = 'mutation($c: String!, $r: String!) { unlinkChannel(channel: $c, recipient: $r) }';
const LINKS = '{ viewer { channelLinks { channel recipient confirmedBy linkedAt } } }';

for (const kind of ['memory', 'redis'] as const) {
  describe(`linking a channel recipient (${kind})`, () => {
    let slack: FakeSlack;
    let t: TestServer;
    let base: string;
    beforeAll(async () => {
      slack = await startFakeSlack(LINK_SECRETS.token);
      const manifest = await linkableManifest(slack.apiUrl);
      t = await startServer({
        store: kind,
        env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000' },
        plugins: { manifest, outbox: { pollMs: 50 } },
      });
      base = await t.listen();
    });
    afterAll(async () => {
      await t?.close();
      await slack?.close();
    });

    const gql = graphqlAt(() => base);
    const entries = async (): Promise<AuditEntry[]> =>
      (await t.server.store.audit.page({ first: 5000 })).entries;
    const linksOf = async (who: Who) => {
      const r = await gql(LINKS, {}, who);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      return r.data!.viewer.channelLinks as { channel: string; recipient: string; confirmedBy: string }[];
    };

    /** linkChannel as `who`; the link question and the message Slack received for it. */
    async function link(who: Who, recipient: string) {
      const r = await gql(LINK, { c: 'ops-slack', r: recipient }, who);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      const q = r.data!.linkChannel as { id: string; [k: string]: unknown };
      const post = await slack.waitFor('chat.postMessage', (c) =>
        JSON.stringify(c.args.blocks).includes(q.id),
      );
      return { q, post };
    }

    /** A Yes or No click on the link question, by Slack user `user`, signed as Slack signs it. */
    async function clickAnswer(id: string, yes: boolean, user = CLICKER) {
      const payload = click(`${id}:${yes ? 1 : 0}`, `${ACTION.confirm}_${yes ? 'yes' : 'no'}`, {
        user: { id: user, username: 'someone' },
      });
      const res = await postSlack(base, LINK_SECRETS.signing, payload);
      expect(res.status).toBe(200);
    }

    async function statusOf(id: string, who: Who) {
      const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, who);
      return r.data!.question as { status: string; answer: unknown; answeredBy: string };
    }

    it('a "yes" clicked on the channel links the recipient: Viewer.channelLinks and CHANNEL_LINKED', async () => {
      const { q, post } = await link('alice', 'U0ALICE01');
      expect(post.args.channel).toBe('U0ALICE01');
      expect(JSON.stringify(post.args.blocks)).toContain(
        'alice asked to link this ops-slack recipient to their tai-interactions profile',
      );
      expect(q).toMatchObject({
        status: 'PENDING',
        format: 'CONFIRM',
        channel: 'ops-slack',
        recipient: 'U0ALICE01',
        askedBy: 'alice',
        // A restricted person's own audience, so they see it; nobody else restricted does.
        audience: 'alice',
      });
      expect(Date.parse(String(q.timeoutAt)) - Date.parse(String(q.createdAt))).toBe(
        LINK_QUESTION_SECONDS * 1000,
      );
      expect(await linksOf('alice')).toEqual([]);

      await clickAnswer(q.id, true);
      expect(await statusOf(q.id, 'alice')).toMatchObject({ status: 'ANSWERED', answer: true });
      expect(await linksOf('alice')).toEqual([
        {
          channel: 'ops-slack',
          recipient: 'U0ALICE01',
          confirmedBy: `ops-slack:${CLICKER}`,
          linkedAt: expect.stringMatching(/^\d{4}-/),
        },
      ]);
      const linked = (await entries()).filter((e) => e.type === 'CHANNEL_LINKED');
      expect(linked.at(-1)).toMatchObject({
        actor: `ops-slack:${CLICKER}`,
        via: 'channel:ops-slack',
        detail: { person: 'alice', channel: 'ops-slack', confirmedBy: `ops-slack:${CLICKER}` },
      });
      // Through GraphQL too, for those who read the audit log.
      const log = await gql(
        '{ auditLog(filter: { types: [CHANNEL_LINKED] }) { edges { node { type actor } } } }',
        {},
        'admin',
      );
      expect(log.errors, JSON.stringify(log.errors)).toBeUndefined();
      expect(JSON.stringify(log.data)).toContain(`ops-slack:${CLICKER}`);
    });

    it('a "no" links nothing', async () => {
      const { q } = await link('bob', 'U0BOBNO01');
      await clickAnswer(q.id, false);
      expect(await statusOf(q.id, 'bob')).toMatchObject({ status: 'ANSWERED', answer: false });
      expect(await linksOf('bob')).toEqual([]);
    });

    it('a "yes" from the inbox (GraphQL answer) links nothing: only the channel proves it', async () => {
      const { q } = await link('ops', 'U0OPSINB1');
      const before = (await entries()).filter((e) => e.type === 'CHANNEL_LINKED').length;
      const r = await gql(
        'mutation($id: ID!) { answer(id: $id, answer: true) { status answer } }',
        { id: q.id },
        'ops',
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data!.answer).toEqual({ status: 'ANSWERED', answer: true });
      expect(await linksOf('ops')).toEqual([]);
      expect((await entries()).filter((e) => e.type === 'CHANNEL_LINKED').length).toBe(before);
    });

    it('an unknown channel, a webhook channel, a bad recipient, a non-answerer: refused, nothing sent or stored', async () => {
      const posts = slack.callsTo('chat.postMessage').length;
      // The entries a refused link could have written (the outbox writes others meanwhile).
      const linkish = async () =>
        (await entries()).filter((e) => ['ASKED', 'CHANNEL_LINKED'].includes(e.type)).length;
      const audited = await linkish();
      const refused = async (c: string, r: string, who: Who = 'alice') => {
        const res = await gql(LINK, { c, r }, who);
        expect(res.data ?? null).toBeNull();
        return res.errors![0]!;
      };
      expect(await refused('nope', 'U0ALICE02')).toMatchObject({
        message: expect.stringContaining('unknown channel (allowed: "ops-slack")'),
        extensions: { code: 'BAD_USER_INPUT', field: 'channel' },
      });
      expect(await refused('bridge', 'U0ALICE02')).toMatchObject({
        message: expect.stringContaining('channel bridge cannot be linked (allowed: "ops-slack")'),
        extensions: { code: 'BAD_USER_INPUT', field: 'channel' },
      });
      expect(await refused('ops-slack', 'not a slack id')).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT', field: 'recipient' },
      });
      expect(await refused('ops-slack', '   ')).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT', field: 'recipient' },
      });
      // One past the length limit: refused by length before the channel looks at it.
      expect(await refused('ops-slack', `U${'0'.repeat(LABEL_MAX_CHARS)}`)).toMatchObject({
        message: expect.stringContaining(`at most ${LABEL_MAX_CHARS} characters`),
        extensions: { code: 'BAD_USER_INPUT', field: 'recipient' },
      });
      expect((await refused('ops-slack', 'U0AGENT01', 'agent')).extensions.code).toBe('FORBIDDEN');
      expect(slack.callsTo('chat.postMessage').length).toBe(posts);
      expect(await linkish()).toBe(audited);
      expect(await linksOf('alice')).toHaveLength(1);
    });

    it('a recipient at the length limit passes the length check (the channel then judges it)', async () => {
      const r = await gql(LINK, { c: 'ops-slack', r: `U${'0'.repeat(LABEL_MAX_CHARS - 1)}` }, 'ops');
      const message = r.errors?.[0]?.message ?? '';
      expect(message).not.toContain(`at most ${LABEL_MAX_CHARS} characters`);
    });

    it(`${MAX_LINKS} links are allowed; the next is refused with nothing sent; relinking one of them is not`, async () => {
      for (let i = 0; i < MAX_LINKS; i++) {
        const { q } = await link('admin', `U0ADMIN${String(i).padStart(2, '0')}`);
        await clickAnswer(q.id, true);
      }
      expect(await linksOf('admin')).toHaveLength(MAX_LINKS);
      const posts = slack.callsTo('chat.postMessage').length;
      const r = await gql(LINK, { c: 'ops-slack', r: 'U0ADMIN99' }, 'admin');
      expect(r.errors![0]).toMatchObject({
        message: expect.stringContaining(`at most ${MAX_LINKS}`),
        extensions: { code: 'LIMIT_EXCEEDED' },
      });
      expect(slack.callsTo('chat.postMessage').length).toBe(posts);
      expect(await linksOf('admin')).toHaveLength(MAX_LINKS);
      // At the limit, confirming one of them again renews it.
      const again = await link('admin', 'U0ADMIN03');
      await clickAnswer(again.q.id, true, 'U0NEWCLK1');
      const after = await linksOf('admin');
      expect(after).toHaveLength(MAX_LINKS);
      expect(after[0]).toMatchObject({ recipient: 'U0ADMIN03', confirmedBy: 'ops-slack:U0NEWCLK1' });
    });

    it('unlinkChannel ends the link, audited; a second unlink is false', async () => {
      const { q } = await link('bob', 'U0BOBUNL1');
      await clickAnswer(q.id, true);
      expect((await linksOf('bob')).map((l) => l.recipient)).toEqual(['U0BOBUNL1']);
      const r = await gql(UNLINK, { c: 'ops-slack', r: 'U0BOBUNL1' }, 'bob');
      expect(r.data).toEqual({ unlinkChannel: true });
      expect(await linksOf('bob')).toEqual([]);
      expect((await entries()).filter((e) => e.type === 'CHANNEL_UNLINKED').at(-1)).toMatchObject({
        actor: 'bob',
        detail: { channel: 'ops-slack' },
      });
      expect((await gql(UNLINK, { c: 'ops-slack', r: 'U0BOBUNL1' }, 'bob')).data).toEqual({
        unlinkChannel: false,
      });
    });

    it('a second person confirming the same recipient replaces the first', async () => {
      const first = await link('alice', 'U0SHARED1');
      await clickAnswer(first.q.id, true);
      expect((await linksOf('alice')).map((l) => l.recipient)).toContain('U0SHARED1');
      const second = await link('bob', 'U0SHARED1');
      await clickAnswer(second.q.id, true);
      expect((await linksOf('alice')).map((l) => l.recipient)).not.toContain('U0SHARED1');
      expect((await linksOf('bob')).map((l) => l.recipient)).toEqual(['U0SHARED1']);
      // alice cannot end bob's link.
      expect((await gql(UNLINK, { c: 'ops-slack', r: 'U0SHARED1' }, 'alice')).data).toEqual({
        unlinkChannel: false,
      });
      expect((await linksOf('bob')).map((l) => l.recipient)).toEqual(['U0SHARED1']);
    });

    it('in the person’s quiet hours, a question to their linked Slack id is held: not sent, waiting in their inbox', async () => {
      const { q } = await link('alice', 'U0QUIET01');
      await clickAnswer(q.id, true);
      // Quiet from an hour ago to an hour from now (UTC), whatever the time of the run.
      const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
      const PREFS = 'mutation($i: NotificationPrefsInput!) { setNotificationPrefs(input: $i) { digest } }';
      const quiet = { from: hhmm(Date.now() - 3_600_000), to: hhmm(Date.now() + 3_600_000), timeZone: 'UTC' };
      expect(
        (await gql(PREFS, { i: { quietHours: quiet, digest: 'NONE' } }, 'alice')).errors,
      ).toBeUndefined();
      try {
        const ASK = 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }';
        const ask = async (recipient: string) => {
          const r = await gql(ASK, {
            i: { text: 'Deploy?', format: 'CONFIRM', channel: 'ops-slack', recipient, audience: 'alice' },
          });
          expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
          return r.data!.askUser.question.id as string;
        };
        // The channel delivery happens inside askUser: once it returns, a message sent is recorded.
        const held = await ask('U0QUIET01');
        const sent = await ask('U0NOTLNK1');
        const posted = (id: string) =>
          slack.callsTo('chat.postMessage').some((c) => JSON.stringify(c.args.blocks).includes(id));
        expect(posted(sent)).toBe(true);
        expect(posted(held)).toBe(false);
        expect(await statusOf(held, 'alice')).toMatchObject({ status: 'PENDING' });
      } finally {
        await gql(PREFS, { i: { quietHours: null, digest: 'NONE' } }, 'alice');
        await gql(UNLINK, { c: 'ops-slack', r: 'U0QUIET01' }, 'alice');
      }
    });

    it('no door’s input makes a link question: linkFor is an unknown field', async () => {
      const input = {
        text: 'Link?',
        format: 'CONFIRM',
        channel: 'ops-slack',
        recipient: 'U0AGENT02',
        linkFor: 'agent',
      };
      const viaGraphql = await gql(
        'mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { status } }',
        { input },
      );
      expect(viaGraphql.data ?? null).toBeNull();
      expect(viaGraphql.errors![0]!.message).toContain('linkFor');
      // REST and MCP hand their input to the engine's ask as it came: refused there.
      await expect(t.server.engine.ask(AGENT, input, { holdSeconds: 0 })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.linkFor',
      });
    });
  });
}

// The two parts of a Slack click's cost, each alone, in this process (no HTTP, no client, no
// fake Slack: it runs in a child, bench/servers/fake-slack.ts): the door (engine.channelInbound
// on a signed CONFIRM click, 32 in flight, the outbox worker not running) and the message edit
// each answered click owes (the outbox worker and channel follow-up wired as src/app/outbox-setup.ts
// wires them, performing every edit the clicks left, until the outbox is empty). CPU of this
// process per click and per edit, and Redis's (/proc). Not part of `npm run bench`:
//   node --import tsx bench/profile/slack-parts.ts [perRound] [rounds]
// BENCH_TREE=<dir> takes the server code (src/) from another copy of the tree, e.g.
// `git archive <commit> | tar -x -C .tmp/base`, for alternated before/after runs.
import path from 'node:path';
import { Redis } from 'ioredis';
import { clickOnMessage, slackBody } from '../../test/support/fakes/slack-requests.ts';
import { pollUntil } from '../lib/pool.ts';
import { cpuMs, killAllChildren, REPO_ROOT, startNode } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { median } from '../lib/stats.ts';

const perRound = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
const tree = path.resolve(process.env.BENCH_TREE ?? REPO_ROOT);
const SECRET = 'bench-slack-signing-secret-000001';
const TOKEN = 'xoxb-bench-0000000001';
const CHANNEL = 'ops-slack';
const RECIPIENT = 'C0BENCH0001';
const CONCURRENCY = 32;

const from = async (file: string) => import(path.join(tree, 'src', file));
const { createInteractions } = await from('engine/interactions.ts');
const { createRedisStore } = await from('store/redis/redis-store.ts');
const { createChannelSet } = await from('channels/channel-set.ts');
const { channelPort } = await from('app/channel-port.ts');
const { slackPlugin } = await from('channels/slack/plugin.ts');
const { questionBlocks, ACTION } = await from('channels/slack/blocks.ts');
const { createOutboxWorker } = await from('engine/outbox/worker.ts');
const { createChannelFollowUp } = await from('engine/deliveries/follow-up.ts');
const { createNameCache } = await from('engine/people/names.ts');
const { createPeople } = await from('engine/people/people.ts');

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => quiet };
const us = (ms: number, n: number) => (ms * 1000) / n;
const selfMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const redisServer = await startRedis();
const slack = startNode('fake-slack', 'bench/servers/fake-slack.ts', { BENCH_SLACK_BOT_TOKEN: TOKEN });
const redis = new Redis(redisServer.url);
const subscriber = new Redis(redisServer.url);
try {
  if (!(await pollUntil(async () => slack.output().includes('\n'), 30_000, 20)))
    throw new Error('no fake Slack');
  const apiUrl = slack.output().split('\n')[0]!.trim();
  const store = createRedisStore({ redis, subscriber, prefix: 'slack-parts:' });
  const set = createChannelSet(
    {
      [CHANNEL]: {
        config: slackPlugin.config.parse({
          botTokenEnv: 'BOT',
          signingSecretEnv: 'SIGNING',
          defaultRecipient: RECIPIENT,
          apiUrl,
        }),
        implementation: slackPlugin,
      },
    },
    { env: { BOT: TOKEN, SIGNING: SECRET }, logger: quiet, publicBaseUrl: 'http://127.0.0.1:1' },
  );
  const channels = channelPort(set, { [CHANNEL]: 'slack' });
  const engine = createInteractions({
    store,
    channels,
    settings: {
      answerTimeoutSeconds: 3600,
      holdSeconds: 50,
      retentionSeconds: 3600,
      maxPending: 1_000_000,
      maxPendingPerPrincipal: 1_000_000,
      publicBaseUrl: 'http://127.0.0.1:1',
      reaperIntervalMs: 60_000,
      sweepIntervalMs: 3_600_000,
    },
  });
  await engine.start();
  const agent = { id: 'agent', roles: ['agent'], restricted: false };

  // CONFIRM questions, delivered (their receipts recorded); each one's signed "Yes" click, as
  // Slack sends it (the whole message repeated), signed before anything is measured.
  const total = perRound * (rounds + 1);
  const clicks: { rawBody: Buffer; headers: Record<string, string> }[] = new Array(total);
  let asked = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (asked < total) {
        const i = asked++;
        const { question: q } = await engine.ask(
          agent,
          { text: `Deploy build #${i} to production?`, format: 'CONFIRM', channel: CHANNEL },
          { holdSeconds: 0 },
        );
        const blocks = questionBlocks({ ...q, answeredByName: null }, 'http://127.0.0.1:1/cb');
        const message = { channel: RECIPIENT, ts: `1700000000.${i}`, text: q.text, blocks };
        const action = {
          action_id: `${ACTION.confirm}_yes`,
          block_id: 'b',
          value: `${q.id}:1`,
          type: 'button',
        };
        const signed = slackBody(SECRET, clickOnMessage(message, action));
        clicks[i] = { rawBody: Buffer.from(signed.body), headers: signed.headers };
      }
    }),
  );

  const door = async (start: number, end: number) => {
    let next = start;
    const me = selfMs();
    const rs = cpuMs(redisServer.child.pid);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < end) {
          const c = clicks[next++]!;
          const r = await engine.channelInbound(CHANNEL, {
            ...c,
            url: 'http://127.0.0.1:1/x',
            now: Date.now(),
          });
          if (r.kind !== 'response' || r.response.status !== 200)
            throw new Error(`click: ${JSON.stringify(r)}`);
        }
      }),
    );
    return {
      self: us(selfMs() - me, end - start),
      redis: us(cpuMs(redisServer.child.pid) - rs, end - start),
    };
  };
  await door(0, perRound);
  const rows: { self: number; redis: number }[] = [];
  for (let r = 1; r <= rounds; r++) rows.push(await door(r * perRound, (r + 1) * perRound));

  // Every click owes its message an edit: the worker performs them all now.
  const worker = createOutboxWorker({
    store,
    logger: quiet,
    handlers: {
      channel: createChannelFollowUp({
        store,
        channels,
        nameOf: createNameCache(createPeople(store.people)),
      }),
    },
    deadLetterRetentionMs: 3_600_000,
  });
  const edits = (await store.outbox.stats(Date.now())).items;
  const me = selfMs();
  const rs = cpuMs(redisServer.child.pid);
  const fs = cpuMs(slack.pid);
  const started = performance.now();
  worker.start();
  worker.kick();
  const done = await pollUntil(async () => (await store.outbox.stats(Date.now())).items === 0, 600_000, 50);
  if (!done) throw new Error('the edits did not finish');
  const seconds = (performance.now() - started) / 1000;
  const edit = {
    self: us(selfMs() - me, edits),
    redis: us(cpuMs(redisServer.child.pid) - rs, edits),
    slack: us(cpuMs(slack.pid) - fs, edits),
  };
  await worker.stop();
  await engine.stop();
  await set.close();
  await store.close();

  const m = (k: 'self' | 'redis') => median(rows.map((x) => x[k])).toFixed(0);
  console.log(
    `${path.relative(process.cwd(), tree) || '.'}: door ${m('self')} µs a click ` +
      `(rounds ${rows.map((x) => x.self.toFixed(0)).join(', ')}), redis ${m('redis')} µs; ` +
      `edit ${edit.self.toFixed(0)} µs (${edits} in ${seconds.toFixed(1)} s), redis ${edit.redis.toFixed(0)} µs, ` +
      `fake Slack ${edit.slack.toFixed(0)} µs`,
  );
} finally {
  redis.disconnect();
  subscriber.disconnect();
  await slack.stop();
  await redisServer.stop();
  killAllChildren();
}

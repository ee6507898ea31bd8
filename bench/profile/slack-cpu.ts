// CPU per answer through the Slack inbound door, beside the callback door on the same instance,
// from /proc: steadier than answers per second on a shared machine. The slack-door figure's
// setup (bench/figures/slack-door.ts) on a private Redis; rounds alternate signed Slack clicks
// and callback answers (32 in flight). For a Slack round it prints the server's CPU per click
// while the clicks ran and again once the outbox had edited every answered message
// (chat.update), Redis CPU per click, and the benchmark process's own CPU (client and fake
// Slack), beside the callback round's. Not part of `npm run bench`:
//   node --import tsx bench/profile/slack-cpu.ts [rounds] [perRound]
// With BENCH_CPU_PROFILE_DIR=<dir> the server is profiled during the Slack rounds only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeSlack } from '../../test/support/fakes/slack.ts';
import { askExternals, drive } from '../figures/callback-door.ts';
import { askSlack, clickAll, postedMessages, startSlackInstance } from '../figures/slack-door.ts';
import { pollUntil } from '../lib/pool.ts';
import { cpuMs, killAllChildren } from '../lib/process.ts';
import { startRedis } from '../lib/redis.ts';
import { profiled } from '../lib/servers.ts';
import { median } from '../lib/stats.ts';

const rounds = Number(process.argv[2] ?? 5);
const perRound = Number(process.argv[3] ?? 1000);
const WARMUP = perRound;

const selfMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const redis = await startRedis();
const dir = mkdtempSync(path.join(tmpdir(), 'slack-cpu-'));
const slack = await startFakeSlack('xoxb-bench-0000000001');
try {
  const server = await startSlackInstance(redis.url, dir, slack.apiUrl, 'slack-cpu');
  try {
    const total = WARMUP + rounds * perRound;
    const ids = await askSlack(server.url, total);
    const paths = await askExternals(server, total);
    const { messages, yesValues } = await postedMessages(slack, ids);
    const doorUrl = `${server.url}/api/interactions/channels/ops-slack`;
    let clicked = 0;
    const edits = () => slack.callsTo('chat.update').length;
    const slackRound = async (from: number, to: number) => {
      const s = cpuMs(server.pid);
      const rs = cpuMs(redis.child.pid);
      const me = selfMs();
      const rate = await clickAll(doorUrl, messages.slice(from, to), yesValues.slice(from, to));
      const clicksMs = cpuMs(server.pid) - s;
      const editedDuring = edits() - clicked;
      clicked += to - from;
      if (!(await pollUntil(async () => edits() >= clicked, 120_000, 20))) throw new Error('edits lag');
      return {
        rate,
        clicksMs,
        allMs: cpuMs(server.pid) - s,
        redisMs: cpuMs(redis.child.pid) - rs,
        benchMs: selfMs() - me,
        editedDuring,
      };
    };
    const callbackRound = async (from: number, to: number) => {
      const s = cpuMs(server.pid);
      const rs = cpuMs(redis.child.pid);
      const me = selfMs();
      const rate = await drive(server.url, paths.slice(from, to));
      return {
        rate,
        ms: cpuMs(server.pid) - s,
        redisMs: cpuMs(redis.child.pid) - rs,
        benchMs: selfMs() - me,
      };
    };
    await slackRound(0, WARMUP);
    await callbackRound(0, WARMUP);
    const us = (ms: number) => (ms * 1000) / perRound;
    const rows: Record<string, number>[] = [];
    for (let r = 0; r < rounds; r++) {
      const from = WARMUP + r * perRound;
      const s = await profiled(server, () => slackRound(from, from + perRound));
      const c = await callbackRound(from, from + perRound);
      // The edits left after the clicks cost this much each; as many as were made during the
      // clicks are taken out of the clicks' CPU to estimate the door's own share.
      const perEditMs = (s.allMs - s.clicksMs) / Math.max(1, perRound - s.editedDuring);
      const row = {
        slackClicks: us(s.clicksMs),
        slackDoorOnly: us(s.clicksMs - s.editedDuring * perEditMs),
        perEdit: perEditMs * 1000,
        slackAll: us(s.allMs),
        slackRedis: us(s.redisMs),
        slackBench: us(s.benchMs),
        callback: us(c.ms),
        callbackRedis: us(c.redisMs),
        callbackBench: us(c.benchMs),
        slackRate: s.rate,
        callbackRate: c.rate,
        ratio: s.rate / c.rate,
      };
      rows.push(row);
      console.log(
        `round ${r}: slack ${row.slackClicks.toFixed(0)} µs during clicks, ${row.slackAll.toFixed(0)} µs with ` +
          `edits (${s.editedDuring} of ${perRound} edited during; ${row.perEdit.toFixed(0)} µs an edit after, so ` +
          `about ${row.slackDoorOnly.toFixed(0)} µs a click without the edits), redis ${row.slackRedis.toFixed(0)} µs, ` +
          `bench ${row.slackBench.toFixed(0)} µs (${s.rate.toFixed(0)}/s); callback ${row.callback.toFixed(0)} µs, ` +
          `redis ${row.callbackRedis.toFixed(0)} µs, bench ${row.callbackBench.toFixed(0)} µs (${c.rate.toFixed(0)}/s)`,
      );
    }
    const m = (k: string) => median(rows.map((x) => x[k]!)).toFixed(k === 'ratio' ? 2 : 0);
    console.log(
      `median per answer: slack ${m('slackClicks')} µs during clicks (about ${m('slackDoorOnly')} µs without the ` +
        `edits made meanwhile, ${m('perEdit')} µs an edit), ${m('slackAll')} µs with edits, redis ` +
        `${m('slackRedis')} µs, bench ${m('slackBench')} µs; callback ${m('callback')} µs, redis ` +
        `${m('callbackRedis')} µs, bench ${m('callbackBench')} µs; answers/s slack ÷ callback ${m('ratio')}`,
    );
    const told = slack.callsTo('response_url').length;
    if (told) throw new Error(`${told} clicks were refused (told through response_url)`);
  } finally {
    await server.stop();
  }
} finally {
  await slack.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
  killAllChildren();
}

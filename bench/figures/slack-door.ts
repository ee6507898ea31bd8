// The channel inbound door: signed Slack `block_actions` clicks answering CONFIRM questions the
// slack channel delivered, beside the public callback door on the same instance in the same run.
// Slack's Web API is the loopback fake the channel tests use (test/support/fakes/slack.ts); the
// clicks carry the posted message as Slack repeats it, so their size is a real click's size.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ACTION } from '../../src/channels/slack/blocks.ts';
import { type FakeSlack, startFakeSlack } from '../../test/support/fakes/slack.ts';
import { clickOnMessage, slackBody } from '../../test/support/fakes/slack-requests.ts';
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ASK, type AskData, graphqlClient } from '../lib/graphql.ts';
import { keepAliveAgent, send } from '../lib/http.ts';
import { pollUntil, runPool } from '../lib/pool.ts';
import { startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { median, round } from '../lib/stats.ts';
import { askExternals, CONCURRENCY, drive } from './callback-door.ts';

const PER_ROUND = Number(process.env.BENCH_SLACK_PER_ROUND) || 1000;
const ROUNDS = 5;
/** Both doors speed up over their first requests (JIT): rounds start after as many again. */
const WARMUP = PER_ROUND;
const TOKEN = 'xoxb-bench-0000000001';
const SIGNING_SECRET = 'bench-slack-signing-secret-000001';
export const SLACK_CHANNEL = 'ops-slack';
const CHANNEL = SLACK_CHANNEL;
const RECIPIENT = 'C0BENCH0001';

export interface Posted {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
}

/** The signed request Slack posts when someone clicks "Yes" on `message`. */
export function yesClick(message: Posted, value: string) {
  const action = { action_id: `${ACTION.confirm}_yes`, block_id: 'b', value, type: 'button' };
  return slackBody(SIGNING_SECRET, clickOnMessage(message, action));
}

/** Asks `count` CONFIRM questions for the slack channel (holdSeconds 0); their ids. */
export async function askSlack(url: string, count: number): Promise<string[]> {
  const agent = graphqlClient(url, 'agent', keepAliveAgent(CONCURRENCY));
  const ids: string[] = new Array(count);
  await runPool(count, CONCURRENCY, async (i) => {
    const d = await agent.call<AskData>(ASK, {
      input: { text: `Deploy build #${i} to production?`, format: 'CONFIRM', channel: CHANNEL },
      hold: 0,
    });
    ids[i] = d.askUser.question.id;
  });
  return ids;
}

/**
 * Clicks "Yes" on each posted message with at most CONCURRENCY in flight; answers per second.
 * The bodies are built and signed before the clock starts (Slack signs them, not the server).
 */
export async function clickAll(doorUrl: string, messages: Posted[], yesValues: string[]): Promise<number> {
  const requests = messages.map((m, i) => yesClick(m, yesValues[i]!));
  const agent = keepAliveAgent(CONCURRENCY);
  const started = performance.now();
  await runPool(requests.length, CONCURRENCY, async (i) => {
    const r = await send(doorUrl, {
      agent,
      method: 'POST',
      headers: requests[i]!.headers,
      body: requests[i]!.body,
    });
    if (r.status !== 200) throw new Error(`slack click ${i}: ${r.status} ${r.body.slice(0, 200)}`);
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return requests.length / seconds;
}

/** One instance whose manifest has the slack channel, its Web API at `apiUrl`. */
export async function startSlackInstance(redisUrl: string, dir: string, apiUrl: string, name = 'slack-door') {
  const manifest = path.join(dir, 'manifest.yaml');
  writeFileSync(
    manifest,
    [
      'channels:',
      `  ${CHANNEL}:`,
      '    plugin: slack',
      '    config:',
      '      botTokenEnv: BENCH_SLACK_BOT_TOKEN',
      '      signingSecretEnv: BENCH_SLACK_SIGNING_SECRET',
      `      defaultRecipient: ${RECIPIENT}`,
      `      apiUrl: ${apiUrl}`,
      '',
    ].join('\n'),
  );
  return startInstance({
    name,
    redisUrl,
    prefix: uniquePrefix('slack'),
    env: {
      INTERACTIONS_MANIFEST: manifest,
      BENCH_SLACK_BOT_TOKEN: TOKEN,
      BENCH_SLACK_SIGNING_SECRET: SIGNING_SECRET,
      // The public doors' rate limit (per client address) would cap the run, not the server.
      INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000000',
    },
  });
}

/**
 * Waits until every question of `ids` was posted (chat.postMessage); each one's posted message
 * (the click repeats it) and its "Yes" button value, in the order of `ids`.
 */
export async function postedMessages(
  slack: FakeSlack,
  ids: string[],
): Promise<{ messages: Posted[]; yesValues: string[] }> {
  const total = ids.length;
  const delivered = await pollUntil(
    async () => slack.callsTo('chat.postMessage').length >= total,
    180_000,
    50,
  );
  if (!delivered) throw new Error(`only ${slack.callsTo('chat.postMessage').length} of ${total} delivered`);
  const postedById = new Map<string, Posted>();
  for (const [n, call] of slack.callsTo('chat.postMessage').entries()) {
    const blocks = call.args.blocks as unknown[];
    const yes = /"value":"([^"]{1,200}):1"/.exec(JSON.stringify(blocks));
    if (!yes) continue;
    const ts = `1700000000.${String(n + 1).padStart(6, '0')}`;
    postedById.set(yes[1]!, {
      channel: String(call.args.channel),
      ts,
      text: String(call.args.text),
      blocks,
    });
  }
  const missing = ids.filter((id) => !postedById.has(id));
  if (missing.length)
    throw new Error(`${missing.length} questions have no posted message (e.g. ${missing[0]})`);
  return { messages: ids.map((id) => postedById.get(id)!), yesValues: ids.map((id) => `${id}:1`) };
}

export async function slackDoor(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-slack-'));
  const slack = await startFakeSlack(TOKEN);
  let server: Awaited<ReturnType<typeof startInstance>> | undefined;
  try {
    server = await startSlackInstance(ctx.redisUrl, dir, slack.apiUrl);
    const total = WARMUP + ROUNDS * PER_ROUND;
    const ids = await askSlack(server.url, total);
    const paths = await askExternals(server, total);
    const { messages, yesValues } = await postedMessages(slack, ids);
    ctx.log(`  ${total} slack questions delivered, ${total} EXTERNAL questions asked`);
    const clickBytes = yesClick(messages[0]!, yesValues[0]!).body.length;

    const doorUrl = `${server.url}/api/interactions/channels/${CHANNEL}`;
    let clicked = 0;
    const catchUpMs: number[] = [];
    const editedDuring: number[] = [];
    /** Clicks [from, to) and waits until their messages have been edited (API.md §9), so the
     *  outbox's chat.update calls of one round do not fall into the next. */
    const slackRound = async (from: number, to: number): Promise<number> => {
      const rate = await clickAll(doorUrl, messages.slice(from, to), yesValues.slice(from, to));
      // The edits the outbox made while the clicks ran: the server paid for them inside the round.
      editedDuring.push(slack.callsTo('chat.update').length - clicked);
      clicked += to - from;
      const t = performance.now();
      const edited = await pollUntil(async () => slack.callsTo('chat.update').length >= clicked, 120_000, 20);
      if (!edited)
        throw new Error(`only ${slack.callsTo('chat.update').length} of ${clicked} messages edited`);
      catchUpMs.push(performance.now() - t);
      return rate;
    };

    await slackRound(0, WARMUP);
    await drive(server.url, paths.slice(0, WARMUP));
    const slackRates: number[] = [];
    const callbackRates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const from = WARMUP + r * PER_ROUND;
      slackRates.push(await slackRound(from, from + PER_ROUND));
      callbackRates.push(await drive(server.url, paths.slice(from, from + PER_ROUND)));
    }
    // A click refused after the signature (closed, invalid, unknown) is still a 200 to Slack; the
    // person is told through response_url. None may have been.
    const told = slack.callsTo('response_url').length;
    if (told) throw new Error(`${told} clicks were refused (told through response_url)`);

    const parameters = {
      concurrency: CONCURRENCY,
      answersPerRound: PER_ROUND,
      rounds: ROUNDS,
      warmup: WARMUP,
      reported: 'median over rounds',
      store: 'redis',
      clickBodyBytes: clickBytes,
      slackApi: 'test/support/fakes/slack.ts, loopback, in the benchmark process',
      messageEditsCaughtUpMs: catchUpMs.map((x) => round(x, 0)),
      // Warm-up round first.
      messagesEditedDuringRound: editedDuring,
      slackPerSecond: slackRates.map((x) => round(x, 0)),
      callbackPerSecond: callbackRates.map((x) => round(x, 0)),
    };
    return {
      title: 'Slack inbound door answers per second',
      about:
        'One instance with a `slack` channel whose Web API is a loopback fake (the one the channel tests use). ' +
        'CONFIRM questions are asked for the channel and delivered (chat.postMessage) beforehand; then each ' +
        'posted message gets one signed `block_actions` click on "Yes" (form-encoded, signed with the signing ' +
        `secret as Slack signs, the whole message repeated as Slack repeats it: ${clickBytes} bytes) at the ` +
        `channel's inbound door, at most ${CONCURRENCY} in flight, ${PER_ROUND.toLocaleString('en-US')} a ` +
        `round, ${ROUNDS} rounds after ${WARMUP.toLocaleString('en-US')} warm-up clicks. After each round the ` +
        "benchmark waits until the outbox has edited every answered message, so one round's edits do not fall " +
        'into the next. The floor is the callback door on the same instance (EXTERNAL questions, JSON bodies, ' +
        'driven exactly as in the callback-door figure) in alternating rounds; the value is the median ' +
        "round's answers per second, the ratio a fraction (goal ≥ 0.8×). The door does more than the callback " +
        'door: the HMAC over the raw body and the parsing of a form and payload about ten times as large; its ' +
        "one store step finds and claims the question as the callback door's does. And each answered click " +
        'owes its message an edit (chat.update through the outbox), which the server makes while the clicks ' +
        'run (messagesEditedDuringRound counts them).',
      figures: [
        figure({
          name: 'slack-door answers/s',
          value: round(median(slackRates), 0),
          unit: 'answers/s',
          floorName: 'callback door, same instance',
          floor: round(median(callbackRates), 0),
          floorUnit: 'answers/s',
          parameters,
        }),
      ],
      warnings: troubleLines(server),
    };
  } finally {
    await server?.stop();
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

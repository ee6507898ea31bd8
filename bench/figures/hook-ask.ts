// Claude Code's PermissionRequest http hook → decision → hook output, beside the held GraphQL
// askUser of the same APPROVAL on the same instance (API.md §21). A "Claude Code" posts its hook
// event to /api/interactions/hooks/claude-code?wait=30 and a GraphQL agent asks the same approval
// with holdSeconds 30, alternating; the operator approves each through GraphQL once the inbox
// stream shows it. The value is the time from writing the answer until the hook's output has
// arrived; the floor the same for the askUser response.
import { type BenchContext, figure, type Section } from '../lib/figure.ts';
import { ANSWER, ASK, type AskData, dataOf, graphqlBody, graphqlClient, headersFor } from '../lib/graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from '../lib/http.ts';
import { sleep } from '../lib/pool.ts';
import { startInstance, troubleLines, uniquePrefix } from '../lib/servers.ts';
import { SseClient } from '../lib/sse.ts';
import { percentile, round, summarize } from '../lib/stats.ts';

const WARMUP = 20;
const ITERATIONS = Number(process.env.BENCH_HOOK_ITERATIONS) || 150;
/** The question is registered and its waiter armed before it is answered (as in the resume figure). */
const SETTLE_MS = 40;

/** Claude Code's PermissionRequest event (code.claude.com/docs/en/hooks) for one Bash command. */
function hookEvent(command: string): string {
  return JSON.stringify({
    session_id: 'bench-session',
    transcript_path: '/tmp/bench.jsonl',
    cwd: '/tmp/project',
    permission_mode: 'default',
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: { command, description: 'bench' },
  });
}

/** The same approval as GraphQL asks it (what the hook door builds, written by hand). */
function approvalInput(command: string) {
  const args = { command, description: 'bench' };
  return {
    text: `A bench agent asks to use Bash:\n$ ${command}`,
    format: 'APPROVAL',
    action: {
      name: 'claude-code.Bash',
      summary: `$ ${command}`,
      arguments: args,
      editable: true,
      argumentsSchema: {
        type: 'object',
        properties: { command: { type: 'string' }, description: { type: 'string' } },
        required: ['command', 'description'],
        additionalProperties: false,
      },
    },
  };
}

export async function hookAsk(ctx: BenchContext): Promise<Section> {
  const server = await startInstance({
    name: 'hooks',
    redisUrl: ctx.redisUrl,
    prefix: uniquePrefix('hooks'),
  });
  const asker = keepAliveAgent(2);
  const answerer = graphqlClient(server.url, 'operator', keepAliveAgent(2));
  const inbox = new SseClient(`${server.url}/api/interactions/stream`, {
    agent: socketPerRequestAgent(),
    headers: headersFor('operator', 'text/event-stream'),
  });
  try {
    await inbox.next((e) => e.event === 'interaction.ready', 10_000);
    /** Asks through `ask`, approves once the inbox shows it; answer → result in ms. */
    const pair = async (command: string, ask: () => Promise<number>): Promise<number> => {
      const added = inbox.next((e) => e.event === 'interaction.add' && e.data.includes(command), 10_000);
      const done = ask();
      const { id } = JSON.parse((await added).data) as { id: string };
      await sleep(SETTLE_MS);
      const answered = answerer.post(ANSWER, { id, answer: { decision: 'APPROVED' } });
      const [endedAt, reply] = await Promise.all([done, answered]);
      dataOf(reply);
      return endedAt - reply.sentAt;
    };
    const viaHook = (command: string) =>
      pair(command, async () => {
        const reply = await send(`${server.url}/api/interactions/hooks/claude-code?wait=30`, {
          agent: asker,
          method: 'POST',
          headers: headersFor('agent'),
          body: hookEvent(command),
        });
        if (!reply.body.includes('"allow"'))
          throw new Error(`the hook answered ${reply.status} ${reply.body}`);
        return reply.endedAt;
      });
    const viaGraphql = (command: string) =>
      pair(command, async () => {
        const reply = await send(`${server.url}/graphql`, {
          agent: asker,
          method: 'POST',
          headers: headersFor('agent'),
          body: graphqlBody(ASK, { input: approvalInput(command), hold: 30 }),
        });
        const status = dataOf<AskData>(reply).askUser.status;
        if (status !== 'ANSWERED') throw new Error(`held askUser returned ${status}`);
        return reply.endedAt;
      });

    const hook: number[] = [];
    const gql: number[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const h = await viaHook(`echo bench-hook-${i}`);
      const g = await viaGraphql(`echo bench-graphql-${i}`);
      if (i >= WARMUP) {
        hook.push(h);
        gql.push(g);
      }
    }
    return {
      title: 'Claude Code permission hook → decision → hook output',
      about:
        "One instance; Claude Code's PermissionRequest http hook event (a Bash command) posted to " +
        '/api/interactions/hooks/claude-code?wait=30, and the same editable APPROVAL asked by a held GraphQL ' +
        `askUser (holdSeconds 30), alternating, ${ITERATIONS} of each after ${WARMUP} warm-up pairs. The ` +
        `operator approves through GraphQL once the inbox stream shows the question (plus ${SETTLE_MS} ms, so ` +
        'the waiter is armed). The value is the p50 time from writing the answer until the hook output has ' +
        'arrived, the floor the same for the askUser response (goal ≤ 1.3×).',
      figures: [
        figure({
          name: 'permission hook answer→output p50',
          value: round(percentile(hook, 50)),
          unit: 'ms',
          floorName: 'GraphQL held askUser (APPROVAL) answer→result p50',
          floor: round(percentile(gql, 50)),
          floorUnit: 'ms',
          parameters: {
            iterations: ITERATIONS,
            warmup: WARMUP,
            settleMsBeforeAnswer: SETTLE_MS,
            store: 'redis',
            hookAnswerToOutputMs: summarize(hook),
            graphqlAnswerToResultMs: summarize(gql),
          },
        }),
      ],
      warnings: troubleLines(server),
    };
  } finally {
    inbox.close();
    await server.stop();
  }
}

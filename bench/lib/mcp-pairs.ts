// The two held waits the MCP figure compares, on one instance: an MCP `ask_user` (the official
// client over Streamable HTTP) and a held GraphQL `askUser` that selects its receipt (which the
// MCP result always carries). Each asks a CONFIRM question, the operator answers it through
// GraphQL once the inbox stream shows it, and the pair reports the time from writing the answer
// until the asker's result arrived. Shared by bench/figures/mcp-ask.ts and
// bench/profile/mcp-cpu.ts so both time exactly the same thing.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  ANSWER,
  ASK_WITH_RECEIPT,
  type AskData,
  dataOf,
  graphqlBody,
  graphqlClient,
  headersFor,
  KEYS,
} from './graphql.ts';
import { keepAliveAgent, send, socketPerRequestAgent } from './http.ts';
import { sleep } from './pool.ts';
import { SseClient } from './sse.ts';

/** The question is registered and its waiter armed before it is answered (as in the resume figure). */
export const SETTLE_MS = 40;

/** One ask → answer → result: from the answer to the result, and from the ask less the settle. */
export interface PairTimes {
  resume: number;
  total: number;
}

export interface McpPairs {
  viaMcp(text: string): Promise<PairTimes>;
  viaGraphql(text: string): Promise<PairTimes>;
  close(): Promise<void>;
}

export async function startMcpPairs(serverUrl: string): Promise<McpPairs> {
  const client = new Client({ name: 'tai-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', serverUrl), {
      requestInit: { headers: { authorization: `Bearer ${KEYS.agent}` } },
    }),
  );
  const asker = keepAliveAgent(2);
  const answerer = graphqlClient(serverUrl, 'operator', keepAliveAgent(2));
  const inbox = new SseClient(`${serverUrl}/api/interactions/stream`, {
    agent: socketPerRequestAgent(),
    headers: headersFor('operator', 'text/event-stream'),
  });
  try {
    await inbox.next((e) => e.event === 'interaction.ready', 10_000);
  } catch (err) {
    inbox.close();
    await client.close().catch(() => {});
    throw err;
  }

  /** Asks through `ask`, answers once the inbox shows it. */
  const pair = async (text: string, ask: () => Promise<number>): Promise<PairTimes> => {
    const added = inbox.next((e) => e.event === 'interaction.add' && e.data.includes(`"${text}"`), 10_000);
    const started = performance.now();
    const done = ask();
    const { id } = JSON.parse((await added).data) as { id: string };
    await sleep(SETTLE_MS);
    const answered = answerer.post(ANSWER, { id, answer: true });
    const [endedAt, answerReply] = await Promise.all([done, answered]);
    dataOf(answerReply);
    return { resume: endedAt - answerReply.sentAt, total: endedAt - started - SETTLE_MS };
  };

  return {
    viaMcp: (text) =>
      pair(text, async () => {
        const r = await client.callTool({
          name: 'ask_user',
          arguments: { text, format: 'CONFIRM', wait_seconds: 30 },
        });
        const status = (r.structuredContent as { status?: string } | undefined)?.status;
        if (r.isError || status !== 'ANSWERED') throw new Error(`ask_user returned ${JSON.stringify(r)}`);
        return performance.now();
      }),
    viaGraphql: (text) =>
      pair(text, async () => {
        const reply = await send(`${serverUrl}/graphql`, {
          agent: asker,
          method: 'POST',
          headers: headersFor('agent'),
          body: graphqlBody(ASK_WITH_RECEIPT, { input: { text, format: 'CONFIRM' }, hold: 30 }),
        });
        const status = dataOf<AskData>(reply).askUser.status;
        if (status !== 'ANSWERED') throw new Error(`held askUser returned ${status}`);
        return reply.endedAt;
      }),
    close: async () => {
      inbox.close();
      await client.close().catch(() => {});
    },
  };
}

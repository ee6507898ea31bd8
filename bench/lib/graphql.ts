// The interactions server as the benchmark talks to it: fixed keys, a GraphQL call that
// fails loudly, and the few operations every figure needs.
import type http from 'node:http';
import { type Reply, send } from './http.ts';

export const KEYS = {
  agent: 'bench-agent-key-00000000000001',
  operator: 'bench-operator-key-000000000002',
} as const;

export const PRINCIPALS = JSON.stringify([
  { id: 'bench-agent', key: KEYS.agent, roles: ['agent'] },
  { id: 'bench-operator', key: KEYS.operator, roles: ['operator'] },
]);

export type Role = keyof typeof KEYS;

export function headersFor(role: Role, accept = 'application/json'): Record<string, string> {
  return { authorization: `Bearer ${KEYS[role]}`, 'content-type': 'application/json', accept };
}

export function graphqlBody(query: string, variables: Record<string, unknown> = {}): string {
  return JSON.stringify({ query, variables });
}

/** The data of a GraphQL reply; throws on a non-200 status or any error. */
export function dataOf<T>(reply: Reply): T {
  if (reply.status !== 200) throw new Error(`GraphQL status ${reply.status}: ${reply.body.slice(0, 300)}`);
  const parsed = JSON.parse(reply.body) as { data?: T; errors?: unknown[] };
  if (parsed.errors?.length || parsed.data === undefined) {
    throw new Error(`GraphQL errors: ${JSON.stringify(parsed.errors).slice(0, 300)}`);
  }
  return parsed.data;
}

export interface GraphQLClient {
  /** Sends one operation and returns the raw reply (with its timings). */
  post(query: string, variables?: Record<string, unknown>): Promise<Reply>;
  call<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

export function graphqlClient(baseUrl: string, role: Role, agent: http.Agent): GraphQLClient {
  const post = (query: string, variables?: Record<string, unknown>): Promise<Reply> =>
    send(`${baseUrl}/graphql`, {
      agent,
      method: 'POST',
      headers: headersFor(role),
      body: graphqlBody(query, variables),
    });
  return { post, call: async (q, v) => dataOf(await post(q, v)) };
}

export const ASK = `mutation Ask($input: AskUserInput!, $hold: Int) {
  askUser(input: $input, holdSeconds: $hold) { status answer callbackUrl question { id } }
}`;

/**
 * The held askUser with its decision receipt: what an MCP `ask_user` result always carries, so
 * the MCP figure's floor delivers the same information (a receipt is signed when asked for).
 */
export const ASK_WITH_RECEIPT = ASK.replace('{ status answer', '{ status answer receipt');

export const ANSWER = `mutation Answer($id: ID!, $answer: JSON!) { answer(id: $id, answer: $answer) { id status } }`;

export interface AskData {
  askUser: { status: string; answer: unknown; callbackUrl: string | null; question: { id: string } };
}

const PENDING_PAGE = `query Pending($group: String, $first: Int, $after: String) {
  questions(filter: { status: [PENDING], groupId: $group }, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { id } }
  }
}`;

interface PendingPage {
  questions: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: { node: { id: string } }[];
  };
}

/** How many questions are pending (in one group, if given): the operator's honest count. */
export async function pendingCount(operator: GraphQLClient, group?: string): Promise<number> {
  const d = await operator.call<PendingPage>(PENDING_PAGE, { group, first: 1 });
  return d.questions.totalCount;
}

/** Every pending question id in a group, page by page. */
export async function pendingIds(
  operator: GraphQLClient,
  group: string,
  maxPages = Infinity,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 1; ; page++) {
    const d: PendingPage = await operator.call<PendingPage>(PENDING_PAGE, { group, first: 200, after });
    ids.push(...d.questions.edges.map((e) => e.node.id));
    if (!d.questions.pageInfo.hasNextPage || page >= maxPages) return ids;
    after = d.questions.pageInfo.endCursor;
  }
}

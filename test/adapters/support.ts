// Helpers for the framework adapters' tests: a real server (private Redis), the agent's SDK
// client, and a "person" who answers each approval as it is asked — through GraphQL (the SDK's
// `answer`, as the inbox does) or the REST answer door — and a rule an admin puts in place.
import { createInteractionsClient, type InteractionsClient, type Question } from '../../src/client/index.ts';
import { clientAs, FAST_RETRY, listening } from '../client/support.ts';
import { KEYS, type TestServer } from '../support/server.ts';

export { clientAs, listening };

export interface Person {
  /** For an adapter's `onAsked`: answers the question through GraphQL as the operator `ops`. */
  viaGraphql(answer: unknown): (q: Question) => void;
  /** For an adapter's `onAsked`: answers through `POST /api/interactions/{id}/answer`. */
  viaRest(answer: unknown): (q: Question) => void;
  /** The questions answered so far (their ids), once every answer is recorded. */
  settled(): Promise<string[]>;
}

export function person(t: TestServer & { url: string }): Person {
  const ops = createInteractionsClient({ url: t.url, apiKey: KEYS.ops, retry: FAST_RETRY });
  const done: Promise<string>[] = [];
  return {
    viaGraphql: (answer) => (q) => {
      done.push(ops.answer(q.id, answer).then((after) => after.id));
    },
    viaRest: (answer) => (q) => {
      done.push(
        fetch(`${t.url}/api/interactions/${q.id}/answer`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEYS.ops}`, 'content-type': 'application/json' },
          body: JSON.stringify({ answer }),
        }).then(async (res) => {
          if (res.status !== 200) throw new Error(`REST answer: ${res.status} ${await res.text()}`);
          return q.id;
        }),
      );
    },
    settled: () => Promise.all(done),
  };
}

/** Puts a store policy rule (API.md §20) as the admin, through GraphQL. */
export async function putRule(
  t: TestServer & { url: string },
  rule: { id: string; effect: 'ALLOW' | 'DENY' | 'ASK'; action: string },
): Promise<void> {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }',
      variables: { i: { id: rule.id, effect: rule.effect, match: { action: rule.action } } },
    }),
  });
  const body = (await res.json()) as { data?: { putPolicyRule?: { id: string } }; errors?: unknown };
  if (body.data?.putPolicyRule?.id !== rule.id) throw new Error(`putPolicyRule: ${JSON.stringify(body)}`);
}

/** The agent's client (role `agent`), as an adapter's user creates it. */
export function agentClient(t: TestServer & { url: string }): InteractionsClient {
  return clientAs(t.url, 'agent');
}

// decisionStats over /graphql (API.md §24): 401 without a key, FORBIDDEN for agents and for a
// restricted auditor, a restricted operator counts its own audience, bad arguments are named;
// and tai_interactions_time_to_decision_seconds counts each decision under its format and who
// decided, with no id in any label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, PRINCIPALS, startServer, type TestServer, type Who } from '../support/server.ts';

const RESTRICTED_AUDITOR_KEY = 'test-auditor-key-00000008';
const keysEnv = JSON.stringify([
  ...PRINCIPALS,
  { id: 'nosy', key: RESTRICTED_AUDITOR_KEY, roles: ['auditor'], restricted: true },
]);

const STATS = `query($since: DateTime!, $until: DateTime, $groupBy: StatsGroupBy!) {
  decisionStats(since: $since, until: $until, groupBy: $groupBy) {
    key asked decidedByPerson decidedByPolicy decidedByGrant timedOut cancelled pending
    timeToDecisionSeconds { p50 p90 max }
    pendingByAge { olderThanSeconds count }
  }
}`;
const ASK = `mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }`;

describe('decisionStats over /graphql, and its metric', () => {
  let t: TestServer;
  const since = new Date(Date.now() - 3600_000).toISOString();
  const gql = async (who: Who | 'nosy' | null, query: string, variables: Record<string, unknown>) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (who === 'nosy') headers.authorization = `Bearer ${RESTRICTED_AUDITOR_KEY}`;
    else if (who) Object.assign(headers, auth(who));
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: { query, variables },
    });
    return {
      status: r.statusCode,
      // biome-ignore lint/suspicious/noExplicitAny: read field by field.
      body: r.json() as { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] },
    };
  };

  beforeAll(async () => {
    t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_API_KEYS: keysEnv },
      plugins: { metrics: true },
    });
    const one = await gql('agent', ASK, { i: { text: 'Ship?', format: 'CONFIRM' } });
    await gql('alice', ASK, { i: { text: 'Mine?', format: 'TEXT' } });
    await gql('ops', ANSWER, { id: one.body.data.askUser.question.id, a: true });
  });
  afterAll(() => t.close());

  it('is read by operators, admins and auditors; 401 without a key, FORBIDDEN for agents and restricted auditors', async () => {
    expect((await gql(null, STATS, { since, groupBy: 'ASKER' })).status).toBe(401);
    for (const who of ['agent', 'nosy'] as const) {
      const r = await gql(who, STATS, { since, groupBy: 'ASKER' });
      expect(r.body.errors?.[0]?.extensions?.code, who).toBe('FORBIDDEN');
    }
    const ops = await gql('ops', STATS, { since, groupBy: 'ASKER' });
    expect(ops.body.errors).toBeUndefined();
    expect(ops.body.data.decisionStats.map((r: { key: string; asked: number }) => [r.key, r.asked])).toEqual([
      ['agent', 1],
      ['alice', 1],
    ]);
    expect(ops.body.data.decisionStats[0]).toMatchObject({
      decidedByPerson: 1,
      pending: 0,
      timeToDecisionSeconds: { p50: expect.any(Number) },
    });
    // A restricted operator counts the questions of its own audience only.
    const alice = await gql('alice', STATS, { since, groupBy: 'ASKER' });
    expect(alice.body.data.decisionStats.map((r: { key: string }) => r.key)).toEqual(['alice']);
    expect(alice.body.data.decisionStats[0].pendingByAge[0]).toEqual({ olderThanSeconds: 0, count: 1 });
  });

  it('names a bad grouping, a missing since and a window that ends before it starts', async () => {
    const team = await gql('admin', STATS, { since, groupBy: 'TEAM' });
    expect(team.body.errors?.[0]?.message).toMatch(/StatsGroupBy/);
    const none = await gql('admin', STATS, { groupBy: 'ASKER' });
    expect(none.body.errors?.[0]?.message).toMatch(/\$since/);
    const backwards = await gql('admin', STATS, { since, until: since, groupBy: 'ASKER' });
    expect(backwards.body.errors?.[0]).toMatchObject({
      message: 'until must be after since',
      extensions: { code: 'BAD_USER_INPUT', field: 'until' },
    });
  });

  it('tai_interactions_time_to_decision_seconds counts the decision by format and who decided, no ids', async () => {
    const r = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('ops') });
    const lines = r.body.split('\n').filter((l) => l.startsWith('tai_interactions_time_to_decision_seconds'));
    expect(lines).toContain(
      'tai_interactions_time_to_decision_seconds_count{format="CONFIRM",decided_by="person"} 1',
    );
    for (const l of lines) expect(l).not.toMatch(/question|agent|alice|ops"/);
  });
});

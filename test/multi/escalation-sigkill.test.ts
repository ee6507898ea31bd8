// An escalation step outlives the instance that took the question (API.md §18): a real server
// process asks with a ladder and is killed with SIGKILL before the step is due; a second process
// on the same Redis fires the step when it falls due, exactly once (counted at the webhook
// channel's loopback receiver), and the question stays answerable there. The step's 10 s is the
// contract's minimum, so this test waits that long (no sleep: it awaits the delivery).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type HttpReceiver, startReceiver } from '../support/fakes/http-receiver.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { gqlAt, type ServerProcess, spawnServer } from '../support/processes.ts';
import { KEYS, PRINCIPALS } from '../support/server.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!) {
    askUser(input: $input, holdSeconds: 0) { question { id status } }
  }
`;
const QUESTION = /* GraphQL */ `
  query Q($id: ID!) { question(id: $id) { status escalations { action firedAt outcome } } }
`;

const typeOf = (body: Buffer): string => (JSON.parse(body.toString('utf8')) as { type?: string }).type ?? '';

describe('an escalation step survives the death of the instance that asked', () => {
  const procs: ServerProcess[] = [];
  let receiver: HttpReceiver;

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM').catch(() => {})));
    await receiver?.close();
  });

  it('A asks and is SIGKILLed; B fires the REMIND once when it falls due', async () => {
    receiver = await startReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'tai-sigkill-'));
    writeFileSync(
      join(dir, 'interactions.yaml'),
      [
        'channels:',
        '  primary:',
        '    plugin: webhook',
        '    config:',
        `      url: ${receiver.url}`,
        '      secretEnv: HOOK_SECRET',
      ].join('\n'),
    );
    const env = {
      INTERACTIONS_REDIS_URL: inject('redisUrl'),
      INTERACTIONS_KEY_PREFIX: uniquePrefix(),
      INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS),
      INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:4000',
      INTERACTIONS_MANIFEST: join(dir, 'interactions.yaml'),
      INTERACTIONS_REAPER_INTERVAL_MS: '50',
      HOOK_SECRET: SECRET,
      LOG_LEVEL: 'warn',
    };
    const a = await spawnServer(env);
    procs.push(a);
    const asked = await gqlAt(a.url, KEYS.agent, ASK, {
      input: {
        text: 'Who takes the pager tonight?',
        format: 'TEXT',
        channel: 'primary',
        timeoutSeconds: 600,
        escalation: [{ afterSeconds: 10, action: 'REMIND' }],
      },
    });
    expect(asked.errors).toBeUndefined();
    const id = asked.data.askUser.question.id as string;
    await receiver.waitFor((r) => typeOf(r.body) === 'question.asked');
    await a.kill('SIGKILL');

    const b = await spawnServer(env);
    procs.push(b);
    const reminded = await receiver.waitFor((r) => typeOf(r.body) === 'question.reminded');
    expect(JSON.parse(reminded.body.toString('utf8'))).toMatchObject({ question: { id } });
    // Recorded once, by B: fired, delivered, and the question still pending for an answer.
    const after = await gqlAt(b.url, KEYS.ops, QUESTION, { id });
    expect(after.data.question.status).toBe('PENDING');
    expect(after.data.question.escalations).toEqual([
      { action: 'REMIND', firedAt: expect.any(String), outcome: 'DELIVERED' },
    ]);
    expect(receiver.requests.filter((r) => typeOf(r.body) === 'question.reminded')).toHaveLength(1);
  }, 60_000);
});

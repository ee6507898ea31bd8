// `tai interactions answer --approve|--reject [--note] [--arguments file.json]` (API.md §15):
// an edited approval read from a file, a rejection with a note, CONFIRM's --approve, a quorum
// vote that leaves the question pending, and the refusals of flags that do not fit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionsClient } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'tai-approve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = {
  type: 'object',
  properties: { charge: { type: 'string' }, amount: { type: 'integer', maximum: 500 } },
  required: ['charge', 'amount'],
};

describe('tai interactions answer --approve / --reject', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let ops: Record<string, string>;
  let admin: Record<string, string>;
  const background = backgroundAsks();

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = { TAI_URL: t.url, TAI_API_KEY: KEYS.ops };
    admin = { TAI_URL: t.url, TAI_API_KEY: KEYS.admin };
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  const refund = (editable: boolean) =>
    background.pending(agent, {
      text: 'Refund?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { charge: 'ch_1', amount: 100 }, editable },
      ...(editable ? { argumentsSchema: schema } : {}),
    });

  it('--approve --arguments file.json approves the edited arguments; an invalid file is refused at its path', async () => {
    const q = await refund(true);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ charge: 'ch_1', amount: 9000 }));
    const refused = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--arguments', bad], {
      env: ops,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: BAD_USER_INPUT: .+ \(at answer\.arguments\.amount\)\n$/);
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ charge: 'ch_1', amount: 40 }));
    const r = await runCliInProcess(
      ['interactions', 'answer', q.id, '--approve', '--arguments', good, '--note', 'partial', '--json'],
      { env: ops },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'ANSWERED',
      decision: 'APPROVED',
      edited: true,
      answer: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 40 }, note: 'partial' },
    });
  });

  it('--reject --note rejects; --arguments with --reject and both flags at once are refused', async () => {
    const q = await refund(false);
    const both = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--reject'], {
      env: ops,
    });
    expect(both.stderr).toBe('error: BAD_USER_INPUT: give --approve or --reject, not both\n');
    const args = path.join(dir, 'args.json');
    writeFileSync(args, '{}');
    const withArgs = await runCliInProcess(
      ['interactions', 'answer', q.id, '--reject', '--arguments', args],
      {
        env: ops,
      },
    );
    expect(withArgs.stderr).toBe('error: BAD_USER_INPUT: --arguments goes with --approve\n');
    const r = await runCliInProcess(['interactions', 'answer', q.id, '--reject', '--note', 'no', '--json'], {
      env: ops,
    });
    expect(JSON.parse(r.stdout)).toMatchObject({
      decision: 'REJECTED',
      answer: { decision: 'REJECTED', note: 'no' },
    });
  });

  it('CONFIRM: --approve answers true; --note is refused there', async () => {
    const q = await background.pending(agent, { text: 'Deploy?', format: 'CONFIRM' });
    const noted = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--note', 'x'], {
      env: ops,
    });
    expect(noted.stderr).toBe('error: BAD_USER_INPUT: --note and --arguments are for APPROVAL questions\n');
    const r = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--json'], { env: ops });
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: true, decision: 'APPROVED' });
  });

  it('in a terminal without flags: the action is shown, then approve? and a note', async () => {
    const q = await refund(false);
    const asked: string[] = [];
    const prompter = {
      confirm: async (message: string) => {
        asked.push(message);
        return false;
      },
      select: async () => {
        throw new Error('no pick list for an approval');
      },
      input: async (message: string, validate: (text: string) => string | null) => {
        asked.push(message);
        expect(validate('x'.repeat(2001))).not.toBeNull();
        return 'duplicate';
      },
    };
    const r = await runCliInProcess(['interactions', 'answer', q.id, '--json'], {
      env: ops,
      interactive: true,
      prompter,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Action: payments.refund');
    expect(r.stderr).toContain('"amount": 100');
    expect(asked).toEqual(['Approve?', 'Note [optional]']);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: { decision: 'REJECTED', note: 'duplicate' } });
  });

  it('a quorum: the first vote leaves it pending, a repeat counts nothing, another vote is "you have already voted", the second decides', async () => {
    const q = await background.pending(agent, {
      text: 'Rotate?',
      format: 'APPROVAL',
      action: { name: 'keys.rotate', arguments: {} },
      quorum: { approvals: 2, voters: ['ops', 'admin'] },
    });
    const first = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--json'], {
      env: ops,
    });
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'PENDING',
      votes: [{ by: 'ops', decision: 'APPROVED' }],
    });
    // The same vote again is a retry (API.md §15): a success that counts nothing.
    const again = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--json'], {
      env: ops,
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'PENDING', votes: [{ by: 'ops' }] });
    expect(JSON.parse(again.stdout).votes).toHaveLength(1);
    const other = await runCliInProcess(['interactions', 'answer', q.id, '--reject'], { env: ops });
    expect(other.stderr).toBe('error: ALREADY_ANSWERED: you have already voted\n');
    const second = await runCliInProcess(['interactions', 'answer', q.id, '--approve', '--json'], {
      env: admin,
    });
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'ANSWERED', decision: 'APPROVED' });
  });

  it('show prints the action once: its name, each argument on its line, editable, and "with changes" after an edit', async () => {
    const q = await refund(true);
    const before = await runCliInProcess(['interactions', 'show', q.id], { env: ops });
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^Action +payments\.refund$/m);
    expect(before.stdout).toMatch(/^Arguments *\n {2}charge +ch_1\n {2}amount +100$/m);
    expect(before.stdout).toMatch(/^Editable +yes/m);
    expect(before.stdout).not.toMatch(/^Decision/m);
    const good = path.join(dir, 'show.json');
    writeFileSync(good, JSON.stringify({ charge: 'ch_1', amount: 60 }));
    const answered = await runCliInProcess(
      ['interactions', 'answer', q.id, '--approve', '--arguments', good],
      {
        env: ops,
      },
    );
    expect(answered.code).toBe(0);
    const after = await runCliInProcess(['interactions', 'show', q.id], { env: ops });
    expect(after.stdout).toMatch(/^Decision +APPROVED with changes$/m);
    expect(after.stdout).toMatch(/^ {2}amount +100 → 60$/m);
    const fixed = await runCliInProcess(['interactions', 'show', (await refund(false)).id], { env: ops });
    expect(fixed.stdout).toMatch(/^Editable +no$/m);
  });
});

describe('tai interactions ask --format approval', () => {
  let t: TestServer & { url: string };
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await listening();
    env = { TAI_URL: t.url, TAI_API_KEY: KEYS.agent };
  });
  afterAll(async () => {
    await t.close();
  });

  it('asks with --action (and --schema as the arguments schema); without --action it is a usage error', async () => {
    const action = JSON.stringify({ name: 'payments.refund', arguments: { amount: 40 }, editable: true });
    const argsSchema = JSON.stringify({ type: 'object', properties: { amount: { type: 'integer' } } });
    const r = await runCliInProcess(
      [
        'interactions',
        'ask',
        'Refund?',
        '--format',
        'approval',
        '--action',
        action,
        '--schema',
        argsSchema,
      ].concat(['--no-wait', '--json']),
      { env },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { amount: 40 }, editable: true },
    });
    const missing = await runCliInProcess(['interactions', 'ask', 'Refund?', '--format', 'approval'], {
      env,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--format approval needs --action');
    const help = await runCliInProcess(['interactions', 'ask', '--help'], { env });
    // Commander wraps the help: every format is listed, whatever the line breaks.
    expect(help.stdout).toMatch(/approval\s+\(approve\s+or\s+reject\s+--action\)/);
  });
});

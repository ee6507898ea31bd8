// The `tai` commands run in process (runCli with captured streams) against a real server on
// Redis: every command's text and JSON output and its errors, and the interactive answer
// prompts driven by keystrokes through @inquirer/prompts. (cli.test.ts runs the installed
// binary as subprocesses; this covers the rest without a process start per case.)
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquirerPrompter, type Prompter } from '../../src/cli/prompt.ts';
import { CancelledError, type InteractionsClient, type Question } from '../../src/client/index.ts';
import { backgroundAsks, clientAs, listening } from '../client/support.ts';
import { type CliResult, runCliInProcess } from '../support/cli-run.ts';
import { freePort } from '../support/fixtures.ts';
import { KEYS, type TestServer } from '../support/server.ts';

interface RunOptions {
  interactive?: boolean;
  prompter?: Prompter;
}

function run(args: string[], env: Record<string, string>, o: RunOptions = {}): Promise<CliResult> {
  return runCliInProcess(args, { env, ...o });
}

/** A keyboard on @inquirer/prompts: waits for a prompt's text on screen, then types. */
function keyboard() {
  const input = new PassThrough();
  let screen = '';
  let seen = 0;
  const watchers = new Set<() => void>();
  const prompter = inquirerPrompter(() => {
    const output = new PassThrough();
    output.on('data', (d: Buffer) => {
      screen += d.toString();
      for (const w of [...watchers]) w();
    });
    return { input, output };
  });
  return {
    prompter,
    screen: () => screen,
    /** Waits until `text` is on screen past what was already waited for, then sends `keys`. */
    async at(text: string, keys: string): Promise<void> {
      await new Promise<void>((resolve) => {
        const check = (): void => {
          const at = screen.indexOf(text, seen);
          if (at >= 0) {
            seen = at + text.length;
            watchers.delete(check);
            resolve();
          }
        };
        watchers.add(check);
        check();
      });
      input.write(keys);
    },
  };
}

const DOWN = '\u001b[B';
const ENTER = '\r';

describe('tai commands (in process)', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;
  let ops: Record<string, string>;
  const background = backgroundAsks();

  beforeAll(async () => {
    t = await listening();
    agent = clientAs(t.url, 'agent');
    ops = { TAI_URL: t.url, TAI_API_KEY: KEYS.ops };
  });
  afterAll(async () => {
    background.stop();
    await t.close();
  });

  describe('list', () => {
    it('empty, --status, --all and filters', async () => {
      const server = await listening();
      const own = backgroundAsks();
      try {
        const a = clientAs(server.url, 'agent');
        const env = { TAI_URL: server.url, TAI_API_KEY: KEYS.ops };
        expect(await run(['interactions', 'list'], env)).toEqual({
          code: 0,
          stdout: 'No pending questions.\n',
          stderr: '',
        });
        const one = await own.pending(a, { text: 'One', groupId: 'g1' });
        const two = await own.pending(a, { text: 'Two', format: 'CONFIRM' });
        const three = await own.pending(a, { text: 'Three', groupId: 'g1' });
        await clientAs(server.url, 'ops').answer(two.id, true);

        const all = JSON.parse(
          (await run(['--json', 'interactions', 'list', '--first', '1', '--all'], env)).stdout,
        );
        expect(all.questions.map((q: Question) => q.id).sort()).toEqual([one.id, three.id].sort());
        expect(all.totalCount).toBe(2);

        const answered = await run(['interactions', 'list', '--status', 'answered'], env);
        expect(answered.stdout).toContain(`${two.id}  ANSWERED`);
        expect(answered.stdout).toContain('1 of 1 answered question.');
        const every = JSON.parse(
          (await run(['interactions', 'list', '--status', 'all', '--json'], env)).stdout,
        );
        expect(every.totalCount).toBe(3);
        const group = JSON.parse(
          (await run(['interactions', 'list', '--group', 'g1', '--json'], env)).stdout,
        );
        expect(group.totalCount).toBe(2);

        const page = await run(['interactions', 'list', '--first', '1'], env);
        expect(page.stdout).toMatch(/\n1 of 2 pending questions\. Next page: --after \S+\n$/);

        const bad = await run(['interactions', 'list', '--status', 'sleeping'], env);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain(
          'expected "all" or a comma-separated list of PENDING, ANSWERED, TIMED_OUT, CANCELLED',
        );
        expect((await run(['interactions', 'list', '--first', '500'], env)).code).toBe(2);
      } finally {
        own.stop();
        await server.close();
      }
    });
  });

  describe('show', () => {
    it('every field a question has', async () => {
      const q = await background.pending(agent, {
        text: 'Look at this',
        format: 'FORM',
        schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        media: [{ kind: 'LINK', url: 'https://example.com/report', caption: 'the report' }],
        audience: 'ops',
      });
      const r = await run(['interactions', 'show', q.id], ops);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Format     FORM\n');
      expect(r.stdout).toContain('Schema     {"type":"object","properties":{"ok":{"type":"boolean"}}}\n');
      expect(r.stdout).toContain('Media      LINK https://example.com/report (the report)\n');
      expect(r.stdout).toContain('Audience   ops\n');
      expect(r.stdout).toMatch(/Times out {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\n/);
      const missing = await run(['interactions', 'show', 'nope', '--json'], ops);
      expect(missing).toEqual({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: question not found\n' });
    });
  });

  describe('answer', () => {
    it('--json prints the question; refusals name their code and field', async () => {
      const form = await background.pending(agent, {
        text: 'Seats?',
        format: 'FORM',
        schema: { type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'] },
      });
      const bad = await run(['interactions', 'answer', form.id, '--answer', '{"seats":"two"}'], ops);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error: BAD_USER_INPUT: .+ \(at answer\.seats\)\n$/);
      const good = await run(['interactions', 'answer', form.id, '--answer', '{"seats":2}', '--json'], ops);
      expect(good.code).toBe(0);
      expect(JSON.parse(good.stdout)).toMatchObject({
        id: form.id,
        status: 'ANSWERED',
        answer: { seats: 2 },
      });
      const again = await run(['interactions', 'answer', form.id, '--answer', '{"seats":3}'], ops);
      expect(again).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: ALREADY_ANSWERED: the question was already answered\n',
      });
      const asAgent = await run(['interactions', 'answer', form.id, '--answer', '{"seats":3}'], {
        TAI_URL: t.url,
        TAI_API_KEY: KEYS.agent,
      });
      expect(asAgent.stderr).toBe(
        'error: FORBIDDEN: this key may not answer questions (answering needs a key with the operator or admin role)\n',
      );
    });

    it('without --answer and without a terminal it asks for --answer', async () => {
      const q = await background.pending(agent, { text: 'Name?' });
      expect(await run(['interactions', 'answer', q.id], ops)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: BAD_USER_INPUT: --answer is required when stdin is not a terminal\n',
      });
    });

    it('prompts yes/no for CONFIRM', async () => {
      const q = await background.pending(agent, { text: 'Roll back?', format: 'CONFIRM' });
      const kb = keyboard();
      const running = run(['interactions', 'answer', q.id], ops, {
        interactive: true,
        prompter: kb.prompter,
      });
      await kb.at('Roll back?', `n${ENTER}`);
      expect(await running).toEqual({ code: 0, stdout: `Answered ${q.id}: false\n`, stderr: '' });
    });

    it('prompts a pick list for SELECT and a line for TEXT', async () => {
      const q = await background.pending(agent, {
        text: 'Region?',
        format: 'SELECT',
        options: ['eu', 'us', 'ap'],
      });
      const kb = keyboard();
      const running = run(['interactions', 'answer', q.id, '--json'], ops, {
        interactive: true,
        prompter: kb.prompter,
      });
      await kb.at('Region?', `${DOWN}${DOWN}${ENTER}`);
      const r = await running;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ id: q.id, answer: 'ap' });

      const text = await background.pending(agent, { text: 'Release name?' });
      const kb2 = keyboard();
      const typing = run(['interactions', 'answer', text.id], ops, {
        interactive: true,
        prompter: kb2.prompter,
      });
      await kb2.at('Release name?', ENTER); // empty: refused by the prompt, which stays open
      await kb2.at('an answer is required', `Tai 1.0${ENTER}`);
      expect((await typing).stdout).toBe(`Answered ${text.id}: Tai 1.0\n`);
    });

    it('prompts a field per FORM property: text, number, pick list, yes/no, optional left out', async () => {
      const q = await background.pending(agent, {
        text: 'New customer',
        format: 'FORM',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name' },
            seats: { type: 'integer', description: 'how many' },
            plan: { type: 'string', enum: ['free', 'pro'] },
            newsletter: { type: 'boolean' },
            notes: { type: 'string' },
            kind: { const: 'company' },
          },
          required: ['name', 'seats', 'plan'],
        },
      });
      const kb = keyboard();
      const running = run(['interactions', 'answer', q.id, '--json'], ops, {
        interactive: true,
        prompter: kb.prompter,
      });
      await kb.at('Name', `Ada Ltd${ENTER}`);
      await kb.at('seats (how many)', `3${ENTER}`);
      await kb.at('plan', `${DOWN}${ENTER}`);
      await kb.at('newsletter [optional]', `y${ENTER}`);
      await kb.at('notes [optional]', ENTER);
      const r = await running;
      expect(r.stderr).toBe('New customer\n');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).answer).toEqual({
        name: 'Ada Ltd',
        seats: 3,
        plan: 'pro',
        newsletter: true,
        kind: 'company',
      });
    });

    it('refuses to prompt for an EXTERNAL or closed question', async () => {
      const ext = await background.pending(agent, {
        text: 'Sign',
        format: 'EXTERNAL',
        link: 'https://sign.example/{callback_url}',
      });
      const r = await run(['interactions', 'answer', ext.id], ops, { interactive: true });
      expect(r).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: WRONG_DOOR: /) });
      const closed = await background.pending(agent, { text: 'Gone' });
      await clientAs(t.url, 'ops').cancel(closed.id);
      const c = await run(['interactions', 'answer', closed.id], ops, { interactive: true });
      expect(c.stderr).toBe('error: QUESTION_CLOSED: the question is cancelled\n');
    });
  });

  describe('cancel, channels, ask', () => {
    it('cancel: the asker gets CANCELLED', async () => {
      let asked: (q: Question) => void = () => {};
      const question = new Promise<Question>((resolve) => {
        asked = resolve;
      });
      const outcome = agent.askUser({ text: 'Still needed?' }, { onAsked: asked }).catch((e: unknown) => e);
      const { id } = await question;
      expect(await run(['interactions', 'cancel', id, '--reason', 'superseded'], ops)).toEqual({
        code: 0,
        stdout: `Cancelled ${id}: superseded\n`,
        stderr: '',
      });
      const err = await outcome;
      expect(err).toBeInstanceOf(CancelledError);
      expect(err).toMatchObject({ reason: 'superseded' });
      const twice = await run(['interactions', 'cancel', id, '--json'], ops);
      expect(twice.stderr).toMatch(/^error: QUESTION_CLOSED: /);
    });

    it('channels list, as text and JSON', async () => {
      expect(await run(['channels', 'list'], ops)).toEqual({
        code: 0,
        stdout: 'No channels are registered.\n',
        stderr: '',
      });
      expect(await run(['channels', 'list', '--json'], ops)).toMatchObject({ code: 0, stdout: '[]\n' });
    });

    it('--url/--key override the environment; unknown key, unreachable server and a bad URL', async () => {
      expect((await run(['channels', 'list', '--url', t.url, '--key', KEYS.ops], {})).code).toBe(0);
      expect(await run(['channels', 'list', '--key', 'not-a-key-000000000'], ops)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: UNAUTHENTICATED: missing or unknown API key\n',
      });
      const port = await freePort();
      const down = await run(['channels', 'list'], {
        TAI_URL: `http://127.0.0.1:${port}`,
        TAI_API_KEY: KEYS.ops,
      });
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(
        /^error: NETWORK_ERROR: cannot reach http:\/\/127\.0\.0\.1:\d+\/graphql: ECONNREFUSED\n$/,
      );
      const badUrl = await run(['channels', 'list', '--url', 'ftp://x'], ops);
      expect(badUrl.code).toBe(2);
      expect(badUrl.stderr).toContain('expected an http(s) URL');
    });

    it('ask waits for the answer and prints it; --no-wait prints the id or the question', async () => {
      const env = { TAI_URL: t.url, TAI_API_KEY: KEYS.agent };
      const staff = clientAs(t.url, 'ops');
      const feed = staff.subscribeInbox();
      const asking = run(
        [
          'interactions',
          'ask',
          'Which plan?',
          '--format',
          'select',
          '--option',
          'free',
          '--option',
          'pro',
          '--json',
        ],
        env,
      );
      for await (const ev of feed) {
        const q = ev.questions.find((x) => x.text === 'Which plan?' && x.status === 'PENDING');
        if (q) {
          await staff.answer(q.id, 'pro');
          feed.close();
        }
      }
      const r = await asking;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ANSWERED', answer: 'pro' });

      const noWait = await run(['interactions', 'ask', 'Later?', '--format', 'confirm', '--no-wait'], env);
      expect(noWait.code).toBe(0);
      const id = noWait.stdout.trim();
      expect((await agent.question(id))?.text).toBe('Later?');
      const asJson = await run(['interactions', 'ask', 'Later, as JSON?', '--no-wait', '--json'], env);
      expect(JSON.parse(asJson.stdout)).toMatchObject({
        text: 'Later, as JSON?',
        status: 'PENDING',
        format: 'TEXT',
      });

      const withMeta = await run(
        ['interactions', 'ask', 'Tagged?', '--no-wait', '--json', '--metadata', '{"runId":"run-7"}'],
        env,
      );
      expect(JSON.parse(withMeta.stdout)).toMatchObject({ text: 'Tagged?', metadata: { runId: 'run-7' } });
      const notAnObject = await run(
        ['interactions', 'ask', 'Tagged?', '--no-wait', '--metadata', '[1]'],
        env,
      );
      expect(notAnObject.code).not.toBe(0);
      expect(notAnObject.stderr).toMatch(/BAD_USER_INPUT: .*metadata/);
      const unknownEndpoint = await run(
        ['interactions', 'ask', 'Call me?', '--no-wait', '--notify', 'nowhere'],
        env,
      );
      expect(unknownEndpoint.code).not.toBe(0);
      expect(unknownEndpoint.stderr).toContain('input.notify');

      const timedOut = await run(['interactions', 'ask', 'Too slow?', '--timeout', '1'], env);
      expect(timedOut.code).toBe(1);
      expect(timedOut.stderr).toMatch(
        /waiting for an answer\.\nerror: TIMED_OUT: question \S+ timed out without an answer\n$/,
      );
      const refused = await run(['interactions', 'ask', 'Operators do not ask'], ops);
      expect(refused).toMatchObject({
        code: 1,
        stderr:
          'error: FORBIDDEN: this key may not do that (asking needs a key with the agent or admin role)\n',
      });
      const badFormat = await run(['interactions', 'ask', 'x', '--format', 'poll'], env);
      expect(badFormat.code).toBe(2);
    });
  });

  describe('first-time use (issue 10 item 13)', () => {
    it('ask against a server that is down says what it retries on stderr and gives up after --retry-for', async () => {
      const down = { TAI_URL: `http://127.0.0.1:${await freePort()}`, TAI_API_KEY: KEYS.agent };
      const r = await run(['interactions', 'ask', 'Anyone there?', '--retry-for', '1'], down);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^\(cannot reach http:\/\/127\.0\.0\.1:\d+\/graphql: ECONNREFUSED; retrying in \d+\.\d s\)\n/,
      );
      expect(r.stderr).toMatch(
        /\nerror: NETWORK_ERROR: cannot reach http:\/\/127\.0\.0\.1:\d+\/graphql: ECONNREFUSED\n$/,
      );
      const now = await run(['interactions', 'ask', 'Anyone there?', '--retry-for', '0'], down);
      expect(now).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: NETWORK_ERROR: /) });
      const past = await run(['interactions', 'ask', 'x', '--retry-for', '3601'], down);
      expect(past.code).toBe(2);
      expect(past.stderr).toContain('expected a whole number from 0 to 3600');
    });

    it("a SELECT ask without --option gets the server's BAD_USER_INPUT, not a crash", async () => {
      const env = { TAI_URL: t.url, TAI_API_KEY: KEYS.agent };
      const r = await run(['interactions', 'ask', 'Which?', '--format', 'select', '--no-wait'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: BAD_USER_INPUT: .+ \(at input\.options\)\n$/);
      expect(r.stderr).not.toContain('INTERNAL');
    });

    it('--answer takes a TEXT answer as it is; FORM needs JSON', async () => {
      const plain = await background.pending(agent, { text: 'Codename?' });
      expect(await run(['interactions', 'answer', plain.id, '--answer', 'hello world'], ops)).toEqual({
        code: 0,
        stdout: `Answered ${plain.id}: hello world\n`,
        stderr: '',
      });
      const quoted = await background.pending(agent, { text: 'Quoted?' });
      await run(['interactions', 'answer', quoted.id, '--answer', '"as JSON"'], ops);
      expect((await agent.question(quoted.id))?.answer).toBe('as JSON');
      const digits = await background.pending(agent, { text: 'Ticket number?' });
      await run(['interactions', 'answer', digits.id, '--answer', '42'], ops);
      expect((await agent.question(digits.id))?.answer).toBe('42');
      const form = await background.pending(agent, {
        text: 'Who?',
        format: 'FORM',
        schema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      expect(await run(['interactions', 'answer', form.id, '--answer', 'Ada'], ops)).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: BAD_USER_INPUT: --answer must be JSON for a FORM question, e.g. '{"name":"Ada"}'\n`,
      });
      expect((await agent.question(form.id))?.status).toBe('PENDING');
    });

    it('--answer takes CONFIRM in words: yes/no, y/n, true/false, any case; JSON still works', async () => {
      const words: [string, boolean][] = [
        ['yes', true],
        ['Y', true],
        ['true', true],
        ['no', false],
        [' N ', false],
        ['FALSE', false],
        // The one vocabulary every door reads (src/domain/yes-no.ts).
        ['OK', true],
        ['nope', false],
      ];
      for (const [word, value] of words) {
        const q = await background.pending(agent, { text: `Ship (${word})?`, format: 'CONFIRM' });
        expect(await run(['interactions', 'answer', q.id, '--answer', word], ops)).toMatchObject({ code: 0 });
        expect((await agent.question(q.id))?.answer).toBe(value);
      }
      const q = await background.pending(agent, { text: 'Ship?', format: 'CONFIRM' });
      expect(await run(['interactions', 'answer', q.id, '--answer', 'maybe'], ops)).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'error: BAD_USER_INPUT: --answer for a CONFIRM question must be yes or no (also y, n, true, false)\n',
      });
      expect((await agent.question(q.id))?.status).toBe('PENDING');
    });

    it("--answer takes a SELECT option's text or its number (from 1); JSON still works", async () => {
      const options = ['staging', 'production', '1', 'Blue Sky'];
      const picks: [string, string][] = [
        ['production', 'production'],
        ['2', 'production'],
        ['1', '1'], // an option whose text is a number wins over the number
        ['4', 'Blue Sky'],
        ['blue sky', 'Blue Sky'],
        ['"staging"', 'staging'],
      ];
      for (const [given, picked] of picks) {
        const q = await background.pending(agent, { text: `Where (${given})?`, format: 'SELECT', options });
        const r = await run(['interactions', 'answer', q.id, '--answer', given], ops);
        expect(r).toEqual({ code: 0, stdout: `Answered ${q.id}: ${picked}\n`, stderr: '' });
        expect((await agent.question(q.id))?.answer).toBe(picked);
      }
      const q = await background.pending(agent, { text: 'Where?', format: 'SELECT', options });
      for (const wrong of ['dev', '0', '5']) {
        expect(await run(['interactions', 'answer', q.id, '--answer', wrong], ops)).toEqual({
          code: 1,
          stdout: '',
          stderr:
            'error: BAD_USER_INPUT: --answer for this SELECT question must be one of its options, by text or number: 1. staging, 2. production, 3. 1, 4. Blue Sky\n',
        });
      }
      expect((await agent.question(q.id))?.status).toBe('PENDING');
      const many = Array.from({ length: 11 }, (_, i) => `option ${i + 1} ${'x'.repeat(50)}`);
      const long = await background.pending(agent, { text: 'Which?', format: 'SELECT', options: many });
      const r = await run(['interactions', 'answer', long.id, '--answer', 'none'], ops);
      expect(r.stderr).toContain(`10. option 10 ${'x'.repeat(30)}…, … (1 more)\n`);
    });

    it('the FORM prompt checks each field as it is entered and asks again, keeping what was typed', async () => {
      const q = await background.pending(agent, {
        text: 'Order',
        format: 'FORM',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 2 },
            seats: { type: 'integer', minimum: 1, maximum: 10 },
            code: { type: 'string', pattern: '^[A-Z]{3}$' },
            tags: { type: 'array', maxItems: 1 },
          },
          required: ['name', 'seats', 'code'],
        },
      });
      const kb = keyboard();
      const running = run(['interactions', 'answer', q.id, '--json'], ops, {
        interactive: true,
        prompter: kb.prompter,
      });
      const BACK = '\u007f';
      await kb.at('name', `A${ENTER}`);
      await kb.at('String is too short (1 < 2)', `da${ENTER}`);
      await kb.at('seats', `11${ENTER}`);
      await kb.at('11 is greater than 10', `${BACK}${BACK}10${ENTER}`);
      await kb.at('code', `abc${ENTER}`);
      await kb.at('does not match pattern', `${BACK}${BACK}${BACK}ABC${ENTER}`);
      await kb.at('tags [optional] (JSON)', `[1,2]${ENTER}`);
      await kb.at('Array has too many items', `${BACK.repeat(5)}[1]${ENTER}`);
      const r = await running;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).answer).toEqual({ name: 'Ada', seats: 10, code: 'ABC', tags: [1] });
      // The limits themselves are accepted: 10 is the maximum, one item is maxItems.
    });

    it('usage errors exit 2 with a one-line hint, not the whole help', async () => {
      const r = await run(['interactions', 'answer'], ops);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "error: missing required argument 'id'\n" +
          'Usage: tai interactions answer [options] <id>  (more: tai interactions answer --help)\n',
      );
      const top = await run(['frobnicate'], ops);
      expect(top).toMatchObject({
        code: 2,
        stderr: "error: unknown command 'frobnicate'\n(more: tai --help)\n",
      });
    });
  });
});

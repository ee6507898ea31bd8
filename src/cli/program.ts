// The `tai` command line, on commander, over the SDK (HTTP only). `runCli` never exits the
// process: it returns the exit code (0 done, 1 an error, printed as one line
// `error: <CODE>: <message>`, 2 a usage error, printed with the usage), so tests can run it in
// process with their own streams. Only `tai serve` loads the server, and only when it runs.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  AlreadyAnsweredError,
  type AnswerFormat,
  type AskInput,
  BadUserInputError,
  createInteractionsClient,
  type InteractionsClient,
  InteractionsError,
  type Question,
  QuestionClosedError,
  type QuestionStatus,
  requireQuestion,
  WrongDoorError,
} from '../client/index.ts';
import { createMcpCommand } from './commands/mcp.ts';
import { answerText, eventLines, questionDetail, questionsTable } from './format.ts';
import { inquirerPrompter, type Prompter, promptAnswer } from './prompt.ts';

export const DEFAULT_URL = 'http://127.0.0.1:4000';

export interface CliIO {
  /** Standard output: results. */
  out(text: string): void;
  /** Standard error: errors, usage, progress notes and prompts. */
  err(text: string): void;
  /** The environment (TAI_URL, TAI_API_KEY). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether the person can be prompted (stdin is a terminal). */
  interactive: boolean;
  prompter: Prompter;
  /** Calls `stop` once when the person interrupts (Ctrl-C); returns a function that stops listening. */
  onInterrupt(stop: () => void): () => void;
  /** `tai serve`: start the server from the environment (and the given overrides). */
  serve(overrides: { port?: string; host?: string }): Promise<void>;
}

/** The CLI of this process: real streams, SIGINT, the real server for `serve`. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    interactive: process.stdin.isTTY === true,
    prompter: inquirerPrompter(),
    onInterrupt(stop) {
      process.once('SIGINT', stop);
      return () => process.off('SIGINT', stop);
    },
    async serve(overrides) {
      if (overrides.port !== undefined) process.env.PORT = overrides.port;
      if (overrides.host !== undefined) process.env.HOST = overrides.host;
      // The only place the CLI loads server code: src/app/main.ts reads the environment, starts,
      // prints the one-off admin key if it mints one, and stops cleanly on SIGINT/SIGTERM.
      await import('../app/main.ts');
    },
  };
}

interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
}

const STATUSES: readonly QuestionStatus[] = ['PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'];
const FORMATS: readonly AnswerFormat[] = ['TEXT', 'CONFIRM', 'SELECT', 'FORM', 'EXTERNAL'];

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function parseJsonArg(what: string) {
  return (value: string): unknown => {
    try {
      return JSON.parse(value);
    } catch {
      throw new InvalidArgumentError(
        `${what} must be JSON, e.g. '"yes"', true, '"production"' or '{"name":"Ada"}'.`,
      );
    }
  };
}

function parseWhole(min: number, max: number) {
  return (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}

function parseStatuses(value: string): QuestionStatus[] | null {
  if (value.trim().toLowerCase() === 'all') return null;
  const picked = value.split(',').map((s) => s.trim().toUpperCase());
  for (const s of picked) {
    if (!STATUSES.includes(s as QuestionStatus)) {
      throw new InvalidArgumentError(`expected "all" or a comma-separated list of ${STATUSES.join(', ')}.`);
    }
  }
  return picked as QuestionStatus[];
}

function parseFormat(value: string): AnswerFormat {
  const f = value.trim().toUpperCase();
  if (!FORMATS.includes(f as AnswerFormat)) {
    throw new InvalidArgumentError(`expected one of ${FORMATS.map((x) => x.toLowerCase()).join(', ')}.`);
  }
  return f as AnswerFormat;
}

function parseUrl(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL, e.g. http://127.0.0.1:4000.');
  }
  return value;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(io: CliIO): Command {
  const program = new Command('tai');
  program
    .description(
      'Operate a tai-interactions server: list, answer and cancel questions, follow the live feed.',
    )
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true })
    .option('--url <url>', `server URL (env TAI_URL, default ${DEFAULT_URL})`, parseUrl)
    .option('--key <key>', 'API key (env TAI_API_KEY; prefer the variable: flags show in `ps`)')
    .option('--json', 'print JSON instead of tables');

  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals<GlobalOptions>();
  const clientOf = (cmd: Command): InteractionsClient => {
    const g = globals(cmd);
    const url = g.url ?? io.env.TAI_URL ?? DEFAULT_URL;
    return createInteractionsClient({ url: parseUrl(url), apiKey: g.key ?? io.env.TAI_API_KEY });
  };
  const print = (cmd: Command, value: unknown, text: () => string): void => {
    io.out(globals(cmd).json ? json(value) : text());
  };

  const interactions = program
    .command('interactions')
    .description('questions: list, show, answer, cancel, stream, ask');

  interactions
    .command('list')
    .description('list questions, newest first (pending ones unless --status says otherwise)')
    .addOption(
      new Option('--status <statuses>', 'comma-separated statuses, or "all"')
        .argParser(parseStatuses)
        .default(['PENDING'], 'PENDING'),
    )
    .option('--group <groupId>', 'only this group')
    .option('--audience <id>', 'only questions addressed to this principal')
    .option('--channel <name>', 'only questions delivered through this channel')
    .option('--first <n>', 'page size, 1 to 200', parseWhole(1, 200), 50)
    .option('--after <cursor>', 'continue after this cursor (from the previous page)')
    .option('--all', 'fetch every page')
    .action(async (o, cmd: Command) => {
      const client = clientOf(cmd);
      const filter = {
        ...(o.status ? { status: o.status as QuestionStatus[] } : {}),
        ...(o.group ? { groupId: o.group as string } : {}),
        ...(o.audience ? { audience: o.audience as string } : {}),
        ...(o.channel ? { channel: o.channel as string } : {}),
      };
      const page = await client.questionsPage({ filter, first: o.first, after: o.after });
      const questions = [...page.questions];
      let { pageInfo } = page;
      if (o.all) {
        while (pageInfo.hasNextPage && pageInfo.endCursor) {
          const next = await client.questionsPage({ filter, first: 200, after: pageInfo.endCursor });
          questions.push(...next.questions);
          pageInfo = next.pageInfo;
        }
      }
      const which = o.status
        ? (o.status as string[]).map((s) => s.toLowerCase().replace('_', ' ')).join(' or ')
        : '';
      print(cmd, { totalCount: page.totalCount, pageInfo, questions }, () => {
        if (questions.length === 0) return `No ${which ? `${which} ` : ''}questions.\n`;
        const more = pageInfo.hasNextPage ? ` Next page: --after ${pageInfo.endCursor}` : '';
        return `${questionsTable(questions)}\n${questions.length} of ${page.totalCount} ${which ? `${which} ` : ''}question${page.totalCount === 1 ? '' : 's'}.${more}\n`;
      });
    });

  interactions
    .command('show')
    .description('show one question')
    .argument('<id>', 'the question id')
    .action(async (id: string, _o, cmd: Command) => {
      const q = await requireQuestion(clientOf(cmd), id);
      print(cmd, q, () => questionDetail(q));
    });

  interactions
    .command('answer')
    .description('answer a TEXT, CONFIRM, SELECT or FORM question (prompts when --answer is not given)')
    .argument('<id>', 'the question id')
    .option(
      '--answer <json>',
      'the answer as JSON: \'"text"\', true, \'"production"\', \'{"name":"Ada"}\'',
      parseJsonArg('--answer'),
    )
    .action(async (id: string, o: { answer?: unknown }, cmd: Command) => {
      const client = clientOf(cmd);
      let answer = o.answer;
      if (answer === undefined) {
        if (!io.interactive) throw new BadUserInputError('--answer is required when stdin is not a terminal');
        answer = await promptAnswer(await answerable(client, id), io.prompter, io.err);
      }
      const q = await client.answer(id, answer);
      print(cmd, q, () => `Answered ${q.id}: ${answerText(q.answer ?? answer)}\n`);
    });

  interactions
    .command('cancel')
    .description('cancel a pending question (its asker gets CANCELLED)')
    .argument('<id>', 'the question id')
    .option('--reason <text>', 'why, shown with the question')
    .action(async (id: string, o: { reason?: string }, cmd: Command) => {
      const q = await clientOf(cmd).cancel(id, o.reason);
      print(cmd, q, () => `Cancelled ${q.id}${q.cancelReason ? `: ${q.cancelReason}` : ''}\n`);
    });

  interactions
    .command('stream')
    .description('follow the live feed of pending questions until interrupted (Ctrl-C)')
    .action(async (_o, cmd: Command) => {
      const asJson = globals(cmd).json === true;
      // One note per outage on stderr (stdout stays the feed); the SNAPSHOT after it resyncs.
      let down = false;
      const feed = clientOf(cmd).subscribeInbox({
        onReconnect: () => {
          if (!down) io.err('(the feed dropped; reconnecting, a fresh SNAPSHOT follows)\n');
          down = true;
        },
      });
      const stopListening = io.onInterrupt(() => feed.close());
      try {
        for await (const ev of feed) {
          down = false;
          io.out(asJson ? `${JSON.stringify(ev)}\n` : eventLines(ev));
        }
      } finally {
        stopListening();
        feed.close();
      }
    });

  interactions
    .command('ask')
    .description('ask a question and wait for the answer (as an agent would)')
    .argument('<text>', 'what to ask')
    .addOption(
      new Option('--format <format>', 'text, confirm, select, form or external')
        .argParser(parseFormat)
        .default('TEXT'),
    )
    .option('--option <option>', 'a SELECT option (repeat it)', collect)
    .option('--schema <json>', 'FORM (or EXTERNAL) JSON Schema', parseJsonArg('--schema'))
    .option('--link <url>', 'EXTERNAL: the link, holding {callback_url}')
    .option('--timeout <seconds>', 'how long the question stays answerable', parseWhole(1, 31_536_000))
    .option('--group <groupId>', 'a label grouping related questions')
    .option('--audience <id>', 'the principal the question is for')
    .option('--channel <name>', 'a channel that delivers the question')
    .option('--recipient <address>', 'who the channel delivers to')
    .option('--sensitive', 'the answer is shown to the asker only, once')
    .option('--idempotency-key <key>', 'retrying with the same key attaches to the same question')
    .option('--no-wait', 'print the question and return at once')
    .action(async (text: string, o, cmd: Command) => {
      const client = clientOf(cmd);
      const asJson = globals(cmd).json === true;
      const input = {
        text,
        format: o.format as AnswerFormat,
        ...(o.option ? { options: o.option as string[] } : {}),
        ...(o.schema !== undefined ? { schema: o.schema } : {}),
        ...(o.link ? { link: o.link as string } : {}),
        ...(o.timeout ? { timeoutSeconds: o.timeout as number } : {}),
        ...(o.group ? { groupId: o.group as string } : {}),
        ...(o.audience ? { audience: o.audience as string } : {}),
        ...(o.channel ? { channel: o.channel as string } : {}),
        ...(o.recipient ? { recipient: o.recipient as string } : {}),
        ...(o.sensitive ? { sensitive: true } : {}),
        ...(o.idempotencyKey ? { idempotencyKey: o.idempotencyKey as string } : {}),
      } as AskInput;
      const stop = new AbortController();
      let asked: Question | null = null;
      const onAsked = (q: Question, callbackUrl: string | null): void => {
        asked = q;
        if (!o.wait) stop.abort();
        else if (!asJson) {
          io.err(
            `Asked ${q.id}${callbackUrl ? ` (callback URL ${callbackUrl})` : ''}; waiting for an answer.\n`,
          );
        }
      };
      try {
        const answer = await client.askUser(input, { onAsked, signal: stop.signal });
        const q = asked as Question | null;
        print(cmd, { id: q?.id, status: 'ANSWERED', answer }, () => `${answerText(answer)}\n`);
      } catch (err) {
        const q = asked as Question | null;
        if (!stop.signal.aborted || !q) throw err;
        print(cmd, q, () => `${q.id}\n`);
      }
    });

  program
    .command('channels')
    .description('delivery channels')
    .command('list')
    .description('names of the channels the server can deliver questions through')
    .action(async (_o, cmd: Command) => {
      const names = await clientOf(cmd).channels();
      print(cmd, names, () =>
        names.length === 0 ? 'No channels are registered.\n' : `${names.join('\n')}\n`,
      );
    });

  program
    .command('serve')
    .description('run the server (settings from the environment, as `npm start`)')
    .option('--port <port>', 'listen on this port (sets PORT)')
    .option('--host <host>', 'listen on this address (sets HOST)')
    .action(async (o: { port?: string; host?: string }) => {
      await io.serve(o);
    });

  program.addCommand(createMcpCommand(io.env, DEFAULT_URL));
  return program;
}

/** The question, if it can take an answer here; otherwise the error the server would give. */
async function answerable(client: InteractionsClient, id: string): Promise<Question> {
  const q = await requireQuestion(client, id);
  if (q.status === 'ANSWERED') throw new AlreadyAnsweredError('the question was already answered');
  if (q.status !== 'PENDING')
    throw new QuestionClosedError(`the question is ${q.status.toLowerCase().replace('_', ' ')}`);
  if (q.format === 'EXTERNAL') {
    throw new WrongDoorError('an EXTERNAL question is answered through its callback URL, not here');
  }
  return q;
}

/** Runs the CLI on `argv` (without node and the script); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with 0; every other commander error is a usage error,
      // already printed with the usage.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof InteractionsError) {
      io.err(`error: ${err.code}: ${oneLineMessage(err.message)}${err.field ? ` (at ${err.field})` : ''}\n`);
      return 1;
    }
    if (err instanceof Error && err.name === 'ExitPromptError') {
      io.err('error: CANCELLED: the prompt was closed before an answer was given\n');
      return 1;
    }
    io.err(`error: INTERNAL: ${oneLineMessage(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

function oneLineMessage(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

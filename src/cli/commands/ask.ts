// `tai interactions ask <text>`: asks as an agent would and waits for the answer (or, with
// --no-wait, prints the question and returns).
import { Command, Option } from 'commander';
import type { AnswerFormat, AskInput, EscalationStepInput, Question } from '../../client/index.ts';
import type { CommandContext } from '../context.ts';
import { answerText } from '../format.ts';
import {
  collect,
  FORMAT_NEEDS,
  FORMATS,
  parseEscalationStep,
  parseFormat,
  parseJsonArg,
  parseWhole,
} from '../parse.ts';

interface AskOptions {
  format: AnswerFormat;
  option?: string[];
  schema?: unknown;
  action?: unknown;
  link?: string;
  timeout?: number;
  group?: string;
  audience?: string;
  channel?: string;
  recipient?: string;
  sensitive?: boolean;
  idempotencyKey?: string;
  metadata?: unknown;
  notify?: string;
  escalate?: EscalationStepInput[];
  escalationPolicy?: string;
  wait: boolean;
  retryFor: number;
}

/** How long an unreachable server is retried before the ask gives up (once asked, until its deadline). */
const DEFAULT_RETRY_FOR_SECONDS = 10;

/** The SDK's input for the options given (only those given). */
function askInput(text: string, o: AskOptions): AskInput {
  return {
    text,
    format: o.format,
    ...(o.option ? { options: o.option } : {}),
    ...(o.schema !== undefined
      ? o.format === 'APPROVAL'
        ? { argumentsSchema: o.schema }
        : { schema: o.schema }
      : {}),
    ...(o.action !== undefined ? { action: o.action } : {}),
    ...(o.link ? { link: o.link } : {}),
    ...(o.timeout ? { timeoutSeconds: o.timeout } : {}),
    ...(o.group ? { groupId: o.group } : {}),
    ...(o.audience ? { audience: o.audience } : {}),
    ...(o.channel ? { channel: o.channel } : {}),
    ...(o.recipient ? { recipient: o.recipient } : {}),
    ...(o.sensitive ? { sensitive: true } : {}),
    ...(o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {}),
    ...(o.metadata !== undefined ? { metadata: o.metadata } : {}),
    ...(o.notify ? { notify: o.notify } : {}),
    ...(o.escalate ? { escalation: o.escalate } : {}),
    ...(o.escalationPolicy !== undefined ? { escalationPolicy: o.escalationPolicy } : {}),
  } as AskInput;
}

export function askCommand(ctx: CommandContext): Command {
  const { io } = ctx;
  return new Command('ask')
    .description('ask a question and wait for the answer (as an agent would)')
    .argument('<text>', 'what to ask')
    .addOption(
      new Option(
        '--format <format>',
        FORMATS.map((f) => `${f.toLowerCase()} (${FORMAT_NEEDS[f]})`).join(', '),
      )
        .argParser(parseFormat)
        .default('TEXT'),
    )
    .option('--option <option>', 'a SELECT option (repeat it)', collect)
    .option(
      '--schema <json>',
      "FORM (or EXTERNAL) JSON Schema; APPROVAL: the arguments' schema",
      parseJsonArg('--schema'),
    )
    .option(
      '--action <json>',
      'APPROVAL: what you propose, {"name", "arguments", "summary"?, "editable"?}',
      parseJsonArg('--action'),
    )
    .option('--link <url>', 'EXTERNAL: the link, holding {callback_url}')
    .option('--timeout <seconds>', 'how long the question stays answerable', parseWhole(1, 31_536_000))
    .option('--group <groupId>', 'a label grouping related questions')
    .option('--audience <id>', 'the principal the question is for')
    .option('--channel <name>', 'a channel that delivers the question')
    .option('--recipient <address>', 'who the channel delivers to')
    .option('--sensitive', 'the answer is shown to the asker only, once')
    .option('--idempotency-key <key>', 'retrying with the same key attaches to the same question')
    .option(
      '--metadata <json>',
      'a JSON object stored with the question and returned as given',
      parseJsonArg('--metadata'),
    )
    .option('--notify <endpoint>', 'a resume-webhook endpoint (from the manifest) called when it resolves')
    .option(
      '--escalate <step>',
      'a reminder or escalation step while nobody answers (repeat it): <after>:remind or <after>:reroute:<channel>[:<recipient>], e.g. 10m:remind',
      parseEscalationStep,
    )
    .option('--escalation-policy <name>', 'an escalation ladder named in the server manifest')
    .option('--no-wait', 'print the question and return at once')
    .option(
      '--retry-for <seconds>',
      'give up on an unreachable server after this long (0 to 3600; a question already asked is waited for until its deadline)',
      parseWhole(0, 3600),
      DEFAULT_RETRY_FOR_SECONDS,
    )
    .action(async (text: string, o: AskOptions, cmd: Command) => {
      // The SDK reads the action's fields: a missing one is a usage error here, not a crash there.
      if (o.format === 'APPROVAL' && (typeof o.action !== 'object' || o.action === null)) {
        cmd.error('error: --format approval needs --action \'{"name":"…","arguments":{…}}\'', {
          exitCode: 2,
        });
      }
      // Every retry is said on stderr, so a server that is down never looks like a silent hang.
      const client = ctx.clientOf(cmd, {
        retry: { giveUpAfterMs: o.retryFor * 1000 },
        onRetry: (err, delayMs) => {
          const why = err instanceof Error ? err.message : String(err);
          io.err(`(${why}; retrying in ${(delayMs / 1000).toFixed(1)} s)\n`);
        },
      });
      const asJson = ctx.asJson(cmd);
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
        const answer = await client.askUser(askInput(text, o), { onAsked, signal: stop.signal });
        const q = asked as Question | null;
        ctx.print(cmd, { id: q?.id, status: 'ANSWERED', answer }, () => `${answerText(answer)}\n`);
      } catch (err) {
        const q = asked as Question | null;
        if (!stop.signal.aborted || !q) throw err;
        ctx.print(cmd, q, () => `${q.id}\n`);
      }
    });
}

// `tai-interactions hook codex` (API.md §21): Codex's PermissionRequest command hook. Codex's
// hook event arrives on standard input; it is sent unchanged to the server's hook door
// (POST /api/interactions/hooks/codex), which asks an APPROVAL and holds until a decision or
// --wait seconds; Codex's hook output goes to standard output:
//   allowed  → {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}
//   rejected → … {"behavior":"deny","message":"Rejected by <who>: <note>"}
//   no decision yet → nothing (Codex asks as usual)
// It fails closed: a server that cannot be reached, or that refuses the request, is a deny whose
// message says why. Exit codes: 0 whenever Codex's output (or nothing) was printed, deny
// included; 2 for a usage error (a bad flag), with nothing on standard output.
import { Command, InvalidArgumentError } from 'commander';
import type { CommandContext } from '../context.ts';
import { DEFAULT_URL } from '../context.ts';
import { parseUrl } from '../parse.ts';

/** What this command adds to the door's hold before it gives up on the server (then: deny). */
const RESPONSE_MARGIN_MS = 15_000;
const WAIT_DEFAULT = 55;
const WAIT_MAX = 600;

function parseWait(value: string): number {
  const n = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > WAIT_MAX) {
    throw new InvalidArgumentError(`--wait must be a whole number of seconds from 0 to ${WAIT_MAX}.`);
  }
  return n;
}

interface HookOptions {
  wait: number;
  channel?: string;
  recipient?: string;
  audience?: string;
  escalationPolicy?: string;
  timeoutSeconds?: string;
}

/** Codex's deny, with the reason a person reading Codex's transcript needs. */
function deny(message: string): string {
  return `${JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message } },
  })}\n`;
}

function doorUrl(base: string, o: HookOptions): URL {
  const url = new URL('/api/interactions/hooks/codex', base);
  url.searchParams.set('wait', String(o.wait));
  const pairs: [string, string | undefined][] = [
    ['channel', o.channel],
    ['recipient', o.recipient],
    ['audience', o.audience],
    ['escalationPolicy', o.escalationPolicy],
    ['timeoutSeconds', o.timeoutSeconds],
  ];
  for (const [k, v] of pairs) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** The one line a refusal's body gives (REST errors are {"error", "code"}). */
async function refusalOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: unknown; code?: unknown } | null;
  const code = typeof body?.code === 'string' ? body.code : `HTTP ${res.status}`;
  const error = typeof body?.error === 'string' ? `: ${body.error}` : '';
  return `${code}${error}`.replace(/\s+/g, ' ').slice(0, 300);
}

async function runHook(ctx: CommandContext, cmd: Command, o: HookOptions): Promise<void> {
  const g = cmd.optsWithGlobals<{ url?: string; key?: string }>();
  const base = g.url ?? (ctx.io.env.TAI_URL ? parseUrl(ctx.io.env.TAI_URL) : DEFAULT_URL);
  const key = g.key ?? ctx.io.env.TAI_API_KEY;
  const closed = (why: string) => {
    ctx.io.err(`tai-interactions hook codex: ${why}; denied (fail closed)\n`);
    ctx.io.out(deny(`tai-interactions could not ask for approval (${why}), so this is denied.`));
  };
  if (!ctx.io.readStdin) throw new Error('this command reads the hook event on standard input');
  const event = await ctx.io.readStdin();
  let res: Response;
  try {
    res = await fetch(doorUrl(base, o), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: event,
      signal: AbortSignal.timeout(o.wait * 1000 + RESPONSE_MARGIN_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown } }).cause?.code;
    const why = err instanceof Error && err.name === 'TimeoutError' ? 'no response in time' : 'unreachable';
    closed(`the server at ${base} is ${why}${typeof cause === 'string' ? ` (${cause})` : ''}`);
    return;
  }
  if (!res.ok) {
    closed(`the server refused the request: ${await refusalOf(res)}`);
    return;
  }
  const output = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (output === null || typeof output !== 'object') {
    closed('the server answered something that is not JSON');
    return;
  }
  // {} is "no decision yet": print nothing, so Codex asks as usual.
  if (Object.keys(output).length > 0) ctx.io.out(`${JSON.stringify(output)}\n`);
}

export function hookCommand(ctx: CommandContext): Command {
  const codex = new Command('codex')
    .description(
      "Codex's PermissionRequest hook: reads Codex's hook event on stdin, asks for approval, prints Codex's decision (nothing while undecided; a deny when the server cannot be reached)",
    )
    .option('--wait <seconds>', `how long to wait for a decision (0-${WAIT_MAX})`, parseWait, WAIT_DEFAULT)
    .option('--channel <name>', 'ask through this channel')
    .option('--recipient <id>', "the channel's recipient")
    .option('--audience <id>', 'who may answer')
    .option('--escalation-policy <name>', "a named escalation policy of the server's manifest")
    .option('--timeout-seconds <n>', 'how long the question stays answerable')
    .action(async function (this: Command, o: HookOptions) {
      await runHook(ctx, this, o);
    });
  return new Command('hook').description("coding agents' permission hooks (Codex)").addCommand(codex);
}

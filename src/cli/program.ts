// The `tai` command line, on commander, over the SDK (HTTP only): one file per command under
// commands/, joined here. `runCli` never exits the process: it returns the exit code (0 done, 1
// an error, printed as one line `error: <CODE>: <message>`, 2 a usage error), so tests can run
// it in process with their own streams. Only `tai serve` loads the server, and only when it runs.
import { Command, CommanderError } from 'commander';
import { InteractionsError, ReceiptVerificationError } from '../client/index.ts';
import { VERSION } from '../domain/version.ts';
import { answerCommand } from './commands/answer.ts';
import { approvalsCommand } from './commands/approvals.ts';
import { askCommand } from './commands/ask.ts';
import { AuditVerificationError, auditCommand } from './commands/audit.ts';
import { cancelCommand } from './commands/cancel.ts';
import { channelsCommand } from './commands/channels.ts';
import { doctorCommand } from './commands/doctor.ts';
import { hookCommand } from './commands/hook.ts';
import { listCommand } from './commands/list.ts';
import { createMcpCommand } from './commands/mcp.ts';
import { outboxCommand } from './commands/outbox.ts';
import { claimCommand, delegateCommand, linkCommand, quietCommand } from './commands/people.ts';
import { receiptsCommand } from './commands/receipts.ts';
import { serveCommand } from './commands/serve.ts';
import { showCommand } from './commands/show.ts';
import { streamCommand } from './commands/stream.ts';
import { createCommandContext, DEFAULT_URL } from './context.ts';
import type { CliIO } from './io.ts';
import { parseUrl } from './parse.ts';

export { type CliIO, processIO } from './io.ts';

/** The CommanderError code of a command that printed its findings and must exit 1 (doctor). */
export const CHECKS_FAILED = 'tai.checksFailed';
export { DEFAULT_URL };

/** `tai interactions list`: the command's name under its parents. */
function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Commands added with `addCommand` do not inherit settings: give every one the root's, and a
 * one-line usage hint after a usage error instead of the whole help.
 */
function inheritSettings(parent: Command): void {
  for (const child of parent.commands) {
    child.copyInheritedSettings(parent);
    child.showHelpAfterError(`Usage: ${pathOf(child)} ${child.usage()}  (more: ${pathOf(child)} --help)`);
    inheritSettings(child);
  }
}

/** Who may run what (API.md §2), said when the server answers FORBIDDEN. */
const ROLE_NEEDED: Readonly<Record<string, string>> = {
  'tai interactions ask': 'asking needs a key with the agent or admin role',
  'tai interactions answer': 'answering needs a key with the operator or admin role',
  'tai interactions cancel': 'cancelling needs the agent that asked, or the operator or admin role',
  'tai interactions list': 'reading questions needs the agent, operator, auditor or admin role',
  'tai interactions show': 'reading questions needs the agent, operator, auditor or admin role',
  'tai interactions stream': 'the live feed needs the agent, operator or admin role',
  'tai channels list': 'listing channels needs the agent, operator or admin role',
  'tai outbox dead': "the outbox's dead letters need the admin role",
  'tai audit export': 'the audit log needs the auditor or admin role',
  'tai link': 'linking a channel needs a key with the operator or admin role',
};

/** The name the program was started under (`tai-interactions`, or `tai` in an installed package). */
export type ProgramName = 'tai-interactions' | 'tai';

export function buildProgram(io: CliIO, name: ProgramName = 'tai'): Command {
  const ctx = createCommandContext(io);
  const program = new Command(name)
    .description(
      'Run and operate a tai-interactions server: serve it, check a deployment, list, answer and cancel questions, follow the live feed.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError(`(more: ${name} --help)`)
    .configureHelp({ showGlobalOptions: true })
    .option('--url <url>', `server URL (env TAI_URL, default ${DEFAULT_URL})`, parseUrl)
    .option('--key <key>', 'API key (env TAI_API_KEY; prefer the variable: flags show in `ps`)')
    .option('--json', 'print JSON instead of tables');

  const interactions = new Command('interactions')
    .description('questions: list, show, answer, cancel, stream, ask')
    .addCommand(listCommand(ctx))
    .addCommand(showCommand(ctx))
    .addCommand(answerCommand(ctx))
    .addCommand(cancelCommand(ctx))
    .addCommand(claimCommand(ctx))
    .addCommand(streamCommand(ctx))
    .addCommand(askCommand(ctx));
  program
    .addCommand(interactions)
    .addCommand(approvalsCommand(ctx))
    .addCommand(channelsCommand(ctx))
    .addCommand(outboxCommand(ctx))
    .addCommand(receiptsCommand(ctx))
    .addCommand(auditCommand(ctx))
    .addCommand(delegateCommand(ctx))
    .addCommand(quietCommand(ctx))
    .addCommand(linkCommand(ctx))
    .addCommand(serveCommand(ctx));
  program.addCommand(doctorCommand(ctx));
  program.addCommand(hookCommand(ctx));
  program.addCommand(createMcpCommand(io.env, DEFAULT_URL, io.err));
  inheritSettings(program);
  return program;
}

/** Runs the CLI on `argv` (without node and the script); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIO, name: ProgramName = 'tai'): Promise<number> {
  const program = buildProgram(io, name);
  let ran = '';
  program.hook('preAction', (_root, action) => {
    // ROLE_NEEDED names commands as `tai …`, whichever name the program runs under.
    ran = pathOf(action).replace(/^\S+/, 'tai');
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with 0; a command that printed its own verdict (doctor)
      // ends with CHECKS_FAILED; every other commander error is a usage error, already printed
      // with a one-line usage hint.
      if (err.code === CHECKS_FAILED) return 1;
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof InteractionsError) {
      const role = err.code === 'FORBIDDEN' && ROLE_NEEDED[ran] ? ` (${ROLE_NEEDED[ran]})` : '';
      io.err(
        `error: ${err.code}: ${oneLineMessage(err.message)}${err.field ? ` (at ${err.field})` : ''}${role}\n`,
      );
      return 1;
    }
    if (err instanceof AuditVerificationError) {
      io.err(`error: AUDIT_BROKEN: ${oneLineMessage(err.message)}\n`);
      return 1;
    }
    if (err instanceof ReceiptVerificationError) {
      io.err(`error: RECEIPT_${err.reason.toUpperCase()}: ${oneLineMessage(err.message)}\n`);
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

// `tai-interactions doctor`: checks a deployment from this process's environment and working
// directory (the same settings and manifest as `serve` and `npm start`), one line per finding,
// and exits 1 when anything would keep the server from working. Server code loads only here.
import { Command, CommanderError } from 'commander';
import type { CommandContext } from '../context.ts';

const LABEL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

export function doctorCommand(ctx: CommandContext): Command {
  return new Command('doctor')
    .description('check a deployment: Redis, the public URL, channels, keys (exit 1 when something is wrong)')
    .option('--timeout <seconds>', 'bound on each network check', '5')
    .option('--port <port>', "the server's port, when PORT in this environment is not it")
    .action(async function (this: Command, o: { timeout: string; port?: string }) {
      const seconds = Number(o.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 60) {
        this.error(
          `error: --timeout must be a number of seconds from 1 to 60, got ${JSON.stringify(o.timeout)}`,
          {
            exitCode: 2,
          },
        );
      }
      if (o.port !== undefined && !/^\d{1,5}$/.test(o.port)) portError(this, o.port);
      if (o.port !== undefined && (Number(o.port) < 1 || Number(o.port) > 65535)) portError(this, o.port);
      // The port as the server would read it: the settings, the defaulted public URL and the
      // listener check all follow it.
      const env = o.port === undefined ? ctx.io.env : { ...ctx.io.env, PORT: o.port };
      const { runDoctor } = await import('../../app/doctor.ts');
      const findings = await runDoctor(env, process.cwd(), { timeoutMs: seconds * 1000 });
      const failed = findings.filter((f) => f.level === 'fail').length;
      ctx.print(
        this,
        { ok: failed === 0, findings },
        () =>
          findings.map((f) => `${LABEL[f.level]}  ${f.check}: ${f.detail}\n`).join('') +
          (failed === 0 ? 'no problems found\n' : `${failed} problem(s) found\n`),
      );
      // Code 1, the findings already printed (program.ts maps CHECKS_FAILED to exit 1).
      if (failed > 0) throw new CommanderError(1, 'tai.checksFailed', `${failed} problem(s) found`);
    });
}

function portError(command: Command, given: string): never {
  command.error(`error: --port must be a whole number from 1 to 65535, got ${JSON.stringify(given)}`, {
    exitCode: 2,
  });
  throw new Error('unreachable');
}

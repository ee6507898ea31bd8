// `tai audit evidence` saves the evidence bundle (API.md §24): the server writes and signs it
// (its signing key never leaves it), this command only stores the bytes, to a file (written as
// `<file>.part` and renamed once complete, so a cut download never looks whole) or to standard
// output. `tai audit verify <file> --jwks <keys>` checks it.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { errorFromCode } from '../../client/errors.ts';
import type { CommandContext } from '../context.ts';
import { DEFAULT_URL } from '../context.ts';
import { parseUrl } from '../parse.ts';

interface EvidenceOptions {
  since?: string;
  until?: string;
  output?: string;
}

export function evidenceCommand(ctx: CommandContext): Command {
  return new Command('evidence')
    .description(
      'save the signed evidence bundle (a zip: audit export, receipts, keys, rules, controls, signed manifest); needs the auditor or admin role',
    )
    .option('--since <date-time>', 'entries from this moment on (RFC 3339; default: the whole retained log)')
    .option('--until <date-time>', 'entries before this moment (RFC 3339)')
    .option('-o, --output <file>', 'write the zip to this file (default: standard output)')
    .action(async (o: EvidenceOptions, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ url?: string; key?: string }>();
      const url = new URL(
        '/api/interactions/audit/evidence',
        parseUrl(g.url ?? ctx.io.env.TAI_URL ?? DEFAULT_URL),
      );
      if (o.since) url.searchParams.set('since', o.since);
      if (o.until) url.searchParams.set('until', o.until);
      if (!o.output && !ctx.io.outBytes)
        throw new Error('give --output <file>: standard output takes no bytes here');
      const key = g.key ?? ctx.io.env.TAI_API_KEY;
      const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => ({}))) as {
          error?: string;
          code?: string;
          field?: string;
        };
        throw errorFromCode(body.code, body.error ?? `the server answered ${res.status}`, {
          status: res.status,
          ...(body.field ? { field: body.field } : {}),
        });
      }
      const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
      if (!o.output) {
        for await (const chunk of body) await ctx.io.outBytes!(chunk as Uint8Array);
        return;
      }
      const part = `${o.output}.part`;
      try {
        await pipeline(body, createWriteStream(part));
        await rename(part, o.output);
      } catch (err) {
        await rm(part, { force: true });
        throw new Error(`the bundle could not be saved: ${(err as Error).message}`);
      }
      ctx.io.err(`saved ${o.output}\n`);
    });
}

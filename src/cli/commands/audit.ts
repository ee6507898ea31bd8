// `tai audit export` streams the audit log (API.md §17) to standard output as JSON Lines, with
// the receipts of the resolved questions still kept and the signed head last. `tai audit verify`
// checks such a file offline: every hash, the chain, the signed head and the receipts; it names
// the first broken entry and exits 1.
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { AuditVerificationError, type VerifyAuditOptions, verifyAuditExport } from '../../client/audit.ts';
import { errorFromCode } from '../../client/errors.ts';
import { looksLikeZip, verifyEvidenceBundle } from '../../client/evidence.ts';
import type { CommandContext } from '../context.ts';
import { DEFAULT_URL } from '../context.ts';
import { parseUrl } from '../parse.ts';
import { evidenceCommand } from './audit-evidence.ts';

interface ExportOptions {
  since?: string;
  until?: string;
  question?: string;
  receipts?: boolean;
}

interface GlobalOptions {
  url?: string;
  key?: string;
}

/** The file's first bytes: an evidence bundle is a zip, an export is text. */
async function isZip(file: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new Error(`cannot read ${file} (${(err as { code?: string }).code ?? 'unreadable'})`);
  }
  try {
    const head = new Uint8Array(4);
    await handle.read(head, 0, 4, 0);
    return looksLikeZip(head);
  } finally {
    await handle.close();
  }
}

async function keySetOf(jwks: string): Promise<VerifyAuditOptions> {
  if (/^https?:\/\//i.test(jwks)) {
    const url = new URL(parseUrl(jwks));
    if (!url.pathname.endsWith('.json'))
      url.pathname = `${url.pathname.replace(/\/$/, '')}/.well-known/jwks.json`;
    return { jwksUrl: url };
  }
  let text: string;
  try {
    text = await readFile(jwks, 'utf8');
  } catch (err) {
    throw new Error(`cannot read key set ${jwks} (${(err as { code?: string }).code ?? 'unreadable'})`);
  }
  try {
    return { jwks: JSON.parse(text) as VerifyAuditOptions['jwks'] & object };
  } catch {
    throw new Error(`key set ${jwks} is not JSON`);
  }
}

export function auditCommand(ctx: CommandContext): Command {
  const exportCmd = new Command('export')
    .description(
      'write the audit log as JSON Lines (signed head last) to standard output; needs the auditor or admin role',
    )
    .option('--since <date-time>', 'entries from this moment on (RFC 3339)')
    .option('--until <date-time>', 'entries before this moment (RFC 3339)')
    .option('--question <id>', 'the entries of one question only')
    .option('--no-receipts', 'leave out the decision receipts of resolved questions')
    .action(async (o: ExportOptions, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const base = parseUrl(g.url ?? ctx.io.env.TAI_URL ?? DEFAULT_URL);
      const url = new URL('/api/interactions/audit', base);
      if (o.since) url.searchParams.set('since', o.since);
      if (o.until) url.searchParams.set('until', o.until);
      if (o.question) url.searchParams.set('question', o.question);
      if (o.receipts !== false) url.searchParams.set('receipts', 'true');
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
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        ctx.io.out(decoder.decode(value, { stream: true }));
      }
      const rest = decoder.decode();
      if (rest) ctx.io.out(rest);
    });

  const verify = new Command('verify')
    .description(
      'check an audit export or an evidence bundle offline: every hash, the chain, the signed head and the receipts (and a bundle’s signed manifest and every file’s digest)',
    )
    .argument('<file>', 'the export (JSON Lines) or the evidence bundle (.zip)')
    .option(
      '--jwks <file|url>',
      'the key set you obtained yourself: a saved jwks.json, or its URL (default: the server’s; never the bundle’s own copy)',
    )
    .action(async (file: string, o: { jwks?: string }, cmd: Command) => {
      const jwks = o.jwks ?? cmd.optsWithGlobals<GlobalOptions>().url ?? ctx.io.env.TAI_URL ?? DEFAULT_URL;
      const keys = await keySetOf(jwks);
      if (await isZip(file)) {
        const s = await verifyEvidenceBundle(file, keys);
        const head = s.head ? `up to seq ${s.head.seq} (${s.head.hash})` : 'with no entries';
        ctx.print(
          cmd,
          s,
          () =>
            `valid evidence bundle: ${s.files} files, ${s.entries} entries ${head}, ${s.receipts} receipts, ${s.pruned} pruned\n`,
        );
        return;
      }
      const input = createReadStream(file, { encoding: 'utf8' });
      const opened = new Promise<void>((resolve, reject) => {
        input.once('open', () => resolve());
        input.once('error', (err) =>
          reject(new Error(`cannot read ${file} (${(err as { code?: string }).code ?? 'unreadable'})`)),
        );
      });
      await opened;
      const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
      try {
        const s = await verifyAuditExport(lines, keys);
        const head = s.head ? `up to seq ${s.head.seq} (${s.head.hash})` : 'with no entries';
        ctx.print(cmd, s, () => `valid: ${s.count} entries ${head}, ${s.receipts} receipts\n`);
      } finally {
        lines.close();
        input.destroy();
      }
    });

  return new Command('audit')
    .description('the audit log: export it, save an evidence bundle, verify either')
    .addCommand(exportCmd)
    .addCommand(evidenceCommand(ctx))
    .addCommand(verify);
}

export { AuditVerificationError };

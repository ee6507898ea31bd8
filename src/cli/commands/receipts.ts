// `tai receipts verify <receipt>` checks a decision receipt (API.md §16) as a tool would before
// acting — the signature against the server's published keys, the issuer, and with --action
// that exactly this action was approved. The keys come from the server (--url or TAI_URL) or
// from a saved key set (--jwks file), so the check can run with no server at all.
// `tai receipts keygen` prints a fresh key set for INTERACTIONS_RECEIPT_KEYS_FILE.
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { type ReceiptAction, type VerifyReceiptOptions, verifyReceipt } from '../../client/receipts.ts';
import { generateReceiptKey } from '../../proof/receipt-keys.ts';
import type { CommandContext } from '../context.ts';
import { DEFAULT_URL } from '../context.ts';
import { parseUrl } from '../parse.ts';

interface VerifyOptions {
  jwks?: string;
  action?: string;
  question?: string;
  issuer?: string;
}

async function readJson(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} ${path} (${(err as { code?: string }).code ?? 'unreadable'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} ${path} is not JSON`);
  }
}

function actionOf(value: unknown): ReceiptAction {
  const a = value as { name?: unknown; arguments?: unknown } | null;
  if (typeof a?.name !== 'string' || typeof a.arguments !== 'object' || a.arguments === null) {
    throw new Error('--action must hold {"name": "...", "arguments": {...}}');
  }
  return { name: a.name, arguments: a.arguments as Record<string, unknown> };
}

export function receiptsCommand(ctx: CommandContext): Command {
  const verify = new Command('verify')
    .description('check a decision receipt offline: signature, issuer, and the approved action')
    .argument('<receipt>', 'the receipt (a compact JWS)')
    .option('--jwks <file|url>', 'the key set: a saved jwks.json, or its URL (default: the server’s)')
    .option('--action <file>', 'JSON {"name", "arguments"}: refuse unless exactly this was approved')
    .option('--question <id>', 'refuse unless the receipt is about this question')
    .option('--issuer <url>', 'the expected issuer (default: the server URL the keys come from)')
    .action(async (receipt: string, o: VerifyOptions, cmd: Command) => {
      const jws = receipt.trim();
      const opts: VerifyReceiptOptions = {};
      const jwks =
        o.jwks ?? `${cmd.optsWithGlobals<{ url?: string }>().url ?? ctx.io.env.TAI_URL ?? DEFAULT_URL}`;
      if (/^https?:\/\//i.test(jwks)) {
        const url = new URL(parseUrl(jwks));
        if (!url.pathname.endsWith('.json'))
          url.pathname = `${url.pathname.replace(/\/$/, '')}/.well-known/jwks.json`;
        opts.jwksUrl = url;
      } else {
        opts.jwks = (await readJson(jwks, 'key set')) as VerifyReceiptOptions['jwks'] & object;
      }
      if (o.issuer !== undefined) opts.issuer = o.issuer;
      if (o.question !== undefined) opts.questionId = o.question;
      if (o.action !== undefined) opts.action = actionOf(await readJson(o.action, 'action'));
      const claims = await verifyReceipt(jws, opts);
      const by = claims.outcome.answeredBy ? ` by ${claims.outcome.answeredBy}` : '';
      ctx.print(
        cmd,
        claims,
        () => `valid: question ${claims.sub} ${claims.outcome.status}${by} at ${claims.outcome.at}\n`,
      );
    });
  const keygen = new Command('keygen')
    .description(
      'print a new receipt key set (a JWK Set with one Ed25519 private key) for INTERACTIONS_RECEIPT_KEYS_FILE',
    )
    .action(async () => {
      const key = await generateReceiptKey();
      ctx.io.out(`${JSON.stringify({ keys: [key] }, null, 2)}\n`);
    });
  return new Command('receipts')
    .description('decision receipts: verify one, or make a signing key')
    .addCommand(verify)
    .addCommand(keygen);
}

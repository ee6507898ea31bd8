// doctor's check of an e-mail channel: it connects to the SMTP server the channel's URL names,
// greets it and logs in (nodemailer's verify: connect, EHLO, STARTTLS when offered, AUTH), each
// step bounded by doctor's timeout, and says which step failed. No mail is sent. The URL holds
// the password: only its host and port are ever shown, and nodemailer's message is not (it may
// quote the server's reply to the login); its error code and the SMTP reply code are.
import nodemailer from 'nodemailer';

export interface SmtpCheck {
  ok: boolean;
  detail: string;
}

/** Why a verify failed, in words, from nodemailer's code and the server's reply code. */
function why(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; command?: string };
  const reply = e.responseCode ? ` (SMTP ${e.responseCode})` : '';
  switch (e.code) {
    case 'EAUTH':
      return `the login was refused${reply}`;
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'ECONNREFUSED':
      return `cannot connect${reply}`;
    case 'ETIMEDOUT':
      return 'no answer in time';
    case 'EDNS':
      return 'the host name does not resolve';
    case 'ETLS':
      return `TLS failed${reply}`;
    default:
      return `${e.code ?? 'failed'}${reply}`;
  }
}

/** The socket's own code (ECONNREFUSED, …) when nodemailer wraps it. */
function socketCode(err: unknown): string | null {
  const message = err instanceof Error ? err.message : '';
  return /\b(E[A-Z]{3,})\b/.exec(message)?.[1] ?? null;
}

export async function checkSmtp(url: string, timeoutMs: number): Promise<SmtpCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, detail: 'the SMTP URL is not a URL' };
  }
  const secure = parsed.protocol === 'smtps:';
  const where = `${parsed.hostname}:${parsed.port || (secure ? '465' : '587')}`;
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  try {
    await transport.verify();
    return { ok: true, detail: `SMTP at ${where} answers and accepts the login` };
  } catch (err) {
    const code = socketCode(err);
    const reason = why(err);
    return {
      ok: false,
      detail: `SMTP at ${where}: ${reason}${code && !reason.includes(code) ? ` (${code})` : ''}`,
    };
  } finally {
    transport.close();
  }
}

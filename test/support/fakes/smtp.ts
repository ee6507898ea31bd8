// A real SMTP server on loopback (smtp-server) that takes mail for any recipient after checking
// the login, and parses every message with a real parser (mailparser), as a mail client would.
// Waiters are registered before mail arrives, so tests await a message instead of polling.

import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO), as the server saw them. */
  to: string[];
  from: string;
  parsed: ParsedMail;
  raw: Buffer;
}

export interface FakeSmtp {
  /** `smtp://user:pass@127.0.0.1:<port>` for the channel's `smtpUrlEnv`. */
  url: string;
  mails: ReceivedMail[];
  sessions(): number;
  waitFor(pred: (m: ReceivedMail) => boolean): Promise<ReceivedMail>;
  /** The next message is refused with this SMTP reply code. */
  refuseNext(code: number): void;
  close(): Promise<void>;
}

export async function startFakeSmtp(user: string, pass: string): Promise<FakeSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters: { pred: (m: ReceivedMail) => boolean; resolve(m: ReceivedMail): void }[] = [];
  let refusal: number | null = null;
  let sessions = 0;
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to make; the login is still checked.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onConnect(_session, callback) {
      sessions++;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusal !== null) {
          const err = Object.assign(new Error('refused by the test'), { responseCode: refusal });
          refusal = null;
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            const mail: ReceivedMail = {
              to: session.envelope.rcptTo.map((r) => r.address),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              parsed,
              raw,
            };
            mails.push(mail);
            for (const w of [...waiters]) {
              if (w.pred(mail)) {
                waiters.splice(waiters.indexOf(w), 1);
                w.resolve(mail);
              }
            }
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    mails,
    sessions: () => sessions,
    waitFor(pred) {
      const found = mails.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    refuseNext(code) {
      refusal = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';

/**
 * A local SMTP capture (dev and tests only; nothing under src/ imports it): it accepts every
 * message, with or without any login, keeps it in memory for tests and writes it as an .eml file
 * a developer can open in any mail program.
 */

export const DEFAULT_MAIL_DIR = resolve(import.meta.dirname, '../../reports/mail');

export interface CapturedAttachment {
  filename: string | undefined;
  contentType: string;
  /** The Content-ID without angle brackets, as the HTML's cid: reference names it. */
  cid: string | undefined;
  content: Buffer;
}

export interface CapturedMessage {
  /** The SMTP envelope: MAIL FROM and every RCPT TO. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** With its cid: references kept as sent. */
  html: string;
  attachments: CapturedAttachment[];
  /** The message as received (RFC 5322). */
  raw: string;
  /** The .eml file it was written to. */
  file: string;
}

export interface SmtpStandIn {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  port: number;
  /** Every message received, in order. */
  messages: CapturedMessage[];
  /** The first message (already received or still to come) that matches; rejects after timeoutMs. */
  waitFor(predicate: (message: CapturedMessage) => boolean, timeoutMs?: number): Promise<CapturedMessage>;
  close(): Promise<void>;
}

export interface SmtpStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where the .eml files go: reports/mail/ by default. */
  dir?: string;
  /** Called with each message once captured. */
  onMessage?: (message: CapturedMessage) => void;
}

export async function startSmtpStandIn(options: SmtpStandInOptions = {}): Promise<SmtpStandIn> {
  const dir = options.dir ?? DEFAULT_MAIL_DIR;
  await mkdir(dir, { recursive: true });
  const messages: CapturedMessage[] = [];
  const waiters = new Set<(message: CapturedMessage) => void>();

  const server = new SMTPServer({
    // Plain text on loopback: no certificate to make, and any login is fine.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        void capture(raw, session.envelope).then(() => callback(), callback);
      });
    },
  });

  async function capture(raw: Buffer, envelope: SMTPServerEnvelope) {
    const parsed = await simpleParser(raw, { keepCidLinks: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(dir, `${stamp}-${randomBytes(3).toString('hex')}.eml`);
    await writeFile(file, raw);
    const message: CapturedMessage = {
      from: envelope.mailFrom ? envelope.mailFrom.address : '',
      to: envelope.rcptTo.map((r) => r.address),
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : '',
      attachments: parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, cid: a.cid, content: a.content })),
      raw: raw.toString('utf8'),
      file,
    };
    messages.push(message);
    options.onMessage?.(message);
    for (const waiter of waiters) waiter(message);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  // A client that drops its connection is the client's problem, not a reason to stop capturing.
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(predicate, timeoutMs = 10_000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolveWait, reject) => {
        const waiter = (message: CapturedMessage) => {
          if (!predicate(message)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolveWait(message);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`SMTP stand-in: no matching message within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}

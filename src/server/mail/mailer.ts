import { createTransport } from 'nodemailer';
import type { Mailer } from './mailer.types.ts';

/**
 * Sends e-mail over SMTP (nodemailer). MAIL_FROM: 'Shop name <orders@example.com>'. SMTP_URL, with
 * the relay's login in it (user name and password percent-encoded):
 * - smtps://user:pass@host (port 465 unless given): implicit TLS (RFC 8314);
 * - smtp://user:pass@host:587?tls=required: STARTTLS (RFC 3207), required: a relay that does not
 *   offer it, or a connection that loses it on the way, gets nothing, not even the login;
 * - smtp://127.0.0.1:<port> (or localhost, [::1]): plain text, only to this machine (the SMTP
 *   stand-in, stand-ins/smtp/). A plain smtp:// URL to any other host is refused.
 * Away from this machine the URL must carry a login: the relay takes mail only from its users.
 * Certificates are checked against the system's roots (or `ca`, which only the tests set).
 */

/**
 * A failed send. Its text names the call, the server (without credentials) and the SMTP error,
 * and never the message: an order e-mail carries the activation code, which must not reach logs.
 */
export class MailError extends Error {
  override name = 'MailError';
  /** nodemailer's code: ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE, ... */
  readonly code: string | undefined;
  /** The SMTP reply code, when the server answered. */
  readonly responseCode: number | undefined;
  constructor(message: string, code: string | undefined, responseCode: number | undefined) {
    super(message);
    this.code = code;
    this.responseCode = responseCode;
  }
}

// Anything that looks like an LPA string is cut out of an error's text, whatever the server echoed.
const redact = (text: string) => text.replace(/LPA:1\$\S*/gi, 'LPA:1$[redacted]');

/** This machine: where the SMTP stand-in listens, the only place mail may go in plain text. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface MailerOptions {
  smtpUrl: string;
  from: string;
  /** Tests only: the certificate (PEM) to trust instead of the system's roots, e.g. the stand-in's self-signed one. */
  ca?: string | undefined;
}

export function createMailer({ smtpUrl, from, ca }: MailerOptions): Mailer {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    // Not the URL itself: it may carry the password.
    throw new Error('SMTP_URL is not a URL (smtps://user:password@host, docs/going-live.md)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtps:// or smtp://, not ${url.protocol}//`);
  if (!from.trim()) throw new Error('MAIL_FROM is empty');
  const secure = url.protocol === 'smtps:';
  if ([...url.searchParams.keys()].some((name) => name !== 'tls') || url.searchParams.getAll('tls').some((value) => value !== 'required')) {
    throw new Error('SMTP_URL takes one option, ?tls=required (STARTTLS), and no other');
  }
  const startTls = url.searchParams.get('tls') === 'required';
  const port = Number(url.port || (secure ? 465 : 587));
  const server = `${url.protocol}//${url.hostname}:${port}`;
  const local = LOOPBACK.has(url.hostname.toLowerCase());
  if (!local && !secure && !startTls) {
    throw new Error(
      `SMTP_URL: no plain text to ${url.hostname}: use smtps://${url.hostname} (implicit TLS, port 465) or smtp://${url.hostname}:587?tls=required (STARTTLS); plain smtp:// is only for 127.0.0.1 or localhost`,
    );
  }
  if (!local && !url.username) throw new Error(`SMTP_URL: the relay ${url.hostname} needs a login: smtps://user:password@${url.hostname}`);
  const transport = createTransport({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    secure,
    // STARTTLS or nothing: nodemailer sends no MAIL, and no login, unless the upgrade succeeded.
    ...(startTls && { requireTLS: true }),
    ...(ca !== undefined && { tls: { ca } }),
    ...(url.username && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    // A down mail server fails the send within seconds instead of holding the caller.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });

  return {
    async send(message) {
      try {
        const info = await transport.sendMail({
          from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          attachments: message.attachments.map(({ filename, content, contentType, cid }) => ({ filename, content, contentType, cid })),
          ...(message.headers && { headers: message.headers }),
        });
        return { messageId: info.messageId };
      } catch (error) {
        const { code, responseCode, message: reason } = error as { code?: string; responseCode?: number; message?: string };
        throw new MailError(
          redact(
            `mailer.send via ${server} failed${code ? ` (${code}${responseCode ? ` ${responseCode}` : ''})` : ''}: ${reason ?? String(error)}`,
          ),
          code,
          responseCode,
        );
      }
    },
    close() {
      transport.close();
    },
  };
}

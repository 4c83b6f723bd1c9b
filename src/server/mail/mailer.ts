import { createTransport } from 'nodemailer';
import type { Email } from './order-email.ts';

/**
 * Sends e-mail over SMTP (nodemailer). SMTP_URL: smtp://user:pass@host:587 (STARTTLS when the
 * server offers it) or smtps://user:pass@host:465; MAIL_FROM: 'Shop name <orders@example.com>'.
 * Locally and in tests the URL points at the SMTP stand-in (stand-ins/smtp/).
 */

export interface MailMessage extends Email {
  to: string;
}

export interface Mailer {
  /** Resolves with the Message-ID once the SMTP server has accepted the message. */
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

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

export function createMailer({ smtpUrl, from }: { smtpUrl: string; from: string }): Mailer {
  const url = new URL(smtpUrl);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtp:// or smtps://, not ${url.protocol}//`);
  if (!from.trim()) throw new Error('MAIL_FROM is empty');
  const secure = url.protocol === 'smtps:';
  const port = Number(url.port || (secure ? 465 : 587));
  const server = `${url.protocol}//${url.hostname}:${port}`;
  const transport = createTransport({
    host: url.hostname,
    port,
    secure,
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
        });
        return { messageId: info.messageId };
      } catch (error) {
        const { code, responseCode, message: reason } = error as { code?: string; responseCode?: number; message?: string };
        throw new MailError(
          redact(`mailer.send via ${server} failed${code ? ` (${code}${responseCode ? ` ${responseCode}` : ''})` : ''}: ${reason ?? String(error)}`),
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

import type { Email } from './render.ts';

/** The shop's mailer, whoever sends (mailer.ts: over SMTP; the tests' own in memory). */
export interface MailMessage extends Email {
  to: string;
}

export interface Mailer {
  /** Resolves with the Message-ID once the SMTP server has accepted the message. */
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

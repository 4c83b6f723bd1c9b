import type { Db, Queryable } from '../db/db.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import type { Email } from '../mail/render.ts';

/** Tries before an e-mail is left unsent (the last about four hours after the first): the request is in the back office either way. */
const MAX_ATTEMPTS = 8;

interface SupportEmailRow {
  id: number;
  what: string;
  to_address: string;
  email: Email;
  attempts: number;
}

/** The wait before the try after `attempts` (a column) tries: a minute, doubling. */
const backoff = (attempts: string) => `interval '1 minute' * power(2, least(${attempts}, ${MAX_ATTEMPTS}))`;

/** Sends a queued e-mail now; one the relay turns away stays for the reconcile job. Never throws for the mail relay. */
export async function sendQueued(db: Db, mailer: Mailer, row: SupportEmailRow): Promise<boolean> {
  try {
    await mailer.send({ to: row.to_address, ...row.email });
    await db.query('UPDATE support_emails SET sent_at = now(), last_error = NULL WHERE id = $1', [row.id]);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`support: the ${row.what} e-mail could not be sent (try ${row.attempts}); the reconcile job tries again:`, message);
    await db.query('UPDATE support_emails SET last_error = $2 WHERE id = $1', [row.id, message.slice(0, 500)]);
    return false;
  }
}

interface NewSupportEmail {
  requestId: string;
  what: string;
  to: string;
  /** Support's e-mails carry no attachments (the row keeps the rendered e-mail as JSON). */
  email: Email;
}

/**
 * Writes a support e-mail in the caller's transaction (with what it tells, so both or neither are
 * kept), claimed by its writer: the first try counted, the job's next one a minute away.
 */
export async function queueSupportEmail(tx: Queryable, input: NewSupportEmail): Promise<SupportEmailRow> {
  const [row] = await tx.query<SupportEmailRow>(
    `INSERT INTO support_emails (request_id, what, to_address, email, attempts, next_attempt_at)
     VALUES ($1, $2, $3, $4::jsonb, 1, now() + interval '1 minute') RETURNING id, what, to_address, email, attempts`,
    [input.requestId, input.what, input.to, JSON.stringify(input.email)],
  );
  return row!;
}

/** Writes a support e-mail and sends it at once (queueSupportEmail, then sendQueued). */
export async function sendSupportEmail(db: Db, mailer: Mailer, input: NewSupportEmail): Promise<void> {
  await sendQueued(db, mailer, await queueSupportEmail(db, input));
}

/** The reconcile job's part: support e-mails due again, each claimed before it is sent. Answers how many were sent. */
export async function sendDueSupportEmails(db: Db, mailer: Mailer, limit = 20): Promise<number> {
  const due = await db.query<SupportEmailRow>(
    `WITH due AS (
       SELECT id FROM support_emails
       WHERE sent_at IS NULL AND next_attempt_at <= now() AND attempts < ${MAX_ATTEMPTS}
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE support_emails e SET attempts = e.attempts + 1, next_attempt_at = now() + ${backoff('e.attempts')}
     FROM due WHERE e.id = due.id
     RETURNING e.id, e.what, e.to_address, e.email, e.attempts`,
    [limit],
  );
  let sent = 0;
  for (const row of due) if (await sendQueued(db, mailer, row)) sent++;
  return sent;
}

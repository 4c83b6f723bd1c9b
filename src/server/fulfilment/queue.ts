import type { Queryable } from '../db/db.types.ts';
import { orderJobKey } from '../jobs/order-jobs.ts';
import { resetAttempts } from '../jobs/queue.ts';

/**
 * The fulfilment's SQL beside the order's state (orders/store.ts moves the state itself): the
 * order's job queued in the transaction that makes it due (jobs/queue.ts), the e-mail outbox
 * (migration 0035).
 */

/** The tries ran out: the count starts again for the refund, which is due at once. */
export async function giveUp(tx: Queryable, id: string, error: string): Promise<void> {
  await resetAttempts(tx, orderJobKey(id), error);
}

export type OutboxKind = 'order' | 'refund';

/**
 * Before the move to refunded: the refund e-mail is owed, unless one went already (a refund that
 * failed late and was asked again). An eSIM refunded before its own e-mail went (a process stopped
 * between its delivery and the e-mail) is not e-mailed any more: the refund e-mail is the one it gets.
 */
export async function oweRefundEmail(tx: Queryable, id: string): Promise<void> {
  await tx.query(`INSERT INTO email_outbox (order_id, kind) VALUES ($1, 'refund') ON CONFLICT DO NOTHING`, [id]);
  await tx.query(`DELETE FROM email_outbox WHERE order_id = $1 AND kind = 'order' AND sent_at IS NULL`, [id]);
}

/** The e-mail of this kind is owed and not sent yet. */
export async function emailOwed(tx: Queryable, id: string, kind: OutboxKind): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM email_outbox WHERE order_id = $1 AND kind = $2 AND sent_at IS NULL', [id, kind]);
  return rows.length > 0;
}

/** The e-mail of this kind went (or there was nobody to write to). */
export async function emailSent(tx: Queryable, id: string, kind: OutboxKind): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM email_outbox WHERE order_id = $1 AND kind = $2 AND sent_at IS NOT NULL', [id, kind]);
  return rows.length > 0;
}

/**
 * Records an e-mail as sent: once per kind and order (order_emails: the audit counts them); no
 * message kind: nobody to write to.
 */
export async function markEmailSent(
  tx: Queryable,
  id: string,
  outbox: OutboxKind,
  kind: 'order' | 'top_up' | 'refund' | undefined,
): Promise<void> {
  await tx.query(
    `INSERT INTO email_outbox (order_id, kind, sent_at) VALUES ($1, $2, now())
     ON CONFLICT (order_id, kind) DO UPDATE SET sent_at = coalesce(email_outbox.sent_at, now())`,
    [id, outbox],
  );
  if (kind) await tx.query('INSERT INTO order_emails (order_id, kind) VALUES ($1, $2)', [id, kind]);
}

import type { Queryable } from '../db/db.types.ts';
import { queueOrder } from '../jobs/order-jobs.ts';
import type { RefundReason } from './refund-command.types.ts';

/**
 * Why an order is refunded as a whole (order_refund_reasons, migration 0045): the refund e-mail's
 * wording and the audit's. The only writer of that table; its refunds are rows of their own (store.ts).
 */

/** The reason of `o` (an order) as the column refund_reason, for a SELECT beside `o.*`. */
export const REFUND_REASON_COLUMN = '(SELECT r.reason FROM order_refund_reasons r WHERE r.order_id = o.id) AS refund_reason';

/** Why the order is refunded; null: it is not refunded after all (the reason goes). */
export async function setRefundReason(tx: Queryable, orderId: string, reason: RefundReason | null): Promise<void> {
  // The order's row first, as an UPDATE of it took before 0045: one order of locks with its job's (jobs/order-jobs.ts).
  await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR NO KEY UPDATE', [orderId]);
  if (reason === null) await tx.query('DELETE FROM order_refund_reasons WHERE order_id = $1', [orderId]);
  else
    await tx.query(
      `INSERT INTO order_refund_reasons (order_id, reason) VALUES ($1, $2)
       ON CONFLICT (order_id) DO UPDATE SET reason = EXCLUDED.reason, set_at = now()`,
      [orderId, reason],
    );
}

/** The order is to be refunded as a whole (the refund command): the reason, and its job with a fresh count of tries, due at once. */
export async function refundRequested(tx: Queryable, orderId: string, reason: RefundReason): Promise<void> {
  await queueOrder(tx, orderId, 'refund', true);
  await setRefundReason(tx, orderId, reason);
}

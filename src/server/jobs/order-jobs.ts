import type { OrderState } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { addJob, type JobKind } from './queue.ts';

/**
 * An order's job (jobs/queue.ts): one pending job per order (its key), so one worker moves an
 * order at a time; its kind says what the order's state has left to do. Queued by the transaction
 * that moves the order (orders/store.ts moveOrder), a refund of it (refunds/refund-command.ts) or an
 * admin's decision; run by the fulfilment (fulfilment/fulfilment.ts).
 */
export const orderJobKey = (orderId: string) => `order:${orderId}`;

/** The kinds of an order's job. */
export const ORDER_JOB_KINDS = ['deliver', 'refund', 'email'] as const satisfies readonly JobKind[];

/** What an order in this state has left to do, if anything: its job's kind. */
export function jobKindOf(state: OrderState): JobKind | undefined {
  switch (state) {
    case 'paid':
    case 'provisioning':
      return 'deliver';
    case 'fulfilment_failed':
    case 'refund_requested':
      return 'refund';
    case 'delivered':
    case 'refunded':
      return 'email';
    default:
      return undefined;
  }
}

/** Queues the order's job in the caller's transaction, due now; `resetAttempts`: with a fresh count of tries. */
export async function queueOrder(tx: Queryable, id: string, kind: JobKind, resetAttempts = false): Promise<void> {
  // The order's row before its job's, as a worker's fenced write takes them (fulfilment/lease.ts):
  // one order of locks everywhere, so two transactions never wait on each other.
  await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [id]);
  await addJob(tx, { kind, key: orderJobKey(id), orderId: id, resetAttempts });
}

/**
 * In the transaction of an order's move: its job when the new state has work left, and its order
 * e-mail owed on delivery (the e-mail outbox, migration 0035; once: a row owed or sent stays as it is).
 */
export async function queueAfterMove(tx: Queryable, id: string, to: OrderState): Promise<void> {
  const kind = jobKindOf(to);
  if (kind) await queueOrder(tx, id, kind);
  if (to === 'delivered') await tx.query(`INSERT INTO email_outbox (order_id, kind) VALUES ($1, 'order') ON CONFLICT DO NOTHING`, [id]);
}

import type { Db, Queryable } from '../db/db.ts';
import type { OrderRow } from '../orders/store.types.ts';

/**
 * The fulfilment's SQL, one function a statement: the queue of orders (which are due, a worker's
 * fenced claim on one, when it is tried next) and the order columns the state machine sets beside
 * its state (orders/store.ts moves the state itself). Claims are taken and checked by lease.ts.
 */

/** A worker's claim: the order and the lease number its claim took. */
export interface Claim {
  id: string;
  lease: number;
}

/**
 * Every order with work left (paid but not delivered, owed a refund or an e-mail) whose time has
 * come and that nobody holds, oldest attempt first. Two branches, each on its own partial index
 * (orders_to_reconcile, refunds_open): one WHERE with an EXISTS in an OR matched no index and read
 * every order on every tick of every instance. The planner pushes the time conditions into both.
 */
export const DUE_ORDERS_SQL = `SELECT id FROM (
    SELECT id, next_attempt_at, locked_until FROM orders
    WHERE state IN ('provisioning', 'fulfilment_failed', 'refund_requested')
       -- One held for an admin's decision (fraud/holds.ts) is not due: it never holds up the others.
       OR (state = 'paid' AND NOT EXISTS (SELECT 1 FROM order_holds h WHERE h.order_id = orders.id AND h.hold <> 'approved'))
       OR (state = 'delivered' AND email_sent_at IS NULL)
       OR (state = 'refunded' AND refund_reason IS NOT NULL AND email_sent_at IS NULL)
    UNION
    -- A refund of it to ask Stripe for, settle or ask again (an operator's, part of the payment).
    SELECT o.id, o.next_attempt_at, o.locked_until FROM refunds r JOIN orders o ON o.id = r.order_id
    WHERE r.status IN ('requested', 'pending', 'failed')
  ) due
  WHERE (next_attempt_at IS NULL OR next_attempt_at <= now())
    AND (locked_until IS NULL OR locked_until < now())
  ORDER BY next_attempt_at NULLS FIRST LIMIT $1`;

export async function due(db: Db, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(DUE_ORDERS_SQL, [limit]);
  return rows.map((row) => row.id);
}

/** Takes the order for `leaseMs` with the next lease number, unless another worker holds it. */
export async function claim(db: Db, id: string, leaseMs: number): Promise<OrderRow | undefined> {
  const [order] = await db.query<OrderRow>(
    `UPDATE orders SET locked_until = now() + $2 * interval '1 millisecond', lease = lease + 1
     WHERE id = $1 AND (locked_until IS NULL OR locked_until < now()) RETURNING *`,
    [id, leaseMs],
  );
  return order;
}

/** Holds the order `leaseMs` longer; false when another claim took it meanwhile. */
export async function renew(db: Db, claim: Claim, leaseMs: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE orders SET locked_until = now() + $3 * interval '1 millisecond' WHERE id = $1 AND lease = $2 RETURNING id`,
    [claim.id, claim.lease, leaseMs],
  );
  return rows.length > 0;
}

/** The lease number of the order's latest claim; in a transaction, with its row locked until the end. */
export async function currentLease(tx: Queryable, id: string, lockRow: boolean): Promise<number | undefined> {
  const [row] = await tx.query<{ lease: string | number }>(`SELECT lease FROM orders WHERE id = $1${lockRow ? ' FOR UPDATE' : ''}`, [id]);
  return row ? Number(row.lease) : undefined;
}

/** When the order is tried next, given as its claim is released. */
export type NextTry =
  /** Nothing left to do: due again only when something changes it. */
  | { kind: 'done' }
  /** Its schedule as it stands (another worker took over, or the run moved it on itself). */
  | { kind: 'unchanged' }
  /** Look again after a wait that is no failure (the partner allocating, a refund pending). */
  | { kind: 'look_again'; inMs: number }
  /** A try failed: counted, with its error, and tried again after the wait. */
  | { kind: 'retry'; attempts: number; error: string; inMs: number };

/** Gives the order up with its next try; nothing when the claim was lost. */
export async function release(db: Db, claim: Claim, next: NextTry): Promise<void> {
  const holds = 'WHERE id = $1 AND lease = $2';
  switch (next.kind) {
    case 'done':
      await db.query(`UPDATE orders SET locked_until = NULL, next_attempt_at = NULL, attempts = 0 ${holds}`, [claim.id, claim.lease]);
      return;
    case 'unchanged':
      await db.query(`UPDATE orders SET locked_until = NULL ${holds}`, [claim.id, claim.lease]);
      return;
    case 'look_again':
      await db.query(`UPDATE orders SET locked_until = NULL, next_attempt_at = now() + $3 * interval '1 millisecond' ${holds}`, [
        claim.id,
        claim.lease,
        next.inMs,
      ]);
      return;
    case 'retry':
      await db.query(
        `UPDATE orders SET locked_until = NULL, attempts = $3, last_error = $4, next_attempt_at = now() + $5 * interval '1 millisecond'
         ${holds}`,
        [claim.id, claim.lease, next.attempts, next.error, next.inMs],
      );
      return;
  }
}

/** The tries ran out: the count starts again for the refund, which is due at once. */
export async function giveUp(tx: Queryable, id: string, error: string): Promise<void> {
  await tx.query('UPDATE orders SET attempts = 0, last_error = $2, next_attempt_at = NULL WHERE id = $1', [id, error]);
}

/** The order is to be refunded as a whole (the refund command): the reason, with a fresh count of tries, due at once. */
export async function refundRequested(tx: Queryable, id: string, reason: NonNullable<OrderRow['refund_reason']>): Promise<void> {
  await tx.query('UPDATE orders SET refund_reason = $2, attempts = 0, next_attempt_at = NULL WHERE id = $1', [id, reason]);
}

/** Due at once (a refund of it to ask Stripe for). */
export async function dueNow(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE orders SET next_attempt_at = NULL WHERE id = $1', [id]);
}

/** Why the order is refunded (the refund e-mail and the audit tell it); null: it is not refunded after all. */
export async function setRefundReason(tx: Queryable, id: string, reason: OrderRow['refund_reason']): Promise<void> {
  await tx.query('UPDATE orders SET refund_reason = $2 WHERE id = $1', [id, reason]);
}

/** The partner's order for ours (updated_at: when it was placed, which the allocation's time limit counts from). */
export async function setPartnerOrder(tx: Queryable, id: string, partnerOrderNo: string): Promise<void> {
  await tx.query('UPDATE orders SET partner_order_no = $2, updated_at = now() WHERE id = $1', [id, partnerOrderNo]);
}

/**
 * Before the move to refunded: the refund e-mail is owed, unless one went already (a refund that
 * failed late and was asked again).
 */
export async function oweRefundEmail(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `UPDATE orders
     SET email_sent_at = CASE WHEN EXISTS (SELECT 1 FROM order_emails WHERE order_id = $1 AND kind = 'refund') THEN email_sent_at END
     WHERE id = $1`,
    [id],
  );
}

/** Records an e-mail as sent: once per kind and order (the audit counts them); no kind: nobody to write to. */
export async function markEmailSent(tx: Queryable, id: string, kind: 'order' | 'top_up' | 'refund' | undefined): Promise<void> {
  await tx.query('UPDATE orders SET email_sent_at = now() WHERE id = $1', [id]);
  if (kind) await tx.query('INSERT INTO order_emails (order_id, kind) VALUES ($1, $2)', [id, kind]);
}

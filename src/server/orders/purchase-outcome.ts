import type { Queryable } from '../db/db.types.ts';

/**
 * One outcome per purchase (issue 46 item 1, DESIGN 9): a paid eSIM order ends kept (no row; an
 * operator may still refund parts of it, never beyond what was paid), refunded, replaced or
 * exchanged, never two. This is the one place that decides it: every path asks `decideOutcome` in
 * the transaction that acts on the decision (the refund command for the buyer's, the operator's,
 * the exchange's and the shop's own refunds; the replacement when it is opened), under the order's
 * row lock, so two asked at the same moment are decided one after the other.
 */
export type PurchaseOutcome = 'refunded' | 'replaced' | 'exchanged';

export interface OutcomeRequest {
  orderId: string;
  outcome: PurchaseOutcome;
  askedBy: 'buyer' | 'operator' | 'system';
  operatorUid?: string | undefined;
  /** The replacement's order, or the exchange's new order. */
  byOrderId?: string | undefined;
  /** Why, in the order's timeline. */
  cause: string;
}

interface OutcomeRow {
  outcome: PurchaseOutcome;
  by_order_id: string | null;
  asked_by: OutcomeRequest['askedBy'];
}

/** The purchase's outcome so far, its order row locked until the caller's transaction ends (undefined: kept). */
export async function lockedOutcome(tx: Queryable, orderId: string): Promise<OutcomeRow | undefined> {
  await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [orderId]);
  const [row] = await tx.query<OutcomeRow>(
    'SELECT outcome, by_order_id, asked_by FROM purchase_outcomes WHERE order_id = $1 AND voided_at IS NULL',
    [orderId],
  );
  return row;
}

/** Undoes the purchase's outcome, when it is one of `outcomes` and not an operator's; answers it. */
async function voided(tx: Queryable, orderId: string, outcomes: PurchaseOutcome[], cause: string): Promise<PurchaseOutcome | undefined> {
  const [row] = await tx.query<{ outcome: PurchaseOutcome }>(
    `UPDATE purchase_outcomes SET voided_at = now(), void_cause = $3
     WHERE order_id = $1 AND voided_at IS NULL AND outcome = ANY($2::text[]) AND asked_by <> 'operator' RETURNING outcome`,
    [orderId, outcomes, cause],
  );
  return row?.outcome;
}

/**
 * Decides the purchase's outcome, or answers the one it has already when that differs (nothing
 * written). The same outcome asked again for the same order (a double click, a retried job) is
 * the same decision. A replacement that could not be delivered turns 'replaced' into 'refunded'
 * (the shop's refund of the original instead), the one change an outcome allows. Each decision is
 * a row (who asked, why, when), which the order's timeline shows (ops/timeline.ts).
 */
export async function decideOutcome(
  tx: Queryable,
  request: OutcomeRequest,
): Promise<{ decided: true } | { decided: false; outcome: PurchaseOutcome }> {
  const existing = await lockedOutcome(tx, request.orderId);
  if (existing) {
    const same = existing.outcome === request.outcome && (request.byOrderId === undefined || request.byOrderId === existing.by_order_id);
    if (same) return { decided: true };
    const replacementFailed = existing.outcome === 'replaced' && request.outcome === 'refunded' && request.askedBy === 'system';
    if (!replacementFailed) return { decided: false, outcome: existing.outcome };
    await voided(tx, request.orderId, ['replaced'], request.cause);
  }
  await tx.query(
    `INSERT INTO purchase_outcomes (order_id, outcome, by_order_id, asked_by, operator_uid, cause) VALUES ($1, $2, $3, $4, $5, $6)`,
    [request.orderId, request.outcome, request.byOrderId ?? null, request.askedBy, request.operatorUid ?? null, request.cause],
  );
  return { decided: true };
}

/**
 * The undo beside the decision: a refund made void before Stripe was asked (the eSIM was installed
 * meanwhile, terms) leaves the purchase kept again. An operator's refund stands, and its outcome with it.
 */
export async function voidOutcome(tx: Queryable, orderId: string, cause: string): Promise<void> {
  await voided(tx, orderId, ['refunded', 'exchanged'], cause);
}

import { randomUUID } from 'node:crypto';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { decideOutcome, lockedOutcome } from '../orders/purchase-outcome.ts';
import type { RefundStatus } from '../payments/stripe.ts';
import { RefundRefused, type RefundRequest, type RefundRow, type RefundRowStatus } from './refund-command.types.ts';

/** Statuses with work left: Stripe not asked (or its answer unknown), not settled yet, or failed and to be asked again. */
export const OPEN_STATUSES: readonly RefundRowStatus[] = ['requested', 'pending', 'failed'];

/** The order's paid payment, the one its refunds give back. */
/** The order's payment: what to refund, and when it was paid (the delivery promise counts from then). */
interface PaidPayment {
  payment_intent_id: string | null;
  amount_minor: number;
  currency: string;
  paid_at: Date;
}

export async function paidPayment(tx: Queryable, orderId: string): Promise<PaidPayment | undefined> {
  const [payment] = await tx.query<PaidPayment>(
    `SELECT payment_intent_id, amount_minor, currency, created_at AS paid_at FROM payments WHERE order_id = $1 AND status = 'paid' ORDER BY id DESC LIMIT 1`,
    [orderId],
  );
  return payment;
}

/**
 * Records a refund asked for, in the caller's transaction: the order's row is locked first, so two
 * requests at once for one order are checked one after the other. The same idempotency key again
 * answers the row it made (created: false); a refund that would take the order's refunds (every one
 * but the cancelled) beyond what was paid is refused. No amount: what is left of the payment.
 */
export async function recordRequest(
  tx: Queryable,
  request: RefundRequest,
): Promise<{ refund: RefundRow; created: boolean; state: OrderState; leftMinor: number }> {
  if ((request.requestedBy === 'operator') !== Boolean(request.operatorUid))
    throw new RefundRefused('asked_by_nobody', 'an operator refund names its operator, and only an operator refund does');
  const [order] = await tx.query<{ state: OrderState }>('SELECT state FROM orders WHERE id = $1 FOR UPDATE', [request.orderId]);
  if (!order) throw new RefundRefused('order_not_found', `order ${request.orderId} does not exist`);
  const [same] = await tx.query<RefundRow>('SELECT * FROM refunds WHERE order_id = $1 AND idempotency_key = $2', [
    request.orderId,
    request.idempotencyKey,
  ]);
  const payment = await paidPayment(tx, request.orderId);
  const [{ counted }] = (await tx.query<{ counted: number }>(
    `SELECT coalesce(sum(amount_minor), 0)::int AS counted FROM refunds WHERE order_id = $1 AND status <> 'cancelled'`,
    [request.orderId],
  )) as [{ counted: number }];
  const left = (payment?.amount_minor ?? 0) - counted;
  if (same) {
    if (request.amountMinor !== undefined && request.amountMinor !== same.amount_minor)
      throw new RefundRefused('idempotency_key_reused', `key ${request.idempotencyKey} was used for a refund of ${same.amount_minor}`);
    return { refund: same, created: false, state: order.state, leftMinor: left };
  }
  if (!payment) throw new RefundRefused('not_paid', `order ${request.orderId} has no payment to refund`);
  const amount = request.amountMinor ?? left;
  if (amount <= 0 || amount > left)
    throw new RefundRefused(
      'exceeds_payment',
      `refunding ${amount} would exceed what was paid: ${payment.amount_minor} paid, ${counted} refunded or on its way (${payment.currency} minor units)`,
    );
  await decideRefundsOutcome(tx, request, amount === left);
  const [refund] = await tx.query<RefundRow>(
    `INSERT INTO refunds (id, order_id, requested_by, operator_uid, reason, note, amount_minor, currency, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [
      randomUUID(),
      request.orderId,
      request.requestedBy,
      request.operatorUid ?? null,
      request.reason,
      request.note ?? null,
      amount,
      payment.currency,
      request.idempotencyKey,
    ],
  );
  return { refund: refund!, created: true, state: order.state, leftMinor: left - amount };
}

/**
 * What a refund means for the purchase's one outcome (orders/purchase-outcome.ts), under the order's
 * lock: the whole of a kept purchase refunds it (or exchanges it, the exchange's refund); a part of
 * it leaves it kept. The buyer's and the shop's refunds are refused (not_refundable) for a purchase
 * replaced or refunded otherwise; an operator may still give back what is left of any purchase
 * (support helping), which changes no outcome but a kept one's.
 */
async function decideRefundsOutcome(tx: Queryable, request: RefundRequest, whole: boolean): Promise<void> {
  const existing = await lockedOutcome(tx, request.orderId);
  const outcome = request.reason === 'exchanged' ? 'exchanged' : 'refunded';
  if (request.requestedBy !== 'operator' && existing && existing.outcome !== outcome)
    throw new RefundRefused('not_refundable', `order ${request.orderId} was ${existing.outcome} already`);
  if (existing || !whole) return;
  await decideOutcome(tx, {
    orderId: request.orderId,
    outcome,
    askedBy: request.requestedBy,
    operatorUid: request.operatorUid,
    byOrderId: request.exchangeOrderId,
    cause: request.note ? `${request.reason}: ${request.note}` : request.reason,
  });
}

export async function refundsOf(tx: Queryable, orderId: string): Promise<RefundRow[]> {
  return tx.query<RefundRow>('SELECT * FROM refunds WHERE order_id = $1 ORDER BY created_at, id', [orderId]);
}

export async function refundById(tx: Queryable, id: string): Promise<RefundRow | undefined> {
  const [row] = await tx.query<RefundRow>('SELECT * FROM refunds WHERE id = $1', [id]);
  return row;
}

/** Whether Stripe was ever asked for a refund of the order (an undelivered eSIM is released once, before the first). */
export async function anyAsked(tx: Queryable, orderId: string): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM refunds WHERE order_id = $1 AND (asks > 0 OR stripe_refund_id IS NOT NULL) LIMIT 1', [
    orderId,
  ]);
  return rows.length > 0;
}

/** Counted before Stripe is asked: each ask has its own Idempotency-Key (settle.ts). Answers the new count. */
export async function countAsk(tx: Queryable, id: string): Promise<number> {
  const [row] = await tx.query<{ asks: number }>('UPDATE refunds SET asks = asks + 1 WHERE id = $1 RETURNING asks', [id]);
  return row!.asks;
}

/** Stripe's answer to an ask (or what a read before asking found): the row's refund now. */
export async function recordAsked(tx: Queryable, id: string, refund: { id: string; status: RefundStatus }): Promise<void> {
  await tx.query(
    `UPDATE refunds SET stripe_refund_id = $2, status = $3, status_at = now(),
       failures = failures + CASE WHEN $3 = 'failed' THEN 1 ELSE 0 END
     WHERE id = $1`,
    [id, refund.id, refund.status],
  );
}

/**
 * What Stripe says now of a refund of this row (its webhook, or a read), in the caller's transaction.
 * News of the refund the row names is recorded; a refund it does not name yet (one whose answer was
 * lost) is taken on when the row names none or a failed one, unless it failed too. A row never
 * asked again once cancelled. Answers whether anything changed, and whether a refund that had
 * succeeded failed after all (the money is owed again).
 */
export async function recordStripeNews(
  tx: Queryable,
  id: string,
  refundId: string,
  status: RefundStatus,
): Promise<{ changed: boolean; lateFailure: boolean }> {
  const [before] = await tx.query<{ status: RefundRowStatus }>('SELECT status FROM refunds WHERE id = $1 FOR UPDATE', [id]);
  const [row] = await tx.query<{ id: string }>(
    `UPDATE refunds SET stripe_refund_id = $2, status = $3::text, status_at = now(),
       failures = failures + CASE WHEN $3::text = 'failed' THEN 1 ELSE 0 END
     WHERE id = $1 AND status <> 'cancelled' AND CASE WHEN stripe_refund_id = $2 THEN status <> $3::text
       ELSE $3::text <> 'failed' AND (stripe_refund_id IS NULL OR status = 'failed') END
     RETURNING id`,
    [id, refundId, status],
  );
  return { changed: Boolean(row), lateFailure: Boolean(row) && status === 'failed' && before?.status === 'succeeded' };
}

/** The row a Stripe refund belongs to: the one naming it, or the one its metadata.reference names (an answer that was lost). */
export async function rowOfStripeRefund(tx: Queryable, refundId: string, reference: string | null): Promise<RefundRow | undefined> {
  const [row] = await tx.query<RefundRow>(
    `SELECT * FROM refunds WHERE stripe_refund_id = $1 OR id = $2
     ORDER BY (stripe_refund_id = $1) DESC NULLS LAST LIMIT 1 FOR UPDATE`,
    [refundId, reference],
  );
  return row;
}

/**
 * The order's refunds Stripe was never asked for, made void: the eSIM was installed before its
 * refund could be made (terms). An operator's refund stands (the operator chose to refund an installed eSIM).
 */
export async function cancelUnasked(tx: Queryable, orderId: string): Promise<void> {
  await tx.query(
    `UPDATE refunds SET status = 'cancelled', status_at = now()
     WHERE order_id = $1 AND status = 'requested' AND asks = 0 AND stripe_refund_id IS NULL AND requested_by <> 'operator'`,
    [orderId],
  );
}

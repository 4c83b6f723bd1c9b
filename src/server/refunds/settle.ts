import type Stripe from 'stripe';
import type { Queryable } from '../db/db.types.ts';
import { refundPayment, refundStatus } from '../payments/stripe.ts';
import { countAsk, paidPayment, recordAsked, recordStripeNews, refundById } from './store.ts';
import type { RefundRow } from './refund-command.types.ts';

/**
 * One refund row carried as far as it can go now, at Stripe. Stripe's refunds can stay `pending`
 * and succeed or fail later, and one reported `succeeded` can still fail (docs.stripe.com/refunds,
 * failed refunds; API reference, Refunds: status "pending, requires_action, succeeded, failed, or
 * canceled"). The state model of a row (migration 0016):
 *
 *   requested      written by the refund command; Stripe not asked, or its answer was lost
 *     → Stripe is read first (refundPayment: the refunds of the payment intent whose
 *       metadata.reference is the row's id); one found is the answer, else it is asked, with the
 *       Idempotency-Key refund-<row id>-<ask> (the ask counted before it is sent)
 *   pending        read at Stripe again on each look (its webhook usually comes first)
 *   failed         asked again after a wait that grows with the row's failures (the delays)
 *   succeeded      the money is back; a late failure (the webhook) makes it failed again, and a
 *                  refunded order goes back to refund_requested (webhooks/stripe-event.ts)
 *   cancelled      never asked, never will be (an eSIM installed before its refund)
 *
 * Only the fulfilment calls this, under its claim on the order (one worker per order): `write`
 * runs a transaction that checks the claim, `check` checks it before Stripe is asked.
 * Answers the row as it stands and, while it is open, when to look again; a failure at Stripe throws.
 */
export async function settleRefund(
  deps: {
    db: Queryable;
    stripe: Stripe;
    write: <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>;
    check: () => Promise<void>;
    retryDelaysMs: readonly number[];
    pollMs: number;
  },
  id: string,
): Promise<{ refund: RefundRow; retryInMs?: number }> {
  const { db, stripe, write } = deps;
  let refund = (await refundById(db, id))!;
  if (refund.status === 'pending' && refund.stripe_refund_id) {
    // Pending as last heard: Stripe's word now, in case its webhook was lost.
    const read = refundStatus((await stripe.refunds.retrieve(refund.stripe_refund_id)).status);
    if (read !== 'pending') await write((tx) => recordStripeNews(tx, id, refund.stripe_refund_id!, read));
    refund = (await refundById(db, id))!;
  }
  if (refund.status === 'failed') {
    // Asked again, later each time: an expired card fails again at once.
    const delays = deps.retryDelaysMs;
    const wait = refund.status_at.getTime() + delays[Math.min(Math.max(refund.failures, 1), delays.length) - 1]! - Date.now();
    if (wait > 0) return { refund, retryInMs: wait };
  }
  if (refund.status === 'requested' || refund.status === 'failed') {
    const payment = await paidPayment(db, refund.order_id);
    if (!payment?.payment_intent_id) throw new Error(`refund ${id}: order ${refund.order_id} has no payment to refund`);
    const ask = await write((tx) => countAsk(tx, id));
    await deps.check();
    const asked = await refundPayment(stripe, {
      reference: id,
      paymentIntentId: payment.payment_intent_id,
      amountMinor: refund.amount_minor,
      reason: refund.reason,
      attempt: ask,
    });
    await write((tx) => recordAsked(tx, id, asked));
    refund = (await refundById(db, id))!;
    if (refund.status === 'failed') throw new Error(`refund ${asked.id} (row ${id}): failed at Stripe`);
  }
  return refund.status === 'pending' ? { refund, retryInMs: deps.pollMs } : { refund };
}

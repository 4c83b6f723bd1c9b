import type Stripe from 'stripe';
import type { Db, Queryable } from '../db/db.types.ts';
import { refundPayment } from './stripe.ts';

/**
 * Money that reached us for no order it matches (issue 20 item 10): a paid Checkout Session whose
 * amount, currency or session is not its order's, or whose order we do not know. Nothing delivers
 * it, so it is recorded (migration 0003, payment_mismatches), given back at once, and kept for
 * whoever runs the shop; the reconcile job gives back what Stripe could not be asked to at once.
 */
export interface PaymentMismatch {
  orderId: string | null;
  checkoutSessionId: string;
  paymentIntentId: string | null;
  amountMinor: number | null;
  currency: string | null;
  reason: 'amount_differs' | 'session_differs' | 'unknown_order';
}

/** Records it once (a repeated event finds it), in the webhook's transaction. */
export async function recordMismatch(tx: Queryable, mismatch: PaymentMismatch): Promise<void> {
  console.error(
    'stripe-webhook: a payment matches no order, refunding it',
    JSON.stringify({ session: mismatch.checkoutSessionId, reason: mismatch.reason }),
  );
  await tx.query(
    `INSERT INTO payment_mismatches (order_id, checkout_session_id, payment_intent_id, amount_minor, currency, reason)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (checkout_session_id) DO NOTHING`,
    [mismatch.orderId, mismatch.checkoutSessionId, mismatch.paymentIntentId, mismatch.amountMinor, mismatch.currency, mismatch.reason],
  );
}

/** Gives back every recorded mismatch not refunded yet; answers how many were. Never rejects: what fails waits for the next run. */
export async function refundMismatches(db: Db, stripe: Stripe): Promise<number> {
  const due = await db.query<{
    id: number;
    checkout_session_id: string;
    payment_intent_id: string | null;
    amount_minor: number | null;
    reason: string;
    attempts: number;
  }>(
    `SELECT id, checkout_session_id, payment_intent_id, amount_minor, reason, attempts FROM payment_mismatches WHERE refund_id IS NULL ORDER BY id LIMIT 50`,
  );
  let refunded = 0;
  for (const row of due) {
    try {
      // The intent from Stripe itself when the event did not name it.
      const intent = row.payment_intent_id ?? (await stripe.checkout.sessions.retrieve(row.checkout_session_id)).payment_intent;
      const intentId = typeof intent === 'string' ? intent : intent?.id;
      if (!intentId) throw new Error(`session ${row.checkout_session_id} has no payment`);
      const amount = row.amount_minor ?? (await stripe.paymentIntents.retrieve(intentId)).amount;
      const refund = await refundPayment(stripe, {
        reference: `session:${row.checkout_session_id}`,
        paymentIntentId: intentId,
        amountMinor: amount,
        reason: row.reason,
        attempt: row.attempts,
      });
      await db.query('UPDATE payment_mismatches SET refund_id = $2, payment_intent_id = $3, refunded_at = now() WHERE id = $1', [
        row.id,
        refund.id,
        intentId,
      ]);
      refunded++;
    } catch (error) {
      await db.query('UPDATE payment_mismatches SET attempts = attempts + 1 WHERE id = $1', [row.id]);
      console.error(
        'payment mismatch: refund failed, will try again',
        row.checkout_session_id,
        error instanceof Error ? error.message : error,
      );
    }
  }
  return refunded;
}

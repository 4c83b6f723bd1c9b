import type Stripe from 'stripe';
import { CHECKOUT_EXPIRY_RETRY } from '../../config/constants.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { CheckoutExpiry, CheckoutExpiryRetry } from './checkout-expiry.types.ts';

/**
 * The payment pages of orders we closed (replaced by another order, timed out, or cancelled with
 * the account) are closed at Stripe too, so none of them takes a payment (issue 20 item 4): each
 * session is queued in `checkout_expiries` in the transaction that closes its order
 * (src/server/orders/store.ts), expired at once, and tried again by the reconcile job until Stripe
 * says the session is no longer open. A payment that still arrives on a closed order (paid in the
 * moment before the expiry) counts as before: money received wins (orders/store.ts), so it is
 * delivered, never lost.
 */
export function createCheckoutExpiry(db: Db, stripe: Stripe, retry: CheckoutExpiryRetry = CHECKOUT_EXPIRY_RETRY): CheckoutExpiry {
  /**
   * Expires one session; true once it is no longer open. Stripe refuses to expire a session that is
   * not open (API reference, Checkout Sessions, expire: "only Checkout Sessions with a status of
   * open can be expired"), so after a refusal or a lost answer the session is read back.
   */
  async function expire(sessionId: string): Promise<boolean> {
    try {
      await stripe.checkout.sessions.expire(sessionId, {}, { idempotencyKey: `checkout-expire-${sessionId}` });
      return true;
    } catch (error) {
      const session = await stripe.checkout.sessions.retrieve(sessionId);
      if (session.status === 'open') throw error;
      if (session.status === 'complete') console.error('stripe: a closed order was paid before its page closed', sessionId);
      return true;
    }
  }

  async function closeOne(sessionId: string): Promise<boolean> {
    try {
      await expire(sessionId);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      console.error("stripe: expiring a closed order's payment page failed; the job tries again", sessionId, text);
      // Tried again after the wait for this many failures (CHECKOUT_EXPIRY_RETRY), the last one after them.
      // (Queued here if its caller had not: the order is found by its session; a cart's, by one of its orders.)
      await db.query(
        `INSERT INTO checkout_expiries AS e (checkout_session_id, order_id, attempts, last_error, next_attempt_at)
         SELECT $1, order_id, 1, $2, now() + ($3::bigint[])[1] * interval '1 millisecond'
         FROM order_checkouts WHERE checkout_session_id = $1 LIMIT 1
         ON CONFLICT (checkout_session_id) DO UPDATE SET attempts = e.attempts + 1, last_error = $2,
           next_attempt_at = now() + ($3::bigint[])[least(e.attempts + 1, cardinality($3::bigint[]))] * interval '1 millisecond'`,
        [sessionId, text.slice(0, 500), retry.delaysMs.map(Math.round)],
      );
      return false;
    }
    await db.query('DELETE FROM checkout_expiries WHERE checkout_session_id = $1', [sessionId]);
    return true;
  }

  return {
    /** Closes these sessions now; never rejects (what fails stays queued for the job). */
    async close(sessionIds: readonly string[]): Promise<void> {
      await Promise.all(
        sessionIds.map((id) => closeOne(id).catch((error: unknown) => console.error('stripe: checkout expiry', id, error))),
      );
    },

    /** The reconcile job's part: every queued session that is due; answers how many it tried. */
    async closeDue(limit = 50): Promise<number> {
      // Taken for a while first, so another instance's job does not take the same ones meanwhile.
      const due = await db.query<{ checkout_session_id: string }>(
        `UPDATE checkout_expiries SET next_attempt_at = now() + $2 * interval '1 millisecond'
         WHERE checkout_session_id IN (
           SELECT checkout_session_id FROM checkout_expiries WHERE next_attempt_at <= now()
           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING checkout_session_id`,
        [limit, retry.claimMs],
      );
      for (const { checkout_session_id: id } of due) await closeOne(id);
      return due.length;
    },
  };
}

/** Queues an order's payment page to be closed, in the caller's transaction (the order closes with it). */
export async function queueCheckoutExpiry(tx: Queryable, orderId: string, sessionId: string | null): Promise<void> {
  if (!sessionId) return;
  await tx.query('INSERT INTO checkout_expiries (checkout_session_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    sessionId,
    orderId,
  ]);
}

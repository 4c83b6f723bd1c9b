import type Stripe from 'stripe';
import type { Db } from '../db/db.types.ts';
import type { OrderStore } from '../orders/store.types.ts';
import { handleStripeEvent } from './stripe-event.ts';

/**
 * Stripe retries a webhook for three days, then gives up (docs.stripe.com/webhooks); an endpoint
 * that keeps failing meanwhile (a long outage, a rotated signing secret) would leave a paid order
 * `pending_payment` with the buyer's money and nothing looking at it (found by the fault-injection
 * run). So the reconcile job asks Stripe itself about every payment page open more than a couple
 * of minutes whose outcome has not reached us, and handles what it reads exactly as the event
 * would (the same handler, under an event id of its own: a late real event then changes nothing).
 * Answers the orders it moved (paid: to be delivered now).
 */
export async function syncCheckouts(db: Db, stripe: Stripe, store: OrderStore, limit = 20): Promise<string[]> {
  const due = await db.query<{ id: string; checkout_session_id: string }>(
    `SELECT o.id, c.checkout_session_id FROM order_checkouts c JOIN orders o ON o.id = c.order_id
     WHERE c.settled_at IS NULL AND c.created_at > now() - interval '3 days' AND o.state IN ('pending_payment', 'expired', 'cancelled', 'payment_failed')
       AND o.created_at < now() - interval '2 minutes' AND o.created_at > now() - interval '3 days'
       AND (c.checked_at IS NULL OR c.checked_at < now() - interval '5 minutes')
     ORDER BY c.checked_at NULLS FIRST LIMIT $1`,
    [limit],
  );
  const moved: string[] = [];
  for (const { id, checkout_session_id: sessionId } of due) {
    try {
      const session = await stripe.checkout.sessions.retrieve(sessionId);
      const paid = session.status === 'complete' && session.payment_status === 'paid';
      const type = paid ? 'checkout.session.completed' : session.status === 'expired' ? 'checkout.session.expired' : undefined;
      if (type) {
        const event = {
          id: `reconcile:${type}:${session.id}`,
          object: 'event',
          type,
          data: { object: session },
        } as unknown as Stripe.Event;
        const { outcome, orderIds } = await handleStripeEvent(stripe, store, event);
        // A cart's page moves all of its orders at once.
        if (outcome === 'moved' && paid) moved.push(...orderIds);
      }
      // Paid or expired, the page has nothing more to say; open (or a bank debit on its way), ask again later.
      await db.query(`UPDATE order_checkouts SET checked_at = now(), settled_at = CASE WHEN $2 THEN now() END WHERE order_id = $1`, [
        id,
        type !== undefined,
      ]);
    } catch (error) {
      console.error('stripe: reading a payment page failed; the job asks again', sessionId, error instanceof Error ? error.message : error);
      await db.query('UPDATE order_checkouts SET checked_at = now() WHERE order_id = $1', [id]);
    }
  }
  return moved;
}

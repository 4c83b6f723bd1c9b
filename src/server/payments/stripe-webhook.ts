import type Stripe from 'stripe';
import type { OrderState } from '../../shop/contract.ts';
import type { OrderStore } from '../orders/store.ts';
import { isUuid } from '../uuid.ts';
import { paymentDetails } from './stripe.ts';

/** What each Checkout event means for its order (DESIGN 6: fulfil on the webhook, never on the redirect). */
function targetState(event: Stripe.Event, session: Stripe.Checkout.Session): OrderState | undefined {
  switch (event.type) {
    case 'checkout.session.completed':
      // 'unpaid' here is a delayed method (a bank debit) still on its way: its own event follows.
      return session.payment_status === 'unpaid' ? undefined : 'paid';
    case 'checkout.session.async_payment_succeeded':
      return 'paid';
    case 'checkout.session.async_payment_failed':
      return 'payment_failed';
    case 'checkout.session.expired':
      return 'expired';
    default:
      return undefined;
  }
}

export type WebhookOutcome = 'moved' | 'unchanged' | 'ignored' | 'replay';

/**
 * Handles one verified Stripe event, exactly once (its id is stored with the change). An event
 * that does not apply to the order's state now (an expiry after the payment, a second success)
 * changes nothing; a payment confirmed after an expiry still counts.
 */
export async function handleStripeEvent(stripe: Stripe, store: OrderStore, event: Stripe.Event): Promise<WebhookOutcome> {
  const session = event.type.startsWith('checkout.session.') ? (event.data.object as Stripe.Checkout.Session) : undefined;
  const target = session && targetState(event, session);
  const orderId = session?.client_reference_id ?? '';
  // Asked before the transaction: a slow answer from Stripe must not hold a database lock.
  const details =
    target === 'paid' ? await paymentDetails(stripe, session!.id).catch(() => ({ paymentIntentId: null, method: null, receiptUrl: null })) : undefined;

  let outcome: WebhookOutcome = 'ignored';
  const once = await store.onceForEvent('stripe', event.id, event.type, async (tx) => {
    if (!session || !target || !isUuid(orderId)) return;
    const order = await store.byId(tx, orderId);
    if (!order) return;
    if (order.checkout_session_id && order.checkout_session_id !== session.id) {
      console.error('stripe-webhook: session does not belong to order', JSON.stringify({ event: event.id, order: order.id }));
      return;
    }
    if (target === 'paid' && (session.amount_total !== order.amount_minor || session.currency?.toUpperCase() !== order.currency)) {
      console.error('stripe-webhook: amount differs from the order', JSON.stringify({ event: event.id, order: order.id }));
      return;
    }
    const moved = await store.move(tx, order.id, target, `stripe:${event.type} ${event.id}`);
    outcome = moved ? 'moved' : 'unchanged';
    if (target === 'paid' || target === 'payment_failed') {
      await store.recordPayment(tx, order.id, {
        provider: 'stripe',
        checkoutSessionId: session.id,
        paymentIntentId: details?.paymentIntentId ?? (typeof session.payment_intent === 'string' ? session.payment_intent : null),
        status: target === 'paid' ? 'paid' : 'failed',
        amountMinor: session.amount_total ?? order.amount_minor,
        currency: (session.currency ?? order.currency).toUpperCase(),
        method: details?.method ?? null,
        receiptUrl: details?.receiptUrl ?? null,
      });
    }
  });
  return once === 'replay' ? 'replay' : outcome;
}

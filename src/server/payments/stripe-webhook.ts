import type Stripe from 'stripe';
import type { OrderState } from '../../shop/contract.ts';
import type { OrderStore } from '../orders/store.ts';
import { isUuid } from '../uuid.ts';
import { recordMismatch, type PaymentMismatch } from './mismatches.ts';
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

/** 'mismatch': a payment for no order it matches, recorded to be given back (payments/mismatches.ts). */
export type WebhookOutcome = 'moved' | 'unchanged' | 'ignored' | 'replay' | 'mismatch';

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
    if (!session || !target) return;
    const order = isUuid(orderId) ? await store.byId(tx, orderId) : undefined;
    // Money taken that no order of ours matches is given back, never kept on an order nothing looks at.
    const mismatch = (reason: PaymentMismatch['reason']) => {
      outcome = 'mismatch';
      if (target !== 'paid') return;
      return recordMismatch(tx, {
        orderId: order?.id ?? null,
        checkoutSessionId: session.id,
        paymentIntentId: details?.paymentIntentId ?? (typeof session.payment_intent === 'string' ? session.payment_intent : null),
        amountMinor: session.amount_total,
        currency: session.currency?.toUpperCase() ?? null,
        reason,
      });
    };
    if (!order) return mismatch('unknown_order');
    if (order.checkout_session_id && order.checkout_session_id !== session.id) return mismatch('session_differs');
    if (target === 'paid' && (session.amount_total !== order.amount_minor || session.currency?.toUpperCase() !== order.currency)) {
      return mismatch('amount_differs');
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

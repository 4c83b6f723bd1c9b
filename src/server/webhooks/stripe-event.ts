import type Stripe from 'stripe';
import type { OrderState } from '../../contract/shop-api.ts';
import type { OrderStore } from '../orders/store.types.ts';
import { isUuid } from '../uuid.ts';
import { recordMismatch, type PaymentMismatch } from '../payments/mismatches.ts';
import { paymentDetails, refundStatus } from '../payments/stripe.ts';
import { recordStripeNews, rowOfStripeRefund } from '../refunds/store.ts';
import { cartById, ordersOfCart } from '../carts/store.ts';
import { cardOfPayment, cardOfSetupSession, detachCard, recordSavedCard } from '../auto-top-ups/saved-card.ts';

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

/** What an event did, and to which orders (none: none of ours): 'moved' orders are worked on at once. */
export interface WebhookResult {
  outcome: WebhookOutcome;
  orderIds: string[];
}

/**
 * A refund's events (API reference, Refunds, Events): refund.created, refund.updated ("whenever a
 * refund is updated"), refund.failed, and charge.refund.updated ("on selected payment methods"; for
 * all of them, refund.updated). Each one only says "look at this refund".
 */
const REFUND_EVENTS: ReadonlySet<string> = new Set(['refund.created', 'refund.updated', 'refund.failed', 'charge.refund.updated']);

/**
 * Handles one verified Stripe event, exactly once (its id is stored with the change). Stripe
 * delivers events late, twice and out of order (docs.stripe.com/webhooks: "Webhook endpoints might
 * occasionally receive the same event more than once"; "Stripe doesn't guarantee the delivery of
 * events in the order in which they're generated"), so no handler relies on what came before. A
 * Checkout event that does not apply to the order's state now (an expiry after the payment, a
 * second success) changes nothing; a payment confirmed after an expiry still counts.
 */
export async function handleStripeEvent(stripe: Stripe, store: OrderStore, event: Stripe.Event): Promise<WebhookResult> {
  if (REFUND_EVENTS.has(event.type)) return handleRefundEvent(stripe, store, event);
  const session = event.type.startsWith('checkout.session.') ? (event.data.object as Stripe.Checkout.Session) : undefined;
  if (session?.mode === 'setup') return handleCardSetup(stripe, store, event, session);
  const target = session && targetState(event, session);
  // A cart's page pays for all of its orders (carts/place-cart.ts); any other page for one.
  const cartId = session?.metadata?.['cartId'];
  const orderId = cartId === undefined ? (session?.client_reference_id ?? '') : '';
  // Asked before the transaction: a slow answer from Stripe must not hold a database lock.
  const details =
    target === 'paid'
      ? await paymentDetails(stripe, session!.id).catch(() => ({ paymentIntentId: null, method: null, receiptUrl: null }))
      : undefined;

  // Automatic top-ups ticked at checkout (issue 49): the card the payment saved. A failed read only
  // leaves it unsaved (My eSIMs then offers to save one): the payment itself is recorded all the same.
  const savedCard =
    target === 'paid' && session?.customer && details?.paymentIntentId
      ? await cardOfPayment(stripe, details.paymentIntentId).catch((error: unknown) => {
          console.error('stripe: the card a payment saved was not read', session.id, error instanceof Error ? error.message : error);
          return undefined;
        })
      : undefined;
  let replacedCard: string | undefined;
  let outcome: WebhookOutcome = 'ignored';
  let orderIds: string[] = [];
  const once = await store.onceForEvent('stripe', event.id, event.type, async (tx) => {
    if (savedCard) replacedCard = await recordSavedCard(tx, savedCard);
    if (!session || !target) return;
    const cart = cartId !== undefined && isUuid(cartId) ? await cartById(tx, cartId) : undefined;
    const order = isUuid(orderId) ? await store.byId(tx, orderId) : undefined;
    const orders = cart ? await ordersOfCart(tx, cart.id) : order ? [order] : [];
    const paysFor = cart ?? order;
    const paymentIntentId = details?.paymentIntentId ?? (typeof session.payment_intent === 'string' ? session.payment_intent : null);
    // Money taken that no order of ours matches is given back, never kept on an order nothing looks at.
    const mismatch = (reason: PaymentMismatch['reason']) => {
      outcome = 'mismatch';
      if (target !== 'paid') return;
      return recordMismatch(tx, {
        orderId: order?.id ?? null,
        checkoutSessionId: session.id,
        paymentIntentId,
        amountMinor: session.amount_total,
        currency: session.currency?.toUpperCase() ?? null,
        reason,
      });
    };
    if (!paysFor || orders.length === 0) return mismatch('unknown_order');
    // The page the cart or the order was given (order_checkouts, migration 0041), if any yet.
    const [page] = cart
      ? [cart]
      : await tx.query<{ checkout_session_id: string }>('SELECT checkout_session_id FROM order_checkouts WHERE order_id = $1', [
          paysFor.id,
        ]);
    if (page?.checkout_session_id && page.checkout_session_id !== session.id) return mismatch('session_differs');
    const total = orders.reduce((sum, o) => sum + o.amount_minor, 0);
    if (target === 'paid' && (session.amount_total !== total || orders.some((o) => session.currency?.toUpperCase() !== o.currency))) {
      return mismatch('amount_differs');
    }
    orderIds = orders.map((o) => o.id);
    let moved = false;
    for (const each of orders) {
      moved = (await store.move(tx, each.id, target, `stripe:${event.type} ${event.id}`)) || moved;
      if (target === 'paid' || target === 'payment_failed') {
        // A cart's payment is recorded on each of its orders with that order's share: a refund of one eSIM refunds that much.
        await store.recordPayment(tx, each.id, {
          provider: 'stripe',
          checkoutSessionId: session.id,
          paymentIntentId,
          status: target === 'paid' ? 'paid' : 'failed',
          amountMinor: cart ? each.amount_minor : (session.amount_total ?? each.amount_minor),
          currency: (session.currency ?? each.currency).toUpperCase(),
          method: details?.method ?? null,
          receiptUrl: details?.receiptUrl ?? null,
        });
      }
    }
    outcome = moved ? 'moved' : 'unchanged';
  });
  await detachCard(stripe, replacedCard);
  return { outcome: once === 'replay' ? 'replay' : outcome, orderIds };
}

/**
 * A refund event: the refund is read from Stripe, as it is now (an older event arriving after a
 * newer one must not undo it), and recorded on the refund row that names it, or whose id is its
 * metadata.reference (refunds/settle.ts puts it there: an ask whose answer was lost). Only the
 * fulfilment calls an order refunded; here a refunded order whose refund failed later is reopened
 * (refund_requested: the money is owed again). 'moved' means Stripe's word changed: the order is
 * worked on at once. When Stripe cannot be read, the handler throws: the webhook answers 500 and
 * Stripe sends the event again (and the reconcile job reads a pending refund itself).
 */
async function handleRefundEvent(stripe: Stripe, store: OrderStore, event: Stripe.Event): Promise<WebhookResult> {
  const told = event.data.object as Stripe.Refund;
  const refund = await stripe.refunds.retrieve(told.id);
  const reference = refund.metadata?.['reference'] ?? '';
  let outcome: WebhookOutcome = 'ignored';
  let orderIds: string[] = [];
  const once = await store.onceForEvent('stripe', event.id, event.type, async (tx) => {
    const row = await rowOfStripeRefund(tx, refund.id, isUuid(reference) ? reference : null);
    // A mismatched payment's refund (reference 'session:…') or none of ours: no refund row to record it on.
    if (!row) return;
    orderIds = [row.order_id];
    const news = await recordStripeNews(tx, row.id, refund.id, refundStatus(refund.status));
    // Only a refunded order is reopened; a refund of part of a delivered one is simply asked again (its row is open).
    if (news.lateFailure && (await store.byId(tx, row.order_id))?.state === 'refunded')
      await store.move(tx, row.order_id, 'refund_requested', `stripe:refund_failed ${refund.id}`);
    outcome = news.changed ? 'moved' : 'unchanged';
  });
  return { outcome: once === 'replay' ? 'replay' : outcome, orderIds };
}

/**
 * A page that saved a card (Checkout in setup mode, auto-top-ups/saved-card.ts): the card is read
 * from Stripe and recorded on the buyer whose Customer it is, once per event. When Stripe cannot be
 * read the handler throws: Stripe sends the event again (and the buyer's page, coming back, reads it too).
 */
async function handleCardSetup(
  stripe: Stripe,
  store: OrderStore,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
): Promise<WebhookResult> {
  if (event.type !== 'checkout.session.completed') return { outcome: 'ignored', orderIds: [] };
  const saved = await cardOfSetupSession(stripe, session.id);
  let replaced: string | undefined;
  const once = await store.onceForEvent('stripe', event.id, event.type, async (tx) => {
    if (saved) replaced = await recordSavedCard(tx, saved);
  });
  await detachCard(stripe, replaced);
  return { outcome: once === 'replay' ? 'replay' : 'unchanged', orderIds: [] };
}

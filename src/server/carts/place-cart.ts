import { TERMS_VERSION, type CartItem, type CreateCartRequest } from '../../contract/shop-api.ts';
import type { Currency } from '../../config/currencies.ts';
import type { Price } from '../../catalogue/schema.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Caller } from '../auth.types.ts';
import { productName, type PlaceOrderDeps } from '../orders/place-order.ts';
import { priceIn } from '../../pricing/price-in.ts';
import { soldPlan, type SellablePlan } from '../orders/plans.ts';
import { OPEN_ORDER_LIFETIME_MS } from '../orders/store.ts';
import type { NewOrder, OrderRow } from '../orders/store.types.ts';
import { choosePartner } from '../orders/partner-choice.ts';
import { createCheckoutSession } from '../payments/stripe.ts';
import type { CartRow, CartStore } from './store.ts';

export type PlaceCartDeps = Pick<
  PlaceOrderDeps,
  'stripe' | 'plans' | 'limits' | 'salesPause' | 'checkouts' | 'siteUrl' | 'partners' | 'catalogue'
> & {
  carts: Pick<CartStore, 'openCart' | 'attachCheckout'>;
};

/** How placing a cart ended: POST /carts answers each with its own status. */
export type PlaceCartResult =
  | { outcome: 'placed'; cart: CartRow; orders: OrderRow[]; checkoutUrl: string; created: boolean }
  | { outcome: 'sales_paused' }
  | { outcome: 'too_many_attempts'; retryAfterSeconds: number }
  | { outcome: 'unknown_plan'; planId: string }
  /** A price the page showed is not the price now: every item's current price, nothing opened. */
  | { outcome: 'price_changed'; prices: { planId: string; price: Price }[] }
  | { outcome: 'payment_unavailable' };

/**
 * Places the caller's cart (issue 33): each item priced here again by the one pricing function,
 * one open order per eSIM, and one Stripe Checkout Session with one line item per plan. The eSIMs
 * count one each on the caller's order limits.
 */
export async function placeCart(deps: PlaceCartDeps, caller: Caller, request: CreateCartRequest): Promise<PlaceCartResult> {
  const { stripe, plans, limits, salesPause, checkouts, carts, siteUrl } = deps;
  const pause = await salesPause.paused();
  if (pause.shop) return { outcome: 'sales_paused' };
  const items: { plan: SellablePlan; quantity: number; travellers: CartItem['travellers'] }[] = [];
  for (const item of request.items) {
    const plan = plans.get(item.planId);
    if (!plan) return { outcome: 'unknown_plan', planId: item.planId };
    items.push({ plan, quantity: item.quantity, travellers: item.travellers });
  }
  // One currency a payment (the contract checks it), each plan priced in it here again.
  const currency = request.items[0]!.expectedPrice.currency as Currency;
  const stale = request.items.some((item, i) => item.expectedPrice.amountMinor !== items[i]!.plan.prices[currency]);
  if (stale)
    return { outcome: 'price_changed', prices: items.map(({ plan }) => ({ planId: plan.pkg.id, price: priceIn(plan.prices, currency) })) };

  // Each plan from its partner of the moment: the cheapest healthy one whose margin holds (partner-choice.ts).
  const offers = items.map(({ plan }) =>
    choosePartner(plan.pkg.offers, priceIn(plan.prices, currency), deps.partners, deps.catalogue.exchangeRates.applied, pause.partners),
  );
  if (offers.some((offer) => !offer)) return { outcome: 'sales_paused' };

  const wait = await limits.take(
    'orders',
    caller.uid,
    items.reduce((sum, item) => sum + item.quantity, 0),
  );
  if (wait !== undefined) return { outcome: 'too_many_attempts', retryAfterSeconds: wait };

  const consentedAt = new Date();
  const orders: NewOrder[] = items.flatMap(({ plan, quantity, travellers }, item) =>
    Array.from({ length: quantity }, (_, i) => ({
      uid: caller.uid,
      email: caller.email,
      emailVerified: caller.emailVerified,
      plan: soldPlan(plan),
      destination: plan.destination.code,
      partner: offers[item]!.partner,
      partnerCode: offers[item]!.partnerCode,
      wholesaleUsdE4: offers[item]!.wholesaleUsdE4,
      price: priceIn(plan.prices, currency),
      lang: request.lang,
      termsVersion: TERMS_VERSION,
      consentedAt,
      topUpOf: null,
      tripStartsOn: request.tripStartsOn ?? null,
      exchangeOf: null,
      traveller: travellers?.[i] && { name: travellers[i].name, email: travellers[i].email ?? null },
    })),
  );
  const opened = await carts.openCart(caller.uid, request.lang, orders);
  const closing = checkouts.close(opened.closedCheckouts);
  let { cart, orders: rows } = opened;
  if (!cart.checkout_url) {
    try {
      const session = await createCheckoutSession(stripe, {
        paysFor: { cartId: cart.id },
        email: caller.email,
        lang: request.lang,
        lines: items.map(({ plan, quantity }) => ({
          productName: productName(plan.destination.names[request.lang], soldPlan(plan), request.lang),
          amountMinor: plan.prices[currency],
          quantity,
        })),
        currency: cart.currency,
        successUrl: `${siteUrl}${localizePath(request.lang, '/payment-success')}?cart=${cart.id}`,
        cancelUrl: `${siteUrl}${localizePath(request.lang, '/cart')}`,
        // As for one order (place-order.ts): it outlives the time the cart is reused.
        expiresAt: new Date(Date.now() + OPEN_ORDER_LIFETIME_MS + 60_000),
      });
      const attached = await carts.attachCheckout(cart.id, session.id, session.url);
      ({ cart, orders: rows } = attached);
      // Another request of this buyer replaced the cart meanwhile: its page closes at once.
      if (!attached.open) await checkouts.close([cart.checkout_session_id!]);
    } catch (error) {
      console.error('stripe: checkout session failed', `cart ${cart.id}`, error instanceof Error ? error.message : error);
      await closing;
      // The cart stays open: pressing again reuses it.
      return { outcome: 'payment_unavailable' };
    }
  }
  await closing;
  return { outcome: 'placed', cart, orders: rows, checkoutUrl: cart.checkout_url!, created: opened.created };
}

import type Stripe from 'stripe';
import type { Currency } from '../../config/currencies.ts';
import type { Price, Snapshot } from '../../catalogue/schema.ts';
import { TERMS_VERSION, type CreateOrderRequest } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { formatDataAmount, formatValidity } from '../../lib/format.ts';
import type { Caller } from '../auth.types.ts';
import { exchangeRefusal, type ExchangeRefusal } from '../esims/exchange.ts';
import type { EsimStore } from '../esims/store.types.ts';
import type { DestinationOf } from '../esims/view.ts';
import type { UserLimiter } from '../limits.types.ts';
import { choosePartner } from './partner-choice.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import { createCheckoutSession } from '../payments/stripe.ts';
import { esimOfTravellerToken } from '../travellers/links.ts';
import { priceIn } from '../../pricing/price-in.ts';
import { soldPlan, type SellablePlan } from './plans.ts';
import type { SalesPauseCache } from './sales-pause.types.ts';
import { OPEN_ORDER_LIFETIME_MS } from './store.ts';
import type { OrderRow, OrderStore, OrderWithPayment, SoldPlan } from './store.types.ts';
import { isTopUpId, soldTopUp, topUpsOf, type NoTopUps } from './top-ups.ts';

/** Automatic top-ups as checkout turns them on (issue 49, auto-top-ups/checkout.ts): the card saved by the payment itself. */
export interface CheckoutAutoTopUps {
  /** The buyer's Customer at Stripe (made the first time): the payment page saves the card on it. */
  customerFor(caller: { uid: string; email: string | null }): Promise<string>;
  /** The consent ticked for the order's eSIM (its id is the order's), in the page's words: the cheapest top-up offered then, within the limits. */
  record(
    order: Pick<OrderRow, 'id' | 'uid' | 'currency'>,
    lang: Locale,
    choice: NonNullable<CreateOrderRequest['autoTopUp']>,
  ): Promise<void>;
}

/** What one order sells, priced now: a catalogue plan or one of the partner's top-ups of an eSIM. */
interface Sale {
  plan: SoldPlan;
  destination: string;
  /** In the order's language, for the payment page. */
  destinationName: string;
  /** The partner it is ordered from: a top-up's at its eSIM's. */
  partner: string;
  /** The partner's package: a plan's, or the top-up's own code. */
  partnerCode: string;
  wholesaleUsdE4: number;
  price: Price;
}

export interface PlaceOrderDeps {
  stripe: Stripe;
  store: OrderStore;
  esims: Pick<EsimStore, 'ownedOne' | 'ofTravellerLink'>;
  plans: ReadonlyMap<string, SellablePlan>;
  /** The snapshot's rates, which top-ups are priced on as the plans are. */
  catalogue: Pick<Snapshot, 'exchangeRates'>;
  destination: DestinationOf;
  partners: Partners;
  limits: Pick<UserLimiter, 'take' | 'inStatement'>;
  /** Whether sales are paused, kept in memory between orders (sales-pause.ts). */
  salesPause: SalesPauseCache;
  checkouts: Pick<CheckoutExpiry, 'close'>;
  /** Automatic top-ups ticked at checkout (issue 49): the consent stored, the card saved by the payment. */
  checkoutAutoTopUps: CheckoutAutoTopUps;
  /** Where the pages live: the payment page returns there (no trailing slash). */
  siteUrl: string;
}

/** How placing an order ended: POST /orders answers each with its own status. */
export type PlaceOrderResult =
  /** The order open with its payment page; `created` false when it is the caller's same open order again. */
  | { outcome: 'placed'; order: OrderWithPayment; checkoutUrl: string; created: boolean; paymentProviderMs: number }
  /** Out of balance at the partner, or paused by an operator: nothing charged. */
  | { outcome: 'sales_paused' }
  /** The caller's orders ran out for now. */
  | { outcome: 'too_many_attempts'; retryAfterSeconds: number }
  /** A top-up of an eSIM that is not the caller's (or does not exist). */
  | { outcome: 'no_such_esim' }
  | { outcome: 'unknown_plan' }
  | { outcome: 'unknown_top_up' }
  /** The eSIM gets no top-ups now. */
  | { outcome: 'no_top_ups'; why: NoTopUps }
  /** The eSIM named to exchange cannot be exchanged for this plan (esims/exchange.ts): no order. */
  | { outcome: 'not_exchangeable'; why: ExchangeRefusal }
  /** The price the page showed is not the price now: no order. */
  | { outcome: 'price_changed'; price: Price }
  /** Stripe could not be reached: the order stays open, and pressing again reuses it. */
  | { outcome: 'payment_unavailable' };

/** A plan's line on the payment page, in the buyer's language: "Japan: 5 GB, 30 days". */
export function productName(destinationName: string, plan: SoldPlan, lang: Locale): string {
  return `${destinationName}: ${formatDataAmount(plan.metadata.dataAmount, lang)}, ${formatValidity(plan.validity, plan.validityUnit, lang)}`;
}

/**
 * Places the caller's order (DESIGN 6): a catalogue plan or one of the partner's top-ups of the
 * caller's eSIM, priced here again by the one pricing function whatever the page showed, opened
 * (or the caller's same open order reused) with its Stripe Checkout Session.
 */
export async function placeOrder(
  deps: PlaceOrderDeps,
  caller: Caller,
  request: CreateOrderRequest,
  /** A traveller's link token (issue 33): a top-up of the eSIM it names, paid by the caller. */
  travellerToken?: string,
): Promise<PlaceOrderResult> {
  const { stripe, store, esims, plans, destination, partners, limits, checkouts, siteUrl, salesPause } = deps;
  // Priced in the currency the buyer saw the price in (issue 34): each currency is its own price list.
  const currency = request.expectedPrice.currency as Currency;
  // Paused by the provider, or (below) no partner left out of balance for it: no money taken that
  // would only be refunded (orders/sales-pause.ts; answered from memory in the usual case).
  const pause = await salesPause.paused();
  if (pause.shop) return { outcome: 'sales_paused' };
  // Each order may open a Checkout Session: a few a minute and a few dozen an hour per user (orders
  // and top-ups alike). A plan's order is counted in the statement that opens it (one round trip,
  // issue 31), once it is known to be one (in memory); a top-up's before the partner is asked.
  if (request.topUpOf) {
    const wait = await limits.take('orders', caller.uid);
    if (wait !== undefined) return { outcome: 'too_many_attempts', retryAfterSeconds: wait };
  }
  // What is sold: a catalogue plan, or one of the partner's top-ups of the caller's eSIM, each
  // priced here again by the one pricing function, whatever the page showed.
  let sale: Sale;
  if (request.topUpOf) {
    // A top-up: the caller's own eSIM (or the one their traveller's link names), of a plan that can be
    // topped up, on a device and still valid, and one of the partner's top-ups of it as the partner lists them now.
    const owned =
      (await esims.ownedOne(caller.uid, request.topUpOf)) ?? (await esimOfTravellerToken(esims, travellerToken, request.topUpOf));
    if (!owned) return { outcome: 'no_such_esim' };
    // Only the eSIM's own partner can apply its top-up.
    if (owned.esim && pause.partners.includes(owned.esim.partner)) return { outcome: 'sales_paused' };
    // An id no top-up can have is refused before the partner is asked.
    const topUps = await topUpsOf(owned, partners, { currency, rates: deps.catalogue.exchangeRates.applied }, async () =>
      isTopUpId(request.planId) ? undefined : ('unknown_top_up' as const),
    );
    if ('held' in topUps) return { outcome: topUps.held };
    if ('none' in topUps) return { outcome: 'no_top_ups', why: topUps.none };
    const offer = topUps.offers.find((o) => o.id === request.planId);
    if (!offer) return { outcome: 'unknown_top_up' };
    const { pkg } = offer;
    sale = {
      plan: soldTopUp(offer),
      destination: owned.order.destination,
      destinationName: destination(owned.order.destination, request.lang).name,
      partner: owned.esim!.partner,
      partnerCode: pkg.partnerCode,
      wholesaleUsdE4: pkg.wholesaleUsdE4,
      price: offer.price,
    };
  } else {
    const plan = plans.get(request.planId);
    if (!plan) return { outcome: 'unknown_plan' };
    const price = priceIn(plan.prices, currency);
    // From its partner of the moment: the cheapest healthy one whose margin holds at this price (partner-choice.ts).
    const offer = choosePartner(plan.pkg.offers, price, partners, deps.catalogue.exchangeRates.applied, pause.partners);
    if (!offer) return { outcome: 'sales_paused' };
    sale = {
      plan: soldPlan(plan),
      destination: plan.destination.code,
      destinationName: plan.destination.names[request.lang],
      partner: offer.partner,
      partnerCode: offer.partnerCode,
      wholesaleUsdE4: offer.wholesaleUsdE4,
      price,
    };
  }
  if (sale.price.amountMinor !== request.expectedPrice.amountMinor || sale.price.currency !== request.expectedPrice.currency) {
    return { outcome: 'price_changed', price: sale.price };
  }
  // Automatic top-ups of the new eSIM: only a plan the partner tops up.
  if (request.autoTopUp && (request.topUpOf || !sale.plan.topUp)) return { outcome: 'no_top_ups', why: 'plan_cannot_top_up' };
  // An exchange of the caller's unused eSIM for the destination they meant: by the refund rules, checked again at delivery.
  const exchangeOf = request.exchangeOf && !request.topUpOf ? request.exchangeOf : null;
  if (exchangeOf) {
    const why = exchangeRefusal(
      await esims.ownedOne(caller.uid, exchangeOf),
      sale.destination,
      await store.exchangePaid(exchangeOf),
      new Date(),
    );
    if (why) return { outcome: 'not_exchangeable', why };
  }

  const newOrder = {
    uid: caller.uid,
    email: caller.email,
    emailVerified: caller.emailVerified,
    plan: sale.plan,
    destination: sale.destination,
    partner: sale.partner,
    partnerCode: sale.partnerCode,
    wholesaleUsdE4: sale.wholesaleUsdE4,
    price: sale.price,
    lang: request.lang,
    termsVersion: TERMS_VERSION,
    consentedAt: new Date(),
    topUpOf: request.topUpOf ?? null,
    // A top-up's eSIM is already where it is going.
    tripStartsOn: request.topUpOf ? null : (request.tripStartsOn ?? null),
    exchangeOf,
    savesCard: Boolean(request.autoTopUp),
  };
  const opened = request.topUpOf
    ? await store.openOrder(newOrder)
    : await store.openOrder(newOrder, undefined, (first) => limits.inStatement('orders', caller.uid, first));
  if ('retryAfterSeconds' in opened) return { outcome: 'too_many_attempts', retryAfterSeconds: opened.retryAfterSeconds };
  const { order, created, closedCheckouts } = opened;
  // The payment page of the order this one replaced closes while the new one opens (never rejects:
  // what fails stays queued for the reconcile job).
  const closing = checkouts.close(closedCheckouts);

  let withCheckout = order;
  let paymentProviderMs = 0;
  if (request.autoTopUp) await deps.checkoutAutoTopUps.record(order, request.lang, request.autoTopUp); // the tick's consent, on the eSIM
  if (!order.checkout_url) {
    const asked = performance.now();
    try {
      const lang = request.lang;
      const session = await createCheckoutSession(stripe, {
        // Automatic top-ups ticked: the payment saves the card on the buyer's Customer.
        saveCardFor: request.autoTopUp && (await deps.checkoutAutoTopUps.customerFor(caller)),
        paysFor: { orderId: order.id },
        email: caller.email,
        lang,
        lines: [{ productName: productName(sale.destinationName, sale.plan, lang), amountMinor: order.amount_minor, quantity: 1 }],
        currency: order.currency,
        successUrl: `${siteUrl}${localizePath(lang, '/payment-success')}?order=${order.id}`,
        cancelUrl: `${siteUrl}${localizePath(lang, '/checkout')}?plan=${encodeURIComponent(sale.plan.id)}${request.topUpOf ? `&topUp=${request.topUpOf}` : ''}&cancelled=1`,
        // Counted from now: Stripe takes 30 min to 24 h after the session's creation, and this may be
        // a retry minutes after the order was opened. It outlives the order's own open time (reused at
        // most OPEN_ORDER_LIFETIME_MS after its creation), so a reused order never shows a dead page.
        expiresAt: new Date(Date.now() + OPEN_ORDER_LIFETIME_MS + 60_000),
      });
      paymentProviderMs = performance.now() - asked;
      withCheckout = await store.attachCheckout(order.id, session.id, session.url);
      // Another request of this buyer replaced the order meanwhile: its page closes at once.
      if (withCheckout.state !== 'pending_payment') await checkouts.close([withCheckout.checkout_session_id!]);
    } catch (error) {
      console.error('stripe: checkout session failed', order.id, error instanceof Error ? error.message : error);
      await closing;
      // The order stays open: pressing again reuses it and the same idempotency key.
      return { outcome: 'payment_unavailable' };
    }
  }
  await closing;
  // An open order has no payment yet.
  const saved = { ...withCheckout, paid_at: null, method_type: null, card_brand: null, card_last4: null, receipt_url: null };
  return { outcome: 'placed', order: saved, checkoutUrl: withCheckout.checkout_url!, created, paymentProviderMs };
}

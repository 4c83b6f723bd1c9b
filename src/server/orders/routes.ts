import { Hono, type MiddlewareHandler } from 'hono';
import type Stripe from 'stripe';
import type { Price } from '../../catalogue/schema.ts';
import { zValidator } from '@hono/zod-validator';
import { CreateOrderRequest, ERROR_CODES, ORDER_WAIT_MAX_MS, OrderQuery, TERMS_VERSION } from '../../contract/shop-api.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatValidity } from '../../lib/format.ts';
import type { Alerts } from '../alerts/alerts.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.ts';
import type { EsimStore } from '../esims/store.ts';
import { esimView, type DestinationOf } from '../esims/view.ts';
import { fail } from '../http.ts';
import type { UserLimiter } from '../limits.ts';
import type { EsimPartner } from '../partner/partner.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.ts';
import { createCheckoutSession } from '../payments/stripe.ts';
import { isUuid } from '../uuid.ts';
import { jsonBody, langQuery } from '../validation.ts';
import type { SellablePlan } from './plans.ts';
import { awaitsChange, createOrderWaits, untilChanged } from './order-changes.ts';
import { salesPaused } from './sales-pause.ts';
import { OPEN_ORDER_LIFETIME_MS, type OrderStore, type OrderWithPayment, type SoldPlan } from './store.ts';
import { noTopUps } from './top-up-answers.ts';
import { isTopUpId, topUpsOf } from './top-ups.ts';
import { orderView } from './view.ts';

/** What one order sells, priced now: a catalogue plan or one of the partner's top-ups of an eSIM. */
interface Sale {
  plan: SoldPlan;
  destination: string;
  /** In the order's language, for the payment page. */
  destinationName: string;
  /** The partner's package: a plan's, or the top-up's own code. */
  partnerCode: string;
  wholesaleUsdE4: number;
  price: Price;
}

/** `?lang=xx&waitMs=n` of GET /orders/{id} (OrderQuery). */
const orderQuery = zValidator('query', OrderQuery, (result, c) =>
  result.success
    ? undefined
    : fail(c, 400, ERROR_CODES.badRequest, `lang must be one of the site languages; waitMs from 0 to ${ORDER_WAIT_MAX_MS}.`),
);

export interface OrderRoutesDeps {
  auth: MiddlewareHandler<BuyerEnv>;
  db: Db;
  stripe: Stripe;
  store: OrderStore;
  esims: EsimStore;
  plans: ReadonlyMap<string, SellablePlan>;
  destination: DestinationOf;
  partner: EsimPartner;
  limits: UserLimiter;
  checkouts: CheckoutExpiry;
  alerts: Pick<Alerts, 'seen'>;
  /** Where the pages live: the payment page returns there (no trailing slash). */
  siteUrl: string;
}

/**
 * The caller's orders (DESIGN 6), mounted at /orders: POST / opens an order (a catalogue plan or a
 * top-up) with its payment page, GET / lists them, GET /:id reads one. Only the owner sees an order.
 */
export function orderRoutes(deps: OrderRoutesDeps) {
  const { db, stripe, store, esims, plans, destination, partner, limits, checkouts, siteUrl, alerts } = deps;

  const view = (row: OrderWithPayment, lang: Locale) => orderView(row, lang, destination);
  const waits = createOrderWaits(db);

  return new Hono<BuyerEnv>()
    .use('*', deps.auth)
    .post('/', ...jsonBody(CreateOrderRequest), async (c) => {
      const caller = c.get('caller');
      const request = c.req.valid('json');
      // Each order may open a Checkout Session: a few a minute and a few dozen an hour per user (orders and top-ups alike).
      // Out of balance at the partner: no money taken that would only be refunded (orders/sales-pause.ts).
      if (await salesPaused(db))
        return fail(c, 503, ERROR_CODES.salesPaused, 'Orders are paused for a while: nothing was charged. Please try again later.');
      const refused = await limits.refuse(c, 'orders', caller.uid);
      if (refused) return refused;
      // What is sold: a catalogue plan, or one of the partner's top-ups of the caller's eSIM, each
      // priced here again by the one pricing function, whatever the page showed.
      let sale: Sale;
      if (request.topUpOf) {
        // A top-up: the caller's own eSIM, of a plan that can be topped up, on a device and still
        // valid, and one of the partner's top-ups of it as the partner lists them now.
        const owned = await esims.ownedOne(caller.uid, request.topUpOf);
        if (!owned) return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
        const unknownTopUp = () => fail(c, 404, ERROR_CODES.unknownPlan, 'No top-up of this eSIM has this id.');
        // An id no top-up can have is refused before the partner is asked.
        const topUps = await topUpsOf(owned, partner, async () => (isTopUpId(request.planId) ? undefined : unknownTopUp()));
        if ('held' in topUps) return topUps.held;
        if ('none' in topUps) return noTopUps(c, topUps.none);
        const offer = topUps.offers.find((o) => o.id === request.planId);
        if (!offer) return unknownTopUp();
        const { pkg } = offer;
        sale = {
          plan: {
            id: offer.id,
            metadata: { dataAmount: pkg.dataAmount },
            validity: pkg.validity,
            validityUnit: pkg.validityUnit,
            supportedCountries: pkg.countries,
          },
          destination: owned.order.destination,
          destinationName: destination(owned.order.destination, request.lang).name,
          partnerCode: pkg.partnerCode,
          wholesaleUsdE4: pkg.wholesaleUsdE4,
          price: offer.price,
        };
      } else {
        const plan = plans.get(request.planId);
        if (!plan) return fail(c, 404, ERROR_CODES.unknownPlan, 'No plan has this id.');
        const { pkg } = plan;
        sale = {
          plan: {
            id: pkg.id,
            metadata: pkg.metadata,
            validity: pkg.validity,
            validityUnit: pkg.validityUnit,
            supportedCountries: pkg.supportedCountries,
            topUp: pkg.facts.topUp,
          },
          destination: plan.destination.code,
          destinationName: plan.destination.names[request.lang],
          partnerCode: pkg.partnerCode,
          wholesaleUsdE4: pkg.wholesaleUsdE4,
          price: plan.price,
        };
      }
      if (sale.price.amountMinor !== request.expectedPrice.amountMinor || sale.price.currency !== request.expectedPrice.currency) {
        return fail(c, 409, ERROR_CODES.priceChanged, 'The price of this plan has changed.', { price: sale.price });
      }

      const { order, created, closedCheckouts } = await store.openOrder({
        uid: caller.uid,
        email: caller.email,
        emailVerified: caller.emailVerified,
        plan: sale.plan,
        destination: sale.destination,
        partnerCode: sale.partnerCode,
        wholesaleUsdE4: sale.wholesaleUsdE4,
        price: sale.price,
        lang: request.lang,
        termsVersion: TERMS_VERSION,
        consentedAt: new Date(),
        topUpOf: request.topUpOf ?? null,
      });
      // The payment page of the order this one replaced closes while the new one opens (never rejects:
      // what fails stays queued for the reconcile job).
      const closing = checkouts.close(closedCheckouts);

      let withCheckout = order;
      let paymentProviderMs = 0;
      if (!order.checkout_url) {
        const asked = performance.now();
        try {
          const lang = request.lang;
          const session = await createCheckoutSession(stripe, {
            orderId: order.id,
            email: caller.email,
            lang,
            productName: `${sale.destinationName}: ${formatDataAmount(sale.plan.metadata.dataAmount, lang)}, ${formatValidity(sale.plan.validity, sale.plan.validityUnit, lang)}`,
            amountMinor: order.amount_minor,
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
          return fail(c, 502, ERROR_CODES.paymentUnavailable, 'The payment provider could not be reached. Please try again.');
        }
      }
      await closing;
      // An open order has no payment yet.
      const saved = { ...withCheckout, paid_at: null, method_type: null, card_brand: null, card_last4: null, receipt_url: null };
      // Our own time apart from the payment provider's, for monitoring and the benchmark (DESIGN 3).
      c.header('Server-Timing', `stripe;dur=${paymentProviderMs.toFixed(1)}`);
      return c.json({ order: view(saved, request.lang), checkoutUrl: withCheckout.checkout_url! }, created ? 201 : 200);
    })
    .get('/', langQuery, async (c) => {
      const { lang } = c.req.valid('query');
      const rows = await store.listOwnedBy(c.get('caller').uid);
      return c.json({ orders: rows.map((row) => view(row, lang)) });
    })
    .get('/:id', orderQuery, async (c) => {
      const { lang, waitMs } = c.req.valid('query');
      const id = c.req.param('id');
      const uid = c.get('caller').uid;
      // Someone else's order and an unknown one answer alike.
      if (!isUuid(id)) return fail(c, 404, ERROR_CODES.notFound, 'No such order.');
      // A long-poll takes one of the caller's few waits, listening before the order is read so
      // that a change made meanwhile is not missed.
      const until = Date.now() + waitMs;
      const wait = waitMs > 0 ? await waits.open(uid, id, waitMs) : undefined;
      if (wait && 'retryAfterSeconds' in wait) {
        c.header('Retry-After', String(wait.retryAfterSeconds));
        return fail(
          c,
          429,
          ERROR_CODES.tooManyRequests,
          `Too many pages are waiting for orders. Please wait ${wait.retryAfterSeconds} seconds.`,
        );
      }
      let row;
      try {
        row = await store.ownedBy(uid, id);
        if (!row) return fail(c, 404, ERROR_CODES.notFound, 'No such order.');
        if (wait && (await awaitsChange(db, row))) {
          await untilChanged(db, row, wait, until, c.req.raw.signal);
          row = (await store.ownedBy(uid, id)) ?? row;
        }
      } finally {
        wait?.close();
      }
      // Once paid, the eSIM it bought or topped up: the success page shows its install codes.
      const owned = row.state === 'pending_payment' ? undefined : await esims.ownedOne(uid, row.top_up_of ?? row.id);
      // The payment page shows the delivered eSIM: its buyer needs no 'eSIM ready' push.
      await alerts.seen([row]);
      const esim = owned ? await esimView(owned.order, owned.esim, destination(owned.order.destination, lang)) : null;
      return c.json({ ...view(row, lang), esim });
    });
}

import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { routePath } from 'hono/route';
import type Stripe from 'stripe';
import { createCatalogueApi } from '../catalogue/api.ts';
import type { Price, Snapshot } from '../catalogue/schema.ts';
import { formatDataAmount, formatValidity } from '../lib/format.ts';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../i18n/locales.ts';
import { localizePath } from '../i18n/paths.ts';
import { RECENT_SIGN_IN_MS } from '../config/constants.ts';
import { SITE_NAME } from '../config/site.ts';
import { CreateOrderRequest, ERROR_CODES, TERMS_VERSION, type OrderView } from '../contract/shop-api.ts';
import type { Accounts, Caller } from './auth.ts';
import type { Db } from './db/db.ts';
import { createEsimRoutes } from './esims/routes.ts';
import { createEsimStore } from './esims/store.ts';
import { canTopUp, esimStatus, esimView, topUpSupported } from './esims/view.ts';
import { createFulfilment, type Fulfilment, type FulfilmentOptions } from './fulfilment/fulfilment.ts';
import { handlePartnerNotification } from './fulfilment/partner-webhook.ts';
import type { Mailer } from './mail/mailer.ts';
import { destinationNames, sellablePlans } from './orders/plans.ts';
import { createOrderStore, OPEN_ORDER_LIFETIME_MS, orderNumber, type OrderWithPayment, type SoldPlan } from './orders/store.ts';
import { isTopUpId, topUpOffers } from './orders/top-ups.ts';
import type { EsimPartner } from './partner/partner.ts';
import { parsePartnerNotification } from './partner/esim-access/notifications.ts';
import { createCheckoutExpiry } from './payments/checkout-expiry.ts';
import { createCheckoutSession } from './payments/stripe.ts';
import { resumeSalesIfFunded, salesPaused } from './orders/sales-pause.ts';
import { syncCheckouts } from './payments/checkout-sync.ts';
import { refundMismatches } from './payments/mismatches.ts';
import { handleStripeEvent } from './payments/stripe-webhook.ts';
import { bearerToken, fail, sameSecret } from './http.ts';
import { createUserLimits, USER_LIMITS, type UserLimits } from './limits.ts';
import { isUuid } from './uuid.ts';

export interface ShopApiOptions {
  catalogue: Snapshot;
  db: Db;
  stripe: Stripe;
  stripeWebhookSecret: string;
  /** Who calls (Firebase ID tokens), and deleting an account with the shop's data. */
  accounts: Accounts;
  /** Where the pages live: the payment page returns there. */
  siteUrl: string;
  /** '/api' when mounted behind Hosting's rewrite. */
  basePath?: string;
  /** Origins whose pages may call the order routes from another origin (locally the site and the API have different ports). */
  allowedOrigins?: readonly string[];
  /** Proxies in front of the API that append to X-Forwarded-For: POST /csp-reports limits each client by its address (src/catalogue/api.ts). */
  trustedProxies?: number | undefined;
  /** The eSIM partner (eSIM Access; its stand-in locally). */
  partner: EsimPartner;
  mailer: Mailer;
  /** The secret path segment of the partner's webhook URL (its notifications are not signed). */
  partnerWebhookToken: string;
  /** The scheduler's bearer token for POST /jobs/reconcile; unset: the route answers 404. */
  reconcileToken?: string | undefined;
  /** Per-user limits of the costly routes (src/config/constants.ts; a test may raise them). */
  limits?: Partial<UserLimits>;
  /** Retry timing of deliveries (tests make it short). */
  delivery?: Pick<FulfilmentOptions, 'retryDelaysMs' | 'allocationPollMs' | 'allocationLimitMs' | 'leaseMs' | 'refundPollMs'>;
}

/**
 * The fetch handler, the delivery it drives (for a clean stop) and the reconcile job (for the timer:
 * stuck orders, and closed orders' payment pages still open at Stripe).
 */
export type ShopApi = ((request: Request, connection?: object) => Promise<Response>) & { fulfilment: Fulfilment; reconcile: () => Promise<number> };

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

const MAX_ORDER_BODY_BYTES = 16 * 1024;
const MAX_WEBHOOK_BODY_BYTES = 512 * 1024;
const MAX_PARTNER_BODY_BYTES = 64 * 1024;

/**
 * The shop API (DESIGN 6): one web-standard fetch handler for the catalogue, orders, the Stripe
 * webhook and the account. Every failure answers `{ error: { code, message } }`; user input never
 * causes a 500. Routes that touch orders need a Firebase ID token and see only the caller's orders.
 */
export function createShopApi(options: ShopApiOptions): ShopApi {
  const { db, stripe, catalogue } = options;
  const store = createOrderStore(db);
  const esims = createEsimStore(db);
  const plans = sellablePlans(catalogue);
  const destination = destinationNames(catalogue);
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const fulfilment = createFulfilment({
    db,
    partner: options.partner,
    stripe,
    mailer: options.mailer,
    siteUrl,
    siteName: SITE_NAME,
    destinationName: (code, lang) => destination(code, lang).name,
    ...options.delivery,
  });
  const allowedOrigins = new Set(options.allowedOrigins ?? [new URL(siteUrl).origin]);
  const catalogueApi = createCatalogueApi(catalogue, { basePath: options.basePath ?? '', trustedProxies: options.trustedProxies });
  const limits = createUserLimits(db, { ...USER_LIMITS, ...options.limits });
  const checkouts = createCheckoutExpiry(db, stripe);
  const reconcile = async () => {
    // A paused shop sells again once the partner's balance covers what failed (asked at most once a minute).
    await resumeSalesIfFunded(db, options.partner).catch((error: unknown) => console.error('sales pause: balance check failed', error instanceof Error ? error.message : error));
    // Payments whose webhook never came: read at Stripe, then delivered like any other.
    const paid = await syncCheckouts(db, stripe, store);
    for (const id of paid) await fulfilment.run(id);
    return paid.length + (await fulfilment.reconcile()) + (await checkouts.closeDue()) + (await refundMismatches(db, stripe));
  };

  const app = new Hono<{ Variables: { caller: Caller } }>().basePath(options.basePath || '/');

  const buyerRoutes = ['/orders', '/orders/*', '/me', '/esims', '/esims/*'];
  for (const path of buyerRoutes) {
    app.use(
      path,
      cors({
        origin: (origin) => (allowedOrigins.has(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'DELETE'],
        allowHeaders: ['Authorization', 'Content-Type'],
        // A 429's wait, for the pages on another origin (locally the site and the API have different ports).
        exposeHeaders: ['Retry-After'],
        maxAge: 600,
      }),
      async (c, next) => {
        const token = bearerToken(c);
        if (!token) return fail(c, 401, ERROR_CODES.unauthorized, 'Sign in: an Authorization: Bearer <Firebase ID token> header is required.');
        try {
          c.set('caller', await options.accounts.verifyIdToken(token));
        } catch {
          return fail(c, 401, ERROR_CODES.unauthorized, 'The ID token is not valid or has expired.');
        }
        await next();
        c.header('Cache-Control', 'no-store');
        return undefined;
      },
    );
  }

  const langOf = (c: Context): Locale | undefined => {
    const lang = c.req.query('lang') ?? DEFAULT_LOCALE;
    return isLocale(lang) ? lang : undefined;
  };

  const view = (row: OrderWithPayment, lang: Locale): Omit<OrderView, 'esim'> => ({
    id: row.id,
    number: orderNumber(row),
    state: row.state,
    kind: row.kind,
    esimId: row.top_up_of ?? row.id,
    plan: row.plan,
    destination: destination(row.destination, lang),
    total: { amountMinor: row.amount_minor, currency: row.currency },
    createdAt: row.created_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
    paymentMethod: row.method_type
      ? { type: row.method_type, ...(row.card_brand && { brand: row.card_brand }), ...(row.card_last4 && { last4: row.card_last4 }) }
      : null,
    receiptUrl: row.receipt_url,
    checkoutUrl: row.state === 'pending_payment' ? row.checkout_url : null,
  });

  app.post('/orders', bodyLimit({ maxSize: MAX_ORDER_BODY_BYTES, onError: (c) => fail(c, 413, 'body_too_large', 'The order is too large.') }), async (c) => {
    const caller = c.get('caller');
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return fail(c, 400, ERROR_CODES.badRequest, 'The body must be JSON.');
    }
    const parsed = CreateOrderRequest.safeParse(body);
    if (!parsed.success) {
      // Field paths only: the message never echoes what was sent.
      const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(body)'))].slice(0, 5);
      return fail(c, 400, ERROR_CODES.badRequest, `Check these fields: ${fields.join(', ')}.`);
    }
    const request = parsed.data;
    // Each order may open a Checkout Session: a few a minute and a few dozen an hour per user (orders and top-ups alike).
    // Out of balance at the partner: no money taken that would only be refunded (orders/sales-pause.ts).
    if (await salesPaused(db)) return fail(c, 503, ERROR_CODES.salesPaused, 'Orders are paused for a while: nothing was charged. Please try again later.');
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
      if (!topUpSupported(owned.order)) return fail(c, 409, ERROR_CODES.cannotTopUp, 'This plan cannot be topped up.');
      if (!canTopUp(esimStatus(owned.order, owned.esim, new Date()))) {
        return fail(c, 409, ERROR_CODES.cannotTopUp, 'This eSIM cannot be topped up now: it is not installed, or no longer valid.');
      }
      if (!isTopUpId(request.planId)) return fail(c, 404, ERROR_CODES.unknownPlan, 'No top-up of this eSIM has this id.');
      let offers;
      try {
        offers = topUpOffers(await options.partner.listTopUps(owned.esim!.iccid));
      } catch (error) {
        console.error('orders: top-ups not listed', error instanceof Error ? error.message : error);
        return fail(c, 503, ERROR_CODES.partnerUnavailable, 'The eSIM provider could not be reached. Please try again.');
      }
      const offer = offers.find((o) => o.id === request.planId);
      if (!offer) return fail(c, 404, ERROR_CODES.unknownPlan, 'No top-up of this eSIM has this id.');
      const { pkg } = offer;
      sale = {
        plan: { id: offer.id, metadata: { dataAmount: pkg.dataAmount }, validity: pkg.validity, validityUnit: pkg.validityUnit, supportedCountries: pkg.countries },
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
        plan: { id: pkg.id, metadata: pkg.metadata, validity: pkg.validity, validityUnit: pkg.validityUnit, supportedCountries: pkg.supportedCountries, topUp: pkg.topUp },
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
  });

  app.get('/orders', async (c) => {
    const lang = langOf(c);
    if (!lang) return fail(c, 400, ERROR_CODES.badRequest, 'lang must be one of the site languages.');
    const rows = await store.listOwnedBy(c.get('caller').uid);
    return c.json({ orders: rows.map((row) => view(row, lang)) });
  });

  app.get('/orders/:id', async (c) => {
    const lang = langOf(c);
    if (!lang) return fail(c, 400, ERROR_CODES.badRequest, 'lang must be one of the site languages.');
    const id = c.req.param('id');
    // Someone else's order and an unknown one answer alike.
    const uid = c.get('caller').uid;
    const row = isUuid(id) ? await store.ownedBy(uid, id) : undefined;
    if (!row) return fail(c, 404, ERROR_CODES.notFound, 'No such order.');
    // Once paid, the eSIM it bought or topped up: the success page shows its install codes.
    const owned = row.state === 'pending_payment' ? undefined : await esims.ownedOne(uid, row.top_up_of ?? row.id);
    const esim = owned ? await esimView(owned.order, owned.esim, destination(owned.order.destination, lang)) : null;
    return c.json({ ...view(row, lang), esim });
  });

  // Irreversible: a token that is not revoked, of a sign-in within minutes (a stolen hour-old token
  // cannot delete anyone). The account goes in the same transaction as the shop's data: if Firebase
  // refuses, nothing is detached, and the buyer can try again.
  app.delete('/me', async (c) => {
    let caller: Caller;
    try {
      caller = await options.accounts.verifyIdToken(bearerToken(c)!, { checkRevoked: true });
    } catch {
      return fail(c, 401, ERROR_CODES.unauthorized, 'The ID token is not valid, was revoked or has expired.');
    }
    if (Date.now() - caller.signedInAt.getTime() > RECENT_SIGN_IN_MS) {
      return fail(c, 403, ERROR_CODES.recentLoginRequired, 'Sign in again to delete the account.');
    }
    let cancelledCheckouts: string[];
    try {
      ({ cancelledCheckouts } = await store.forgetBuyer(caller.uid, () => options.accounts.deleteAccount(caller.uid)));
    } catch (error) {
      console.error('account deletion failed', error instanceof Error ? error.message : error);
      return fail(c, 502, ERROR_CODES.accountNotDeleted, 'The account could not be deleted. Please try again.');
    }
    // Close the payment pages of cancelled orders, so nobody pays for an order without a buyer
    // (queued with the cancellation: the reconcile job closes those Stripe could not be asked about now).
    await checkouts.close(cancelledCheckouts);
    return c.body(null, 204);
  });

  app.post('/webhooks/stripe', bodyLimit({ maxSize: MAX_WEBHOOK_BODY_BYTES, onError: (c) => fail(c, 413, 'body_too_large', 'The event is too large.') }), async (c) => {
    const signature = c.req.header('stripe-signature');
    const payload = await c.req.text();
    let event: Stripe.Event;
    try {
      if (!signature) throw new Error('no signature');
      event = stripe.webhooks.constructEvent(payload, signature, options.stripeWebhookSecret);
    } catch {
      return fail(c, 400, 'bad_signature', 'The Stripe-Signature header does not verify.');
    }
    const { outcome, orderId } = await handleStripeEvent(stripe, store, event);
    // A paid order is delivered now, and a settled refund carried through, not when the job next
    // looks (the job catches it if this process stops).
    if (outcome === 'moved' && orderId) void fulfilment.run(orderId);
    // Money for no order it matches goes back now (the reconcile job retries what fails).
    if (outcome === 'mismatch') await refundMismatches(db, stripe);
    return c.json({ received: true, outcome });
  });

  // The partner's notifications are not signed: a secret in the URL keeps strangers out, and each
  // one only makes us ask the partner (DESIGN 6). Answered at once; the work follows.
  app.post('/webhooks/partner/:token', bodyLimit({ maxSize: MAX_PARTNER_BODY_BYTES, onError: (c) => fail(c, 413, 'body_too_large', 'The notification is too large.') }), async (c) => {
    if (!sameSecret(c.req.param('token'), options.partnerWebhookToken)) return fail(c, 404, ERROR_CODES.notFound, 'Not found.');
    const notification = parsePartnerNotification(await c.req.json().catch(() => undefined));
    if (!notification) return fail(c, 400, ERROR_CODES.badRequest, 'Not a partner notification.');
    const outcome = await handlePartnerNotification({ db, store, esims, partner: options.partner, fulfilment }, notification);
    return c.json({ received: true, outcome });
  });

  app.post('/jobs/reconcile', async (c) => {
    const token = bearerToken(c);
    if (!options.reconcileToken || !token || !sameSecret(token, options.reconcileToken)) return fail(c, 404, ERROR_CODES.notFound, 'Not found.');
    return c.json({ handled: await reconcile() });
  });

  createEsimRoutes(app, { esims, destination, partner: options.partner, fulfilment, limits, langOf });

  // Everything else is the catalogue's (GET /regions, /countries, /packages, POST /csp-reports) or its JSON 404.
  app.all('*', (c) => catalogueApi(c.req.raw, c.env));

  app.onError((error, c) => {
    // The route's pattern, never the path: the partner webhook's path holds its secret token.
    console.error('shop-api', c.req.method, routePath(c), error);
    return fail(c, 500, 'internal_error', 'Something went wrong. Please try again.');
  });

  // The server's bindings (the socket) pass through: the CSP report limit tells clients apart by them.
  return Object.assign((request: Request, connection?: object) => Promise.resolve(app.fetch(request, connection)), { fulfilment, reconcile });
}

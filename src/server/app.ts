import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type Stripe from 'stripe';
import { createCatalogueApi } from '../catalogue/api.ts';
import type { Snapshot } from '../catalogue/schema.ts';
import { formatDataAmount, formatValidity } from '../features/package/plans.ts';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../i18n/locales.ts';
import { localizePath } from '../i18n/paths.ts';
import { CreateOrderRequest, ERROR_CODES, TERMS_VERSION, type OrderView } from '../shop/contract.ts';
import type { Caller, VerifyIdToken } from './auth.ts';
import type { Db } from './db/db.ts';
import { destinationNames, sellablePlans } from './orders/plans.ts';
import { createOrderStore, OPEN_ORDER_LIFETIME_MS, orderNumber, type OrderWithPayment } from './orders/store.ts';
import { createCheckoutSession } from './payments/stripe.ts';
import { handleStripeEvent } from './payments/stripe-webhook.ts';

export interface ShopApiOptions {
  catalogue: Snapshot;
  db: Db;
  stripe: Stripe;
  stripeWebhookSecret: string;
  verifyIdToken: VerifyIdToken;
  /** Where the pages live: the payment page returns there. */
  siteUrl: string;
  /** '/api' when mounted behind Hosting's rewrite. */
  basePath?: string;
  /** Origins whose pages may call the order routes from another origin (locally the site and the API have different ports). */
  allowedOrigins?: readonly string[];
}

export type ShopApi = (request: Request) => Promise<Response>;

const MAX_ORDER_BODY_BYTES = 16 * 1024;
const MAX_WEBHOOK_BODY_BYTES = 512 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string, extra: Record<string, unknown> = {}) =>
  c.json({ error: { code, message, ...extra } }, status, { 'Cache-Control': 'no-store' });

/**
 * The shop API (DESIGN 6): one web-standard fetch handler for the catalogue, orders, the Stripe
 * webhook and the account. Every failure answers `{ error: { code, message } }`; user input never
 * causes a 500. Routes that touch orders need a Firebase ID token and see only the caller's orders.
 */
export function createShopApi(options: ShopApiOptions): ShopApi {
  const { db, stripe, catalogue } = options;
  const store = createOrderStore(db);
  const plans = sellablePlans(catalogue);
  const destination = destinationNames(catalogue);
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const allowedOrigins = new Set(options.allowedOrigins ?? [new URL(siteUrl).origin]);
  const catalogueApi = createCatalogueApi(catalogue, { basePath: options.basePath ?? '' });

  const app = new Hono<{ Variables: { caller: Caller } }>().basePath(options.basePath || '/');

  const buyerRoutes = ['/orders', '/orders/*', '/me'];
  for (const path of buyerRoutes) {
    app.use(
      path,
      cors({
        origin: (origin) => (allowedOrigins.has(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'DELETE'],
        allowHeaders: ['Authorization', 'Content-Type'],
        maxAge: 600,
      }),
      async (c, next) => {
        const token = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
        if (!token) return fail(c, 401, ERROR_CODES.unauthorized, 'Sign in: an Authorization: Bearer <Firebase ID token> header is required.');
        try {
          c.set('caller', await options.verifyIdToken(token));
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

  const view = (row: OrderWithPayment, lang: Locale): OrderView => ({
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
    const plan = plans.get(request.planId);
    if (!plan) return fail(c, 404, ERROR_CODES.unknownPlan, 'No plan has this id.');
    if (plan.price.amountMinor !== request.expectedPrice.amountMinor || plan.price.currency !== request.expectedPrice.currency) {
      return fail(c, 409, ERROR_CODES.priceChanged, 'The price of this plan has changed.', { price: plan.price });
    }

    const { pkg } = plan;
    const { order, created } = await store.openOrder({
      uid: caller.uid,
      email: caller.email,
      plan: { id: pkg.id, metadata: pkg.metadata, validity: pkg.validity, validityUnit: pkg.validityUnit, supportedCountries: pkg.supportedCountries },
      destination: plan.destination.code,
      partnerCode: pkg.partnerCode,
      wholesaleUsdE4: pkg.wholesaleUsdE4,
      price: plan.price,
      lang: request.lang,
      termsVersion: TERMS_VERSION,
      consentedAt: new Date(),
    });

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
          productName: `${plan.destination.names[lang]}: ${formatDataAmount(pkg.metadata.dataAmount, lang)}, ${formatValidity(pkg.validity, pkg.validityUnit, lang)}`,
          amountMinor: order.amount_minor,
          currency: order.currency,
          successUrl: `${siteUrl}${localizePath(lang, '/payment-success')}?order=${order.id}`,
          cancelUrl: `${siteUrl}${localizePath(lang, '/checkout')}?plan=${encodeURIComponent(pkg.id)}&cancelled=1`,
          expiresAt: new Date(order.created_at.getTime() + OPEN_ORDER_LIFETIME_MS + 60_000),
        });
        paymentProviderMs = performance.now() - asked;
        withCheckout = await store.attachCheckout(order.id, session.id, session.url);
      } catch (error) {
        console.error('stripe: checkout session failed', order.id, error instanceof Error ? error.message : error);
        // The order stays open: pressing again reuses it and the same idempotency key.
        return fail(c, 502, ERROR_CODES.paymentUnavailable, 'The payment provider could not be reached. Please try again.');
      }
    }
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
    const row = UUID.test(id) ? await store.ownedBy(c.get('caller').uid, id) : undefined;
    if (!row) return fail(c, 404, ERROR_CODES.notFound, 'No such order.');
    return c.json(view(row, lang));
  });

  app.delete('/me', async (c) => {
    const { cancelledCheckouts } = await store.forgetBuyer(c.get('caller').uid);
    // Close the payment pages of cancelled orders, so nobody pays for an order without a buyer.
    await Promise.allSettled(cancelledCheckouts.map((id) => stripe.checkout.sessions.expire(id)));
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
    return c.json({ received: true, outcome: await handleStripeEvent(stripe, store, event) });
  });

  // Everything else is the catalogue's (GET /regions, /countries, /packages, POST /csp-reports) or its JSON 404.
  app.all('*', (c) => catalogueApi(c.req.raw));

  app.onError((error, c) => {
    console.error('shop-api', c.req.method, c.req.path, error);
    return fail(c, 500, 'internal_error', 'Something went wrong. Please try again.');
  });

  return (request) => Promise.resolve(app.fetch(request));
}

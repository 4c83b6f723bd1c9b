import { Hono, type MiddlewareHandler } from 'hono';
import type Stripe from 'stripe';
import { zValidator } from '@hono/zod-validator';
import { TRAVELLER_TOKEN_HEADER } from '../../config/constants.ts';
import { CreateOrderRequest, ERROR_CODES, ORDER_WAIT_MAX_MS, OrderQuery } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Alerts } from '../alerts/alerts.types.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import { esimView, type DestinationOf } from '../esims/view.ts';
import { fail } from '../http.ts';
import type { UserLimiter } from '../limits.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import { refuse } from '../refusals.ts';
import { isUuid } from '../uuid.ts';
import { jsonBody, langQuery } from '../validation.ts';
import type { SellablePlan } from './plans.ts';
import { awaitsChange, createOrderWaits, untilChanged } from './order-changes.ts';
import type { Snapshot } from '../../catalogue/schema.ts';
import { placeOrder, type PlaceOrderDeps } from './place-order.ts';
import type { SalesPauseCache } from './sales-pause.types.ts';
import type { OrderStore, OrderWithPayment } from './store.types.ts';
import { orderView } from './view.ts';

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
  catalogue: Pick<Snapshot, 'exchangeRates'>;
  destination: DestinationOf;
  partners: Partners;
  limits: UserLimiter;
  checkouts: CheckoutExpiry;
  checkoutAutoTopUps: PlaceOrderDeps['checkoutAutoTopUps'];
  alerts: Pick<Alerts, 'seen'>;
  /** Whether sales are paused, kept between orders (sales-pause.ts): not a read on every order. One per app, shared with carts. */
  salesPause: SalesPauseCache;
  /** Where the pages live: the payment page returns there (no trailing slash). */
  siteUrl: string;
  /** Aborted when the instance shuts down (SIGTERM): the open long-polls answer at once, as when their time is up. */
  closing?: AbortSignal;
}

/**
 * The caller's orders (DESIGN 6), mounted at /orders: POST / opens an order (a catalogue plan or a
 * top-up) with its payment page, GET / lists them, GET /:id reads one. Only the owner sees an order.
 */
export function orderRoutes(deps: OrderRoutesDeps) {
  const { db, store, esims, destination, alerts } = deps;

  const view = (row: OrderWithPayment, lang: Locale) => orderView(row, lang, destination);
  const waits = createOrderWaits(db);
  // A rollout stops this instance with SIGTERM and 10 s to go: a long-poll of up to 25 s would be
  // cut off. Answered now, the page asks again and reaches an instance that stays.
  if (deps.closing?.aborted) waits.endAll();
  else deps.closing?.addEventListener('abort', () => waits.endAll(), { once: true });

  return new Hono<BuyerEnv>()
    .use('*', deps.auth)
    .post('/', ...jsonBody(CreateOrderRequest), async (c) => {
      const request = c.req.valid('json');
      const placed = await placeOrder(deps, c.get('caller'), request, c.req.header(TRAVELLER_TOKEN_HEADER));
      switch (placed.outcome) {
        case 'unknown_plan':
          return fail(c, 404, ERROR_CODES.unknownPlan, 'No plan has this id.');
        case 'no_top_ups':
          return refuse(c, { outcome: placed.why });
        case 'not_exchangeable':
          return fail(c, 409, ERROR_CODES.notExchangeable, `This eSIM cannot be exchanged for this plan: ${placed.why}.`, {
            reason: placed.why,
          });
        case 'price_changed':
          return fail(c, 409, ERROR_CODES.priceChanged, 'The price of this plan has changed.', { price: placed.price });
        case 'placed':
          // Our own time apart from the payment provider's, for monitoring and the benchmark (DESIGN 3).
          c.header('Server-Timing', `stripe;dur=${placed.paymentProviderMs.toFixed(1)}`, { append: true });
          return c.json({ order: view(placed.order, request.lang), checkoutUrl: placed.checkoutUrl }, placed.created ? 201 : 200);
        default:
          return refuse(c, placed);
      }
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

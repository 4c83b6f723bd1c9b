import { Hono, type MiddlewareHandler } from 'hono';
import { CreateCartRequest, ERROR_CODES } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Alerts } from '../alerts/alerts.types.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import { esimView, type DestinationOf } from '../esims/view.ts';
import { fail } from '../http.ts';
import type { PlaceOrderDeps } from '../orders/place-order.ts';
import type { OrderWithPayment } from '../orders/store.types.ts';
import { orderView } from '../orders/view.ts';
import { refuse } from '../refusals.ts';
import { isUuid } from '../uuid.ts';
import { jsonBody, langQuery } from '../validation.ts';
import { placeCart } from './place-cart.ts';
import { createCartStore, type CartRow } from './store.ts';

export type CartRoutesDeps = Pick<
  PlaceOrderDeps,
  'stripe' | 'plans' | 'limits' | 'salesPause' | 'checkouts' | 'siteUrl' | 'partners' | 'catalogue'
> & {
  auth: MiddlewareHandler<BuyerEnv>;
  db: Db;
  esims: Pick<EsimStore, 'ownedOne'>;
  destination: DestinationOf;
  alerts: Pick<Alerts, 'seen'>;
};

/**
 * The caller's carts (issue 33), mounted at /carts: POST / opens one (one order per eSIM, one
 * payment page), GET /:id reads it with each order's eSIM. Only the owner sees a cart.
 */
export function cartRoutes(deps: CartRoutesDeps) {
  const { db, esims, destination, alerts } = deps;
  const carts = createCartStore(db);
  const placing = { ...deps, carts };

  const view = (cart: CartRow, orders: OrderWithPayment[], lang: Locale) => ({
    id: cart.id,
    total: { amountMinor: cart.amount_minor, currency: cart.currency },
    orders: orders.map((row) => orderView(row, lang, destination)),
  });
  // An open order has no payment yet.
  const unpaid = { paid_at: null, method_type: null, card_brand: null, card_last4: null, receipt_url: null };

  return new Hono<BuyerEnv>()
    .use('*', deps.auth)
    .post('/', ...jsonBody(CreateCartRequest), async (c) => {
      const request = c.req.valid('json');
      const placed = await placeCart(placing, c.get('caller'), request);
      switch (placed.outcome) {
        case 'unknown_plan':
          return fail(c, 404, ERROR_CODES.unknownPlan, `No plan has the id ${placed.planId}.`, { planId: placed.planId });
        case 'price_changed':
          return fail(c, 409, ERROR_CODES.priceChanged, 'The price of a plan in the cart has changed.', { prices: placed.prices });
        case 'placed': {
          // Each order's payment page is its cart's.
          const page = { checkout_session_id: placed.cart.checkout_session_id, checkout_url: placed.cart.checkout_url };
          const orders = placed.orders.map((row) => ({ ...row, ...page, ...unpaid }));
          return c.json({ cart: view(placed.cart, orders, request.lang), checkoutUrl: placed.checkoutUrl }, placed.created ? 201 : 200);
        }
        default:
          return refuse(c, placed);
      }
    })
    .get('/:id', langQuery, async (c) => {
      const { lang } = c.req.valid('query');
      const id = c.req.param('id');
      const uid = c.get('caller').uid;
      // Someone else's cart and an unknown one answer alike.
      const found = isUuid(id) ? await carts.ownedBy(uid, id) : undefined;
      if (!found) return fail(c, 404, ERROR_CODES.notFound, 'No such cart.');
      // The payment success page shows every delivered eSIM: their buyer needs no 'eSIM ready' push.
      await alerts.seen(found.orders);
      const cart = view(found.cart, found.orders, lang);
      const withEsims = await Promise.all(
        found.orders.map(async (row, i) => {
          const owned = row.state === 'pending_payment' ? undefined : await esims.ownedOne(uid, row.id);
          const esim = owned ? await esimView(owned.order, owned.esim, destination(owned.order.destination, lang)) : null;
          return { ...cart.orders[i]!, esim };
        }),
      );
      return c.json({ ...cart, orders: withEsims });
    });
}

import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../db/db.types.ts';
import { queueCheckoutExpiry } from '../payments/checkout-expiry.ts';
import { insertOrder, moveOrder, OPEN_ORDER_LIFETIME_MS, WITH_PAYMENT } from '../orders/store.ts';
import type { NewOrder, OrderRow, OrderWithPayment } from '../orders/store.types.ts';
import { nameTraveller, travellerOf } from '../travellers/travellers.ts';

/** A cart (migration 0029): what its orders share, one payment page and one payment. */
export interface CartRow {
  id: string;
  uid: string | null;
  amount_minor: number;
  currency: string;
  lang: string;
  checkout_session_id: string | null;
  checkout_url: string | null;
  created_at: Date;
}

export interface OpenedCart {
  cart: CartRow;
  /** One a eSIM, in the order the buyer listed them. */
  orders: OrderRow[];
  /** False: the caller's same open cart again (a double click, a second tab, a retry). */
  created: boolean;
  /** Payment pages of the caller's carts this one replaced: to be closed at Stripe. */
  closedCheckouts: string[];
}

/** What a cart holds, as one comparable string: its plans and prices, whatever the order they came in. */
const contentsOf = (orders: readonly Pick<OrderRow, 'plan_id' | 'amount_minor' | 'currency'>[]) =>
  orders
    .map((o) => `${o.plan_id}@${o.amount_minor}${o.currency}`)
    .sort()
    .join(',');

/** A cart's orders, in the order they were listed. */
export const ordersOfCart = (tx: Queryable, cartId: string) =>
  tx.query<OrderRow>('SELECT * FROM orders WHERE cart_id = $1 ORDER BY number', [cartId]);

export async function cartById(tx: Queryable, id: string): Promise<CartRow | undefined> {
  const [row] = await tx.query<CartRow>('SELECT * FROM carts WHERE id = $1', [id]);
  return row;
}

/**
 * Each open order of the cart gets the traveller asked for it now (issue 33), matched by plan in
 * the order given: the same cart again (a retry after the buyer corrected a name) takes the new names.
 */
async function nameTravellers(tx: Queryable, rows: OrderRow[], asked: readonly NewOrder[]): Promise<OrderRow[]> {
  const byPlan = new Map<string, NewOrder['traveller'][]>();
  for (const order of asked) byPlan.set(order.plan.id, [...(byPlan.get(order.plan.id) ?? []), order.traveller]);
  for (const row of rows) {
    const traveller = byPlan.get(row.plan_id)?.shift();
    const [name, email] = [traveller?.name ?? null, traveller?.email ?? null];
    if (row.state !== 'pending_payment') continue;
    const now = await travellerOf(tx, row.id);
    if (now.traveller_name !== name || now.traveller_email !== email) await nameTraveller(tx, row.id, name, email);
  }
  return rows;
}

export function createCartStore(db: Db) {
  return {
    /**
     * The buyer's open cart with these plans at these prices, or a new one with one open order per
     * eSIM. Any other open cart of theirs (other contents, or older than a payment page lives) is
     * closed first, its orders cancelled or expired and its page queued to close at Stripe: one
     * open cart per buyer, as one open order per buyer and plan.
     */
    async openCart(uid: string, lang: string, orders: readonly NewOrder[], now = new Date()): Promise<OpenedCart> {
      return db.transaction(async (tx) => {
        // A buyer's carts open one at a time, so a double click finds the cart the first click opened.
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cart:${uid}`]);
        const open = await tx.query<CartRow>(
          `SELECT * FROM carts c WHERE c.uid = $1 AND EXISTS (SELECT 1 FROM orders o WHERE o.cart_id = c.id AND o.state = 'pending_payment')`,
          [uid],
        );
        const wanted = contentsOf(
          orders.map((o) => ({ plan_id: o.plan.id, amount_minor: o.price.amountMinor, currency: o.price.currency })),
        );
        const closedCheckouts: string[] = [];
        let same: OpenedCart | undefined;
        for (const cart of open) {
          const rows = await ordersOfCart(tx, cart.id);
          const stale = now.getTime() - cart.created_at.getTime() > OPEN_ORDER_LIFETIME_MS;
          if (!same && !stale && cart.lang === lang && rows.every((r) => r.state === 'pending_payment') && contentsOf(rows) === wanted) {
            same = { cart, orders: rows, created: false, closedCheckouts };
            continue;
          }
          for (const row of rows.filter((r) => r.state === 'pending_payment')) {
            await moveOrder(tx, row.id, stale ? 'expired' : 'cancelled', stale ? 'checkout_timed_out' : 'replaced');
            await queueCheckoutExpiry(tx, row.id, cart.checkout_session_id);
          }
          if (cart.checkout_session_id) closedCheckouts.push(cart.checkout_session_id);
        }
        if (same) return { ...same, orders: await nameTravellers(tx, same.orders, orders) };

        const first = orders[0]!;
        const [cart] = await tx.query<CartRow>(
          'INSERT INTO carts (id, uid, amount_minor, currency, lang) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          [randomUUID(), uid, orders.reduce((sum, o) => sum + o.price.amountMinor, 0), first.price.currency, lang],
        );
        const rows: OrderRow[] = [];
        for (const order of orders) rows.push(await insertOrder(tx, order, randomUUID(), cart!.id));
        return { cart: cart!, orders: await nameTravellers(tx, rows, orders), created: true, closedCheckouts };
      });
    },

    /**
     * Records the cart's payment page on it and on its orders; the first one wins. A cart replaced
     * meanwhile (none of its orders open any more) gets it all the same, queued to be closed at Stripe.
     */
    async attachCheckout(cartId: string, sessionId: string, url: string): Promise<{ cart: CartRow; orders: OrderRow[]; open: boolean }> {
      return db.transaction(async (tx) => {
        await tx.query('UPDATE carts SET checkout_session_id = $2, checkout_url = $3 WHERE id = $1 AND checkout_session_id IS NULL', [
          cartId,
          sessionId,
          url,
        ]);
        const cart = (await cartById(tx, cartId))!;
        const rows = await tx.query<OrderRow>(
          `WITH page AS (
             INSERT INTO order_checkouts (order_id, checkout_session_id, checkout_url, shared)
             SELECT id, $2, $3, true FROM orders WHERE cart_id = $1
             ON CONFLICT (order_id) DO UPDATE SET checkout_session_id = excluded.checkout_session_id, checkout_url = excluded.checkout_url
           )
           SELECT * FROM orders WHERE cart_id = $1`,
          [cartId, cart.checkout_session_id, cart.checkout_url],
        );
        const open = rows.some((r) => r.state === 'pending_payment');
        if (!open) await queueCheckoutExpiry(tx, rows[0]!.id, cart.checkout_session_id);
        return { cart, orders: rows.sort((a, b) => Number(a.number) - Number(b.number)), open };
      });
    },

    /** The caller's cart and its orders with their payments; undefined for someone else's or an unknown one. */
    async ownedBy(uid: string, id: string): Promise<{ cart: CartRow; orders: OrderWithPayment[] } | undefined> {
      const [cart] = await db.query<CartRow>('SELECT * FROM carts WHERE id = $1 AND uid = $2', [id, uid]);
      if (!cart) return undefined;
      const orders = await db.query<OrderWithPayment>(`${WITH_PAYMENT} WHERE o.cart_id = $1 ORDER BY o.number`, [id]);
      return { cart, orders };
    },
  };
}

export type CartStore = ReturnType<typeof createCartStore>;

import { randomUUID } from 'node:crypto';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import { queueCheckoutExpiry } from '../payments/checkout-expiry.ts';
import { notifyOrderChange } from './order-changes.ts';
import { queueAfterMove } from '../jobs/order-jobs.ts';
import { retryAfterSeconds } from '../limits.ts';
import type { LimitInStatement } from '../limits.types.ts';
import type {
  NewOrder,
  OpenedOrder,
  OrderEvent,
  OrderRow,
  OrderStore,
  OrderWithCheckout,
  OrderWithPayment,
  PaymentRecord,
} from './store.types.ts';

/**
 * Which state may follow which (DESIGN 6). Money received always wins: a payment confirmed after
 * the order expired, failed or was cancelled still makes it paid, so nothing paid is lost.
 */
const NEXT: Record<OrderState, readonly OrderState[]> = {
  pending_payment: ['paid', 'expired', 'payment_failed', 'cancelled'],
  expired: ['paid'],
  payment_failed: ['paid'],
  cancelled: ['paid'],
  paid: ['provisioning', 'fulfilment_failed', 'refund_requested'],
  provisioning: ['delivered', 'fulfilment_failed'],
  delivered: ['refund_requested'],
  fulfilment_failed: ['provisioning', 'refunded'],
  // Back to delivered when the partner refuses to cancel: the eSIM was installed meanwhile.
  refund_requested: ['refunded', 'delivered'],
  // A refund Stripe reported succeeded can still fail later (docs.stripe.com/refunds): the refund is owed again.
  refunded: ['refund_requested'],
};

export const canMove = (from: OrderState, to: OrderState) => NEXT[from].includes(to);

/** A Checkout Session lives 30 minutes at least (Stripe's minimum): an open order older than that starts again. */
export const OPEN_ORDER_LIFETIME_MS = 30 * 60_000;

/** An order's payment page (order_checkouts, migration 0041) beside `o`, the order: null until one is attached. */
export const CHECKOUT_COLUMNS = 'c.checkout_session_id, c.checkout_url';
export const CHECKOUT_JOIN = 'LEFT JOIN order_checkouts c ON c.order_id = o.id';

export const WITH_PAYMENT = `
  SELECT o.*, ${CHECKOUT_COLUMNS}, p.created_at AS paid_at, p.method_type, p.card_brand, p.card_last4, p.receipt_url
  FROM orders o
  ${CHECKOUT_JOIN}
  LEFT JOIN LATERAL (
    SELECT * FROM payments WHERE order_id = o.id AND status = 'paid' ORDER BY id DESC LIMIT 1
  ) p ON true`;

/** A new order's columns and their values from openOrder's parameters: both of its inserts write the same row. */
const NEW_ORDER_COLUMNS = `id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind, top_up_of, email_verified`;
const NEW_ORDER_VALUES = `$3, $1, $4, 'pending_payment', $2, $5, $6::jsonb, $9, $10, $11, $12, $13::uuid, $14`;
/**
 * What a new order brings that is not the sale, in rows of their own beside the order `created`
 * (its id): its partner ($19) with the partner's code and price ($7, $8; order_sourcing), the
 * consents ($15, $16, and $20: automatic top-ups ticked, the payment saves the card; order_consents),
 * the trip's start ($17; order_travellers) and the eSIM it exchanges ($18; order_links).
 */
const NEW_ORDER_BESIDE = [
  `sourcing AS (
     INSERT INTO order_sourcing (order_id, partner, partner_code, wholesale_usd_e4) SELECT id, $19, $7, $8 FROM created
   )`,
  `consent AS (
     INSERT INTO order_consents (order_id, terms_version, terms_accepted_at, immediate_start_requested_at, saves_card)
     SELECT id, $15, $16, $16, $20 FROM created
   )`,
  `trip AS (INSERT INTO order_travellers (order_id, trip_starts_on) SELECT id, $17::text FROM created WHERE $17::text IS NOT NULL)`,
  `exchange AS (INSERT INTO order_links (order_id, link, of_order_id) SELECT id, 'exchange', $18::uuid FROM created WHERE $18::uuid IS NOT NULL)`,
];
/**
 * Whether an open order's payment saves the card: automatic top-ups were ticked at checkout (issue
 * 49), stored with the order in the same statement (a double click sees the same). Its payment page
 * differs (a Customer, the card kept for later), so a changed tick opens a new order as a changed price does.
 */
const SAVES_CARD = `coalesce((SELECT k.saves_card FROM order_consents k WHERE k.order_id = o.id), false) AS saves_card`;
/** An open order as openOrder compares it: the sale, its payment page, its trip's start, the eSIM it exchanges, the card it saves. */
type OpenOrderRow = OrderWithCheckout & { trip_starts_on: string | null; exchange_of: string | null; saves_card: boolean };
type OpenOrderCompared = OrderWithCheckout & { saves_card: boolean };
const OPEN_ORDER = `SELECT o.*, ${CHECKOUT_COLUMNS}, t.trip_starts_on, x.of_order_id AS exchange_of, ${SAVES_CARD}
  FROM orders o ${CHECKOUT_JOIN}
  LEFT JOIN order_travellers t ON t.order_id = o.id
  LEFT JOIN order_links x ON x.order_id = o.id AND x.link = 'exchange'`;

/** The parameters of NEW_ORDER_VALUES for this order under this id. */
function newOrderValues(order: NewOrder, id: string): unknown[] {
  return [
    order.uid,
    order.plan.id,
    id,
    order.email,
    order.destination,
    JSON.stringify(order.plan),
    order.partnerCode,
    order.wholesaleUsdE4,
    order.price.amountMinor,
    order.price.currency,
    order.lang,
    order.topUpOf ? (order.automatic ? 'auto' : 'top_up') : 'esim',
    order.topUpOf,
    order.emailVerified,
    order.termsVersion,
    order.consentedAt,
    order.tripStartsOn,
    order.exchangeOf,
    order.partner,
    order.savesCard ?? false,
  ];
}

/** Inserts an open order (of a cart, or of its own) with its first event, in the caller's transaction. */
export async function insertOrder(
  tx: Queryable,
  order: NewOrder,
  id: string,
  cartId: string | null,
  cause = 'order_created',
): Promise<OrderRow> {
  const values = newOrderValues(order, id);
  const [row] = await tx.query<OrderRow>(
    `WITH created AS (
       INSERT INTO orders (${NEW_ORDER_COLUMNS}, cart_id) VALUES (${NEW_ORDER_VALUES}, $${values.length + 1}::uuid) RETURNING *
     ), ${NEW_ORDER_BESIDE.join(', ')}
     SELECT * FROM created`,
    [...values, cartId],
  );
  await tx.query(`INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, NULL, 'pending_payment', $2)`, [id, cause]);
  return row!;
}

/** Moves an order and records why, in the caller's transaction; false when the move is not allowed from its state now. */
export async function moveOrder(tx: Queryable, id: string, to: OrderState, cause: string): Promise<boolean> {
  const [row] = await tx.query<{ state: OrderState }>('SELECT state FROM orders WHERE id = $1 FOR UPDATE', [id]);
  if (!row || !canMove(row.state, to)) return false;
  // Announced with the change: long-polls of the order wake on commit (order-changes.ts).
  await tx.query(`UPDATE orders SET state = $2, updated_at = now() WHERE id = $1 RETURNING ${notifyOrderChange('id')}`, [id, to]);
  await tx.query('INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, $2, $3, $4)', [id, row.state, to, cause]);
  // What the new state has left to do is queued with it (jobs/order-jobs.ts): committed together or not at all.
  await queueAfterMove(tx, id, to);
  return true;
}

/**
 * Cancels the person's open orders and queues their payment pages for closing at Stripe; answers
 * those pages. An automatic top-up being charged is its job's to end (it asks Stripe first: a charge
 * whose answer was lost is applied or refunded, never dropped).
 */
async function cancelOpenOrders(tx: Queryable, uid: string, cause: string): Promise<string[]> {
  const open = await tx.query<{ id: string; checkout_session_id: string | null }>(
    `SELECT o.id, c.checkout_session_id FROM orders o ${CHECKOUT_JOIN} WHERE o.uid = $1 AND o.state = 'pending_payment' AND o.kind <> 'auto'`,
    [uid],
  );
  for (const { id, checkout_session_id } of open) {
    await moveOrder(tx, id, 'cancelled', cause);
    await queueCheckoutExpiry(tx, id, checkout_session_id);
  }
  // A cart's orders share one page.
  return [...new Set(open.flatMap((o) => (o.checkout_session_id ? [o.checkout_session_id] : [])))];
}

/**
 * Records a payment of the order, once per session and status (an off-session charge, which has no
 * session: once per payment intent and status), in the caller's transaction.
 */
async function recordPayment(tx: Queryable, orderId: string, payment: PaymentRecord): Promise<void> {
  await tx.query(
    `INSERT INTO payments (order_id, provider, checkout_session_id, payment_intent_id, status, amount_minor, currency,
       method_type, card_brand, card_last4, receipt_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT DO NOTHING`,
    [
      orderId,
      payment.provider,
      payment.checkoutSessionId,
      payment.paymentIntentId,
      payment.status,
      payment.amountMinor,
      payment.currency,
      payment.method?.type ?? null,
      payment.method?.brand ?? null,
      payment.method?.last4 ?? null,
      payment.receiptUrl,
    ],
  );
}

/** OrderStore's openOrder on this database (its overloads: only a call with `limit` can be refused). */
function orderOpener(db: Db): OrderStore['openOrder'] {
  /**
   * The buyer's open order for this plan, or a new one: a double click, a second tab or a
   * retry after a failure finds the same order (one open order per buyer and plan). An open
   * order at another price, or older than a Checkout Session lives, is closed first, and its
   * payment page queued to be closed at Stripe (`closedCheckouts`: src/server/payments/checkout-expiry.ts).
   * The usual case is one statement (one round trip, atomic by itself), the buyer's per-user
   * limits counted in it when `limit` is given (nothing opened when they refuse); closing one is
   * a transaction.
   */
  async function openOrder(order: NewOrder, now?: Date): Promise<OpenedOrder>;
  async function openOrder(
    order: NewOrder,
    now: Date | undefined,
    limit: (first: number) => LimitInStatement,
  ): Promise<OpenedOrder | { retryAfterSeconds: number }>;
  async function openOrder(
    order: NewOrder,
    now = new Date(),
    limit?: (first: number) => LimitInStatement,
  ): Promise<OpenedOrder | { retryAfterSeconds: number }> {
    const id = randomUUID();
    const values = newOrderValues(order, id);
    // The limits' windows are counted first; the order is opened only when they let it through.
    const counted = limit?.(values.length + 1) ?? { ctes: [], allowed: 'true', waitMs: 'NULL::bigint', params: [] };
    const [answer] = await db.prepared<Partial<OpenOrderRow> & { created: boolean | null; limit_wait_ms: number | null }>(
      `WITH ${[
        ...counted.ctes,
        `open AS (
           ${OPEN_ORDER} WHERE o.uid = $1 AND o.plan_id = $2 AND o.state = 'pending_payment' AND o.cart_id IS NULL AND o.kind <> 'auto'
         )`,
        `created AS (
           INSERT INTO orders (${NEW_ORDER_COLUMNS}) SELECT ${NEW_ORDER_VALUES}
           WHERE NOT EXISTS (SELECT 1 FROM open) AND ${counted.allowed}
           ON CONFLICT (uid, plan_id) WHERE state = 'pending_payment' AND cart_id IS NULL AND kind <> 'auto' DO NOTHING
           RETURNING *
         )`,
        `event AS (
           INSERT INTO order_events (order_id, from_state, to_state, cause)
           SELECT id, NULL, 'pending_payment', 'order_created' FROM created
         )`,
        ...NEW_ORDER_BESIDE,
      ].join(',\n')}
       SELECT found.*, counted.limit_wait_ms FROM (SELECT ${counted.waitMs} AS limit_wait_ms) counted
       LEFT JOIN (
         SELECT *, NULL::text AS checkout_session_id, NULL::text AS checkout_url, $17::text AS trip_starts_on,
           $18::uuid AS exchange_of, false AS saves_card, true AS created FROM created
         UNION ALL SELECT *, false AS created FROM open
       ) found
         ON counted.limit_wait_ms IS NULL`,
      [...values, ...counted.params],
    );
    const { limit_wait_ms: waitMs, ...row } = answer!;
    // Refused by a window: nothing was opened. (Typed as the overloads in OrderStore say: only a call with `limit` gets it.)
    if (waitMs !== null) return { retryAfterSeconds: retryAfterSeconds(waitMs) } as OpenedOrder & { retryAfterSeconds: number };
    const found = row.id ? (row as OpenOrderRow & { created: boolean }) : undefined;
    if (found?.created) return { order: found, created: true, closedCheckouts: [] };
    const stale = (open: OrderWithCheckout) => now.getTime() - open.created_at.getTime() > OPEN_ORDER_LIFETIME_MS;
    // Another price, the same plan bought for another purpose (a new eSIM, a top-up of another one), or the tick changed.
    const repriced = (open: OpenOrderCompared) =>
      open.amount_minor !== order.price.amountMinor ||
      open.currency !== order.price.currency ||
      open.top_up_of !== order.topUpOf ||
      open.saves_card !== Boolean(order.savesCard);
    if (found && !stale(found) && !repriced(found)) {
      // The same order asked again with another trip start or exchange (changed on the checkout page): the latest is kept.
      if (found.trip_starts_on !== order.tripStartsOn || found.exchange_of !== order.exchangeOf) {
        await db.query(
          `WITH open AS (SELECT id FROM orders WHERE id = $1 AND state = 'pending_payment'),
           trip AS (
             INSERT INTO order_travellers (order_id, trip_starts_on)
             SELECT id, $2::text FROM open WHERE $2::text IS NOT NULL OR EXISTS (SELECT 1 FROM order_travellers WHERE order_id = open.id)
             ON CONFLICT (order_id) DO UPDATE SET trip_starts_on = excluded.trip_starts_on
           ),
           unlinked AS (DELETE FROM order_links WHERE order_id IN (SELECT id FROM open) AND link = 'exchange' AND $3::uuid IS NULL)
           INSERT INTO order_links (order_id, link, of_order_id) SELECT id, 'exchange', $3::uuid FROM open WHERE $3::uuid IS NOT NULL
           ON CONFLICT (order_id) DO UPDATE SET of_order_id = excluded.of_order_id WHERE order_links.link = 'exchange'`,
          [found.id, order.tripStartsOn, order.exchangeOf],
        );
        found.trip_starts_on = order.tripStartsOn;
        found.exchange_of = order.exchangeOf;
      }
      return { order: found, created: false, closedCheckouts: [] };
    }

    const replace = () =>
      db.transaction(async (tx) => {
        // Another request of the same buyer opened it meanwhile, or the open one must close first.
        const [open] = await tx.query<OpenOrderCompared>(
          `SELECT o.*, ${CHECKOUT_COLUMNS}, ${SAVES_CARD} FROM orders o ${CHECKOUT_JOIN}
         WHERE o.uid = $1 AND o.plan_id = $2 AND o.state = 'pending_payment' AND o.cart_id IS NULL AND o.kind <> 'auto' FOR UPDATE OF o`,
          [order.uid, order.plan.id],
        );
        if (open && !stale(open) && !repriced(open)) return { order: open, created: false, closedCheckouts: [] };
        if (open) {
          const samePrice = open.amount_minor === order.price.amountMinor && open.currency === order.price.currency;
          const cause = stale(open) ? 'checkout_timed_out' : samePrice ? 'replaced' : 'price_changed';
          await moveOrder(tx, open.id, stale(open) ? 'expired' : 'cancelled', cause);
          await queueCheckoutExpiry(tx, open.id, open.checkout_session_id);
        }
        const row = await insertOrder(tx, order, id, null);
        return {
          order: { ...row, checkout_session_id: null, checkout_url: null },
          created: true,
          closedCheckouts: open?.checkout_session_id ? [open.checkout_session_id] : [],
        };
      });
    try {
      return await replace();
    } catch (error) {
      // Two presses at once both closed the old order in turn, and the other one opened the new one
      // first (one open order per buyer and plan): asked again, that one is the answer.
      if ((error as { code?: unknown }).code !== '23505') throw error;
      return replace();
    }
  }

  return openOrder;
}

export function createOrderStore(db: Db): OrderStore {
  return {
    move: moveOrder,

    openOrder: orderOpener(db),

    /**
     * Records the payment page of an open order; the first one wins. An order closed meanwhile (its
     * buyer's next request replaced it) gets it all the same, queued to be closed at Stripe.
     */
    async attachCheckout(id: string, sessionId: string, url: string): Promise<OrderWithCheckout> {
      const [updated] = await db.prepared<OrderWithCheckout>(
        `WITH page AS (
           INSERT INTO order_checkouts (order_id, checkout_session_id, checkout_url) VALUES ($1, $2, $3)
           ON CONFLICT (order_id) DO NOTHING RETURNING order_id
         ), attached AS (
           UPDATE orders SET updated_at = now() WHERE id IN (SELECT order_id FROM page) RETURNING *
         ), queued AS (
           INSERT INTO checkout_expiries (checkout_session_id, order_id)
           SELECT $2, id FROM attached WHERE state <> 'pending_payment'
           ON CONFLICT DO NOTHING
         )
         SELECT *, $2::text AS checkout_session_id, $3::text AS checkout_url FROM attached`,
        [id, sessionId, url],
      );
      return (
        updated ??
        (await db.query<OrderWithCheckout>(`SELECT o.*, ${CHECKOUT_COLUMNS} FROM orders o ${CHECKOUT_JOIN} WHERE o.id = $1`, [id]))[0]!
      );
    },

    async ownedBy(uid: string, id: string): Promise<OrderWithPayment | undefined> {
      const [row] = await db.query<OrderWithPayment>(`${WITH_PAYMENT} WHERE o.id = $1 AND o.uid = $2`, [id, uid]);
      return row;
    },

    async listOwnedBy(uid: string): Promise<OrderWithPayment[]> {
      return db.query<OrderWithPayment>(`${WITH_PAYMENT} WHERE o.uid = $1 ORDER BY o.created_at DESC, o.number DESC`, [uid]);
    },

    async byId(tx: Queryable, id: string): Promise<OrderRow | undefined> {
      const [row] = await tx.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
      return row;
    },

    async exchangePaid(orderId: string): Promise<boolean> {
      const rows = await db.query(
        `SELECT 1 FROM order_links x JOIN orders o ON o.id = x.order_id
         WHERE x.of_order_id = $1 AND x.link = 'exchange' AND o.state IN ('paid', 'provisioning', 'delivered', 'refund_requested', 'refunded')
         LIMIT 1`,
        [orderId],
      );
      return rows.length > 0;
    },

    recordPayment,

    /**
     * Runs `work` for a provider's event exactly once: the event id is stored in the same
     * transaction, so a replay (or a concurrent duplicate) finds it and changes nothing.
     */
    async onceForEvent(
      provider: string,
      eventId: string,
      type: string,
      work: (tx: Queryable) => Promise<void>,
    ): Promise<'handled' | 'replay'> {
      return db.transaction(async (tx) => {
        const inserted = await tx.query(
          'INSERT INTO webhook_events (provider, event_id, type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING event_id',
          [provider, eventId, type],
        );
        if (inserted.length === 0) return 'replay';
        await work(tx);
        return 'handled';
      });
    },

    /**
     * Account deletion (DESIGN 6): open orders are cancelled, and every order is detached from
     * the person (uid and e-mail removed) but kept, as tax law keeps the books ten years. The
     * person's other data goes by `forgetOther` (push subscriptions, alert choices: nothing is ever
     * sent to a deleted account), and the account itself by `deleteAccount`, before the transaction commits.
     */
    async forgetBuyer(
      uid: string,
      deleteAccount: () => Promise<void>,
      forgetOther: (tx: Queryable) => Promise<void> = async () => {},
    ): Promise<{ cancelledCheckouts: string[]; detached: number }> {
      return db.transaction(async (tx) => {
        await forgetOther(tx);
        const cancelledCheckouts = await cancelOpenOrders(tx, uid, 'account_deleted');
        const detached = await tx.query(
          `WITH detached AS (UPDATE orders SET uid = NULL, email = NULL, updated_at = now() WHERE uid = $1 RETURNING id),
           noted AS (INSERT INTO detached_orders (order_id) SELECT id FROM detached ON CONFLICT DO NOTHING)
           SELECT id FROM detached`,
          [uid],
        );
        await tx.query('UPDATE carts SET uid = NULL WHERE uid = $1', [uid]);
        // A traveller's name and link stay (issue 33): the eSIM given to them is still theirs to use.
        // Last, so that a refusal rolls the detaching back: the account and its data go together.
        await deleteAccount();
        return { cancelledCheckouts, detached: detached.length };
      });
    },

    /** A blocked account's open orders cancelled (issue 30): answers their payment pages, for closing at Stripe. */
    async cancelOpenOrdersOf(uid: string, cause: string): Promise<string[]> {
      return db.transaction((tx) => cancelOpenOrders(tx, uid, cause));
    },

    async events(orderId: string): Promise<OrderEvent[]> {
      return db.query<OrderEvent>('SELECT from_state, to_state, cause, at FROM order_events WHERE order_id = $1 ORDER BY id', [orderId]);
    },
  };
}

/** ES-2026-000123: the year of the order and its number. */
export const orderNumber = (row: Pick<OrderRow, 'number' | 'created_at'>) =>
  `ES-${row.created_at.getUTCFullYear()}-${String(row.number).padStart(6, '0')}`;

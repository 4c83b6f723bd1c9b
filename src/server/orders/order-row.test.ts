import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, openBefore } from '../../../tests/support/databases.ts';
import { OrderState } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { migrate } from '../db/migrate.ts';

/**
 * The order row is the sale (issue 47 item 3): migrations 0040-0045 move the fraud hold, the payment
 * page, the exchange and replacement links, the traveller and trip start, the consents, the
 * detaching, the 'seen' mark and why an order is refunded as a whole to tables of their own, with the data of a database that holds orders
 * in every state and every one of those features. On PGlite and a real PostgreSQL server.
 */
/** Every state an order can be in (the shop API's contract). */
const STATES = OrderState.options;

/** The columns that are not the sale, as they were before 0040 (set on an order as given). */
interface Before {
  state?: (typeof STATES)[number];
  amount_minor?: number;
  cart_id?: string | null;
  checkout_session_id?: string | null;
  checkout_url?: string | null;
  checkout_checked_at?: Date | null;
  checkout_settled_at?: Date | null;
  hold?: 'held' | 'approved' | 'rejected' | null;
  held_at?: Date | null;
  hold_decided_by?: string | null;
  hold_decided_at?: Date | null;
  hold_reason?: string | null;
  trip_starts_on?: string | null;
  exchange_of?: string | null;
  replaces?: string | null;
  replaced_by?: string | null;
  traveller_name?: string | null;
  traveller_email?: string | null;
  traveller_emailed_at?: Date | null;
  detached_at?: Date | null;
  esim_seen_at?: Date | null;
  refund_reason?: string | null;
}

const T0 = new Date('2026-11-20T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/** An order as the schema before 0040 stored it: the sale, the consents, and the columns given. */
async function orderBefore(db: Queryable, fields: Before = {}): Promise<string> {
  const id = randomUUID();
  const { state = 'delivered', amount_minor = 1000, ...rest } = fields;
  await db.query(
    `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, partner_code, wholesale_usd_e4, amount_minor,
       currency, lang, terms_version, terms_accepted_at, immediate_start_requested_at, kind, created_at)
     VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, 'P1', 5000, $4, 'EUR', 'en', '2026-01', $5, $6, 'esim', $5)`,
    [id, `uid-${id}`, state, amount_minor, at(0), at(1)],
  );
  const names = Object.keys(rest) as (keyof typeof rest)[];
  if (names.length > 0) {
    await db.query(`UPDATE orders SET ${names.map((name, i) => `${name} = $${i + 2}`).join(', ')} WHERE id = $1`, [
      id,
      ...names.map((name) => rest[name]),
    ]);
  }
  return id;
}

const columnsOf = async (db: Queryable, table: string) =>
  (
    await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).map((c) => c.column_name);

const indexesOf = async (db: Queryable, table: string) =>
  (await db.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table])).map(
    (i) => i.indexname,
  );

/** The sale's columns: all that stays on the order row (the partner's code, price and order number moved to order_sourcing in 0046). */
const SALE = [
  'id',
  'number',
  'uid',
  'email',
  'email_verified',
  'state',
  'plan_id',
  'destination',
  'plan',
  'amount_minor',
  'currency',
  'lang',
  'kind',
  'top_up_of',
  'cart_id',
  'created_at',
  'updated_at',
];

describe.each(databaseDrivers())('the order row is the sale, on $name', ({ open }) => {
  it('migrations 0040-0045 move every order’s hold, page, links, traveller, consents, detaching, seen mark and refund reason, and drop the columns', async () => {
    const db = await openBefore(open, '0040');
    // Before 0040: the 48 of issue 47's count less the job queue's and the outbox's six (migration 0035).
    expect((await columnsOf(db, 'orders')).length).toBe(42);

    // Every state, each with a payment page of its own that the reconcile job looked at (settled when it ended).
    const byState = new Map<string, string>();
    for (const [i, state] of STATES.entries()) {
      const settled = ['expired', 'cancelled', 'paid'].includes(state);
      byState.set(
        state,
        await orderBefore(db, {
          state,
          checkout_session_id: `cs_${state}`,
          checkout_url: `https://pay.example/${state}`,
          checkout_checked_at: i % 2 ? at(5) : null,
          checkout_settled_at: settled ? at(6) : null,
          ...(state === 'refunded' && { refund_reason: 'requested' }),
        }),
      );
    }
    // A cart's orders share its page.
    const [cartId] = [randomUUID()];
    await db.query(
      `INSERT INTO carts (id, uid, amount_minor, currency, lang, checkout_session_id, checkout_url) VALUES ($1, 'u', 2000, 'EUR', 'en', 'cs_cart', 'https://pay.example/cart')`,
      [cartId],
    );
    const cartPage = { cart_id: cartId, checkout_session_id: 'cs_cart', checkout_url: 'https://pay.example/cart' };
    const cartA = await orderBefore(db, {
      ...cartPage,
      traveller_name: 'Ana',
      traveller_email: 'ana@example.com',
      traveller_emailed_at: at(9),
    });
    const cartB = await orderBefore(db, { ...cartPage, state: 'pending_payment', traveller_name: 'Ben' });
    // The fraud hold in each of its states.
    const held = await orderBefore(db, { state: 'paid', hold: 'held', held_at: at(2) });
    const approved = await orderBefore(db, {
      state: 'delivered',
      hold: 'approved',
      held_at: at(2),
      hold_decided_by: 'op-1',
      hold_decided_at: at(3),
      hold_reason: 'known buyer',
    });
    const rejected = await orderBefore(db, {
      state: 'refunded',
      hold: 'rejected',
      held_at: at(2),
      hold_decided_by: 'op-2',
      hold_decided_at: at(4),
      hold_reason: 'stolen card',
      refund_reason: 'fraud',
    });
    // A trip start alone; an exchange; a replacement (both ways); detached; seen.
    const trip = await orderBefore(db, { trip_starts_on: '2026-12-01' });
    const old = await orderBefore(db, { state: 'refunded', refund_reason: 'exchanged' });
    const exchange = await orderBefore(db, { exchange_of: old, trip_starts_on: '2026-12-24' });
    const replaced = await orderBefore(db);
    const replacement = await orderBefore(db, { amount_minor: 0, replaces: replaced });
    await db.query('UPDATE orders SET replaced_by = $1 WHERE id = $2', [replacement, replaced]);
    const detached = await orderBefore(db, { detached_at: at(30) });
    await db.query('UPDATE orders SET uid = NULL, email = NULL WHERE id = $1', [detached]);
    const seen = await orderBefore(db, { esim_seen_at: at(7) });
    const [{ count: orders }] = (await db.query<{ count: number }>('SELECT count(*)::int AS count FROM orders')) as [{ count: number }];

    expect(await migrate(db)).toEqual(
      expect.arrayContaining([
        '0040_order_holds.sql',
        '0041_order_checkouts.sql',
        '0042_order_links.sql',
        '0043_order_travellers.sql',
        '0044_order_consents.sql',
        '0045_order_refund_reasons.sql',
      ]),
    );

    // The order row: the sale, 17 columns.
    expect((await columnsOf(db, 'orders')).sort()).toEqual([...SALE].sort());
    expect(SALE).toHaveLength(17);
    expect(await db.query('SELECT count(*)::int AS count FROM orders')).toEqual([{ count: orders }]);

    // The hold, each state with who decided, when and why; the "held now" index.
    expect(
      await db.query('SELECT order_id, hold, held_at, decided_by, decided_at, reason FROM order_holds ORDER BY held_at, hold'),
    ).toEqual(
      [
        { order_id: held, hold: 'held', held_at: at(2), decided_by: null, decided_at: null, reason: null },
        { order_id: approved, hold: 'approved', held_at: at(2), decided_by: 'op-1', decided_at: at(3), reason: 'known buyer' },
        { order_id: rejected, hold: 'rejected', held_at: at(2), decided_by: 'op-2', decided_at: at(4), reason: 'stolen card' },
      ].sort((a, b) => a.hold.localeCompare(b.hold)),
    );
    expect(await indexesOf(db, 'order_holds')).toContain('order_holds_held');

    // Every page, the cart's shared by its two orders, with the reconcile job's marks.
    const pages = await db.query<{ order_id: string; checkout_session_id: string; checkout_url: string; shared: boolean }>(
      'SELECT order_id, checkout_session_id, checkout_url, shared, checked_at, settled_at FROM order_checkouts',
    );
    expect(pages).toHaveLength(STATES.length + 2);
    for (const [i, state] of STATES.entries()) {
      const settled = ['expired', 'cancelled', 'paid'].includes(state);
      expect(pages.find((p) => p.order_id === byState.get(state))).toEqual({
        order_id: byState.get(state),
        checkout_session_id: `cs_${state}`,
        checkout_url: `https://pay.example/${state}`,
        shared: false,
        checked_at: i % 2 ? at(5) : null,
        settled_at: settled ? at(6) : null,
      });
    }
    expect(pages.filter((p) => p.checkout_session_id === 'cs_cart').map((p) => [p.order_id, p.shared])).toEqual(
      expect.arrayContaining([
        [cartA, true],
        [cartB, true],
      ]),
    );
    expect(await indexesOf(db, 'order_checkouts')).toEqual(
      expect.arrayContaining(['order_checkouts_by_session', 'order_checkouts_own_session', 'order_checkouts_to_check']),
    );

    // The links, "replaced by" read the other way.
    expect(await db.query('SELECT order_id, link, of_order_id FROM order_links ORDER BY link')).toEqual([
      { order_id: exchange, link: 'exchange', of_order_id: old },
      { order_id: replacement, link: 'replacement', of_order_id: replaced },
    ]);

    // Travellers and trip starts.
    expect(
      await db.query('SELECT order_id, name, email, emailed_at, trip_starts_on FROM order_travellers ORDER BY name, trip_starts_on'),
    ).toEqual([
      { order_id: cartA, name: 'Ana', email: 'ana@example.com', emailed_at: at(9), trip_starts_on: null },
      { order_id: cartB, name: 'Ben', email: null, emailed_at: null, trip_starts_on: null },
      { order_id: trip, name: null, email: null, emailed_at: null, trip_starts_on: '2026-12-01' },
      { order_id: exchange, name: null, email: null, emailed_at: null, trip_starts_on: '2026-12-24' },
    ]);

    // The consents of every order, the detaching and the seen mark.
    expect(await db.query('SELECT count(*)::int AS count FROM order_consents')).toEqual([{ count: orders }]);
    expect(
      await db.query('SELECT terms_version, terms_accepted_at, immediate_start_requested_at FROM order_consents WHERE order_id = $1', [
        seen,
      ]),
    ).toEqual([{ terms_version: '2026-01', terms_accepted_at: at(0), immediate_start_requested_at: at(1) }]);
    expect(await db.query('SELECT order_id, detached_at FROM detached_orders')).toEqual([{ order_id: detached, detached_at: at(30) }]);
    expect(await db.query('SELECT order_id, seen_at FROM seen_esims')).toEqual([{ order_id: seen, seen_at: at(7) }]);

    // Why a whole order is refunded, for those that are (one in each state's list is refunded as asked).
    expect(await db.query('SELECT order_id, reason FROM order_refund_reasons ORDER BY reason')).toEqual([
      { order_id: old, reason: 'exchanged' },
      { order_id: rejected, reason: 'fraud' },
      { order_id: byState.get('refunded'), reason: 'requested' },
    ]);
  }, 180_000);
  it('migrations 0046-0047 move every order’s partner code, price and partner order number to order_sourcing at eSIM Access, and name the partner of every eSIM, partner write, pause and balance alert', async () => {
    const db = await openBefore(open, '0046');
    const orders = new Map<string, { code: string; price: number; partnerOrder: string | null }>();
    for (const [i, state] of STATES.entries()) {
      const id = randomUUID();
      const sourcing = { code: `P${i}`, price: 1000 + i, partnerOrder: i % 2 ? `B2611${i}` : null };
      await db.query(
        `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, partner_code, wholesale_usd_e4, partner_order_no,
           amount_minor, currency, lang, kind, created_at)
         VALUES ($1, 'u', 'buyer@example.com', $2, 'de-1gb-7d', 'DE', '{}'::jsonb, $3, $4, $5, 1000, 'EUR', 'en', 'esim', $6)`,
        [id, state, sourcing.code, sourcing.price, sourcing.partnerOrder, at(i)],
      );
      orders.set(id, sourcing);
    }
    const delivered = [...orders.keys()][STATES.indexOf('delivered')]!;
    await db.query(
      `INSERT INTO esims (esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes, validity_days)
       VALUES ('T1', $1, '8900000000000000000', 'LPA:1$smdp.example$M1', 'smdp.example', 'M1', 'active', 1073741824, 7)`,
      [delivered],
    );
    await db.query(`INSERT INTO partner_writes (order_id, call, outcome) VALUES ($1, 'esim/order', 'applied')`, [delivered]);
    // An open automatic pause and an open low-balance alert: both eSIM Access's (0047).
    await db.query(`INSERT INTO sales_pauses (reason, needed_usd_e4) VALUES ('partner_out_of_balance', 5000)`);
    await db.query('INSERT INTO balance_alerts (threshold_usd_e4, balance_usd_e4) VALUES (2000000, 10000)');

    expect((await migrate(db)).slice(0, 2)).toEqual(['0046_order_sourcing.sql', '0047_partner_health.sql']);
    expect(await db.query('SELECT partner FROM sales_pauses WHERE cleared_at IS NULL')).toEqual([{ partner: 'esim-access' }]);
    expect(await db.query('SELECT partner FROM balance_alerts WHERE cleared_at IS NULL')).toEqual([{ partner: 'esim-access' }]);

    const moved = await db.query<{
      order_id: string;
      partner: string;
      partner_code: string;
      wholesale_usd_e4: number;
      partner_order_no: string | null;
    }>('SELECT order_id, partner, partner_code, wholesale_usd_e4, partner_order_no FROM order_sourcing');
    expect(moved).toHaveLength(STATES.length);
    for (const row of moved) {
      const before = orders.get(row.order_id)!;
      expect(row).toEqual({
        order_id: row.order_id,
        partner: 'esim-access',
        partner_code: before.code,
        wholesale_usd_e4: before.price,
        partner_order_no: before.partnerOrder,
      });
    }
    expect(await columnsOf(db, 'orders')).not.toEqual(expect.arrayContaining(['partner_code']));
    expect(await db.query('SELECT partner FROM esims')).toEqual([{ partner: 'esim-access' }]);
    expect(await db.query('SELECT partner FROM partner_writes')).toEqual([{ partner: 'esim-access' }]);
    // From now on an eSIM and a partner write must name their partner.
    await expect(db.query(`INSERT INTO partner_writes (order_id, call) VALUES ($1, 'esim/cancel')`, [delivered])).rejects.toThrow(
      /partner/,
    );
  });
});

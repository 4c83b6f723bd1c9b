import type { Queryable } from '../db/db.types.ts';

/**
 * An exchange and a replacement at our cost as links between orders (order_links, migration 0042):
 * the new order names the eSIM's order it exchanges or replaces; "replaced by" is the same link read
 * the other way. Written where the new order is made: orders/store.ts (an exchange, when its order
 * opens) and esims/replacement.ts (a replacement, with its order).
 */
export interface OrderLinks {
  /** The buyer's unused eSIM (its order) this order exchanges: refunded once this one is delivered. */
  exchange_of: string | null;
  /** The buyer's eSIM (its order) this one replaces at our cost, nothing paid. */
  replaces: string | null;
  /** The order that replaced this one's eSIM at our cost. */
  replaced_by: string | null;
}

/** The links of `o` (an order) as the columns of OrderLinks, for a SELECT beside `o.*`. */
export const LINK_COLUMNS = `(SELECT x.of_order_id FROM order_links x WHERE x.order_id = o.id AND x.link = 'exchange') AS exchange_of,
  (SELECT x.of_order_id FROM order_links x WHERE x.order_id = o.id AND x.link = 'replacement') AS replaces,
  (SELECT x.order_id FROM order_links x WHERE x.of_order_id = o.id AND x.link = 'replacement') AS replaced_by`;

/** One order's links (all null for an order that neither exchanges nor replaces nor was replaced). */
export async function linksOf(db: Queryable, orderId: string): Promise<OrderLinks> {
  const [row] = await db.query<OrderLinks>(`SELECT ${LINK_COLUMNS} FROM (SELECT $1::uuid AS id) o`, [orderId]);
  return row ?? { exchange_of: null, replaces: null, replaced_by: null };
}

import type { PartnerOffer } from '../../catalogue/schema.ts';
import type { Queryable } from '../db/db.types.ts';

/**
 * Where an order is sourced from (order_sourcing, migration 0046): its partner, the partner's code
 * and price, and the partner's order number. Written where an order is made (orders/store.ts,
 * esims/replacement.ts) and by the delivery: the partner's order (setPartnerOrder) or another partner (switchPartner).
 */

/** The columns of OrderSourcing beside `o.*` (`o` the order), with SOURCING_JOIN. */
export const SOURCING_COLUMNS = 'os.partner, os.partner_code, os.wholesale_usd_e4, os.partner_order_no';
export const SOURCING_JOIN = 'LEFT JOIN order_sourcing os ON os.order_id = o.id';

/**
 * The order goes to another partner (a failover, issue 48 item 5): its package and price there,
 * only while no partner order is recorded for it. Answers whether it moved.
 */
export async function switchPartner(tx: Queryable, id: string, offer: PartnerOffer): Promise<boolean> {
  const moved = await tx.query(
    `UPDATE order_sourcing SET partner = $2, partner_code = $3, wholesale_usd_e4 = $4, chosen_at = now()
     WHERE order_id = $1 AND partner_order_no IS NULL RETURNING 1`,
    [id, offer.partner, offer.partnerCode, offer.wholesaleUsdE4],
  );
  return moved.length === 1;
}

/** The partner's order for ours (the order's updated_at: when it was placed, which the allocation's time limit counts from). */
export async function setPartnerOrder(tx: Queryable, id: string, partnerOrderNo: string): Promise<void> {
  await tx.query('UPDATE order_sourcing SET partner_order_no = $2 WHERE order_id = $1', [id, partnerOrderNo]);
  await tx.query('UPDATE orders SET updated_at = now() WHERE id = $1', [id]);
}

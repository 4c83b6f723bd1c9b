import type { Db } from '../db/db.types.ts';
import type { FulfilmentOptions } from '../fulfilment/fulfilment.types.ts';
import { partnerWrites } from '../fulfilment/partner-writes.ts';
import { orderJobKey, queueOrder } from '../jobs/order-jobs.ts';
import { fenceOff } from '../jobs/queue.ts';
import { salesPaused } from '../orders/sales-pause.ts';
import { SOURCING_COLUMNS, SOURCING_JOIN, switchPartner } from '../orders/sourcing.ts';
import type { OrderRow, OrderSourcing } from '../orders/store.types.ts';
import type { Partners } from '../partner/registry.types.ts';

/**
 * A stuck paid order sent to another partner that sells its plan at a margin that holds (issue 48
 * item 7), its delivery due now. Only while nothing is at its partner: no partner order, and no
 * order sent whose answer was not read back (the delivery's next try settles that by reading
 * first, DESIGN 7), so an order never has two eSIMs. The delivery running now, if any, is fenced
 * off: its next write fails before it sends anything. Answers the partners' names, or why not.
 */
export function toAnotherPartner(
  deps: { db: Db; partners: Pick<Partners, 'nameOf'>; nextPartner: FulfilmentOptions['nextPartner'] },
  orderId: string,
): Promise<string | { from: string; to: string }> {
  return deps.db.transaction(async (tx) => {
    const [order] = await tx.query<OrderRow & OrderSourcing>(
      `SELECT o.*, ${SOURCING_COLUMNS} FROM orders o ${SOURCING_JOIN} WHERE o.id = $1 FOR UPDATE OF o`,
      [orderId],
    );
    if (!order || !['paid', 'provisioning'].includes(order.state))
      return 'Only an order waiting for its eSIM (paid or being prepared) can go to another partner.';
    const from = deps.partners.nameOf(order.partner);
    if (order.partner_order_no || (await partnerWrites.unsettled(tx, orderId, 'esim/order')))
      return `${from} may hold its order already: retry the delivery, which reads ${from} first.`;
    const offer = deps.nextPartner?.(order, [order.partner, ...(await salesPaused(tx)).partners]);
    if (!offer || !(await switchPartner(tx, orderId, offer)))
      return 'No other partner sells this plan at a margin that holds, or it is paused.';
    await fenceOff(tx, orderJobKey(orderId));
    await queueOrder(tx, orderId, 'deliver', true);
    return { from, to: deps.partners.nameOf(offer.partner) };
  });
}

import { PARTNER_WRITE_GONE_AFTER_MS } from '../../config/constants.ts';
import type { Db } from '../db/db.types.ts';
import { partnerWrites } from '../fulfilment/partner-writes.ts';
import { releaseOrderEsims } from '../fulfilment/release-order-esims.ts';
import type { Partners } from '../partner/registry.types.ts';

/** At most this many a run: each costs a read at its partner, and the next tick takes the rest. */
const BATCH = 20;

/**
 * The partner orders that refunded orders left unsettled (fulfilment/steps/order-at-partner.ts
 * compensate: not found while a send might still have been on its way, or the partner not
 * answering then), read back once their sends have been quiet PARTNER_WRITE_GONE_AFTER_MS: an eSIM
 * the partner allocated after all is cancelled, then the write is settled applied; none, refused.
 * A read or a cancel that fails leaves it for the next run. Answers how many it settled.
 */
export async function settleRefundedOrderWrites(db: Db, partners: Pick<Partners, 'of'>): Promise<number> {
  const left = await db.query<{ id: number; order_id: string; partner: string; sent_at: Date }>(
    `SELECT w.id, w.order_id, w.partner, w.sent_at FROM partner_writes w JOIN orders o ON o.id = w.order_id
     WHERE w.call = 'esim/order' AND w.outcome = 'sent' AND o.state = 'refunded'
       AND coalesce(w.last_sent_at, w.sent_at) < now() - $1 * interval '1 millisecond'
     ORDER BY w.id LIMIT ${BATCH}`,
    [PARTNER_WRITE_GONE_AFTER_MS],
  );
  let settled = 0;
  for (const write of left) {
    const partner = partners.of(write.partner);
    try {
      const partnerOrderNo = await partner.findOrder(write.order_id, write.sent_at);
      if (partnerOrderNo)
        await releaseOrderEsims(partner, { id: write.order_id, partner: write.partner }, partnerOrderNo, (work) => db.transaction(work));
      await partnerWrites.settle(
        db,
        write.id,
        partnerOrderNo ? 'applied' : 'refused',
        `read back after the refund: ${partnerOrderNo ?? 'no order'}`,
      );
      settled++;
    } catch (error) {
      console.error(
        'reconcile: a refunded order’s partner order could not be read back or released',
        write.order_id,
        error instanceof Error ? error.message : error,
      );
    }
  }
  return settled;
}

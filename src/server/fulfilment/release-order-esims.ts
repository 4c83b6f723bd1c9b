import type { Queryable } from '../db/db.types.ts';
import { listedProfile } from '../partner/partner.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import { partnerWrites } from './partner-writes.ts';

/** Runs `work` in a transaction: the order's fenced one in its job (Lease.write), or a plain one outside it. */
export type InTransaction = <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>;

/**
 * Cancels at its partner every eSIM the partner allocated for an order that will not be delivered
 * (an order holds one), each cancel a partner write recorded before it is sent. A cancel whose
 * answer was lost or refused is settled by reading the eSIM: cancelled is applied; anything else
 * throws, and a later try reads it again (an earlier try's unsettled cancel is settled, or sent
 * again, rather than recorded twice). Only the order's own eSIMs: a partner order number can point
 * elsewhere (the partner's mistake or ours).
 */
export async function releaseOrderEsims(
  partner: EsimPartner,
  order: { id: string; partner: string },
  partnerOrderNo: string,
  inTransaction: InTransaction,
): Promise<void> {
  const answer = await partner.queryProfiles({ partnerOrderNo });
  const own = answer.status === 'ready' ? answer.profiles.filter((p) => p.transactionId === order.id) : [];
  for (const profile of own) {
    const esimTranNo = profile.esimTranNo;
    const earlier = await inTransaction((tx) => partnerWrites.unsettled(tx, order.id, 'esim/cancel'));
    const settle = (write: number) => inTransaction((tx) => partnerWrites.settle(tx, write, 'applied', 'undelivered eSIM cancelled'));
    // Cancelled already: by an earlier try whose answer was lost (settled now), or before it.
    if (profile.status === 'cancelled') {
      if (earlier) await settle(earlier.id);
      continue;
    }
    const write =
      earlier?.id ??
      (await inTransaction((tx) =>
        partnerWrites.record(tx, { orderId: order.id, call: 'esim/cancel', partner: order.partner, esimTranNo }),
      ));
    await partner.cancelProfile(esimTranNo).catch(async (error: unknown) => {
      if ((await listedProfile(partner, esimTranNo)).status !== 'cancelled') throw error;
    });
    await settle(write);
  }
}

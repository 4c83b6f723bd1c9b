import { PartnerError } from '../partner.ts';
import type { EsimPartner, PartnerOrphan } from '../partner.types.ts';
import type { EsimGoCall } from './client.ts';
import { esimKey } from './esim-key.ts';
import type { EsimReader } from './esim-reads.ts';
import { ordersBetween } from './ordering.ts';
import { iccidsOf } from './schemas.ts';

/**
 * eSIM Go's orphans (ordering.ts): eSIMs bought by a transaction whose answer was lost, which no
 * order of ours can ever claim, paid from the balance. The orders placed in the window (List orders
 * with their ICCIDs) that `known` does not claim for the shop (its orders' references, top-ups onto
 * its eSIMs) are read eSIM by eSIM: one without a label is an orphan, keyed `<ICCID>:`
 * (esim-key.ts), which cancelProfile releases: its unused bundle revoked with a refund to the
 * balance, refused once it reached a phone. A labelled one (label.ts) is an order's: left alone.
 * Read at the usage priority: it can wait.
 */
export function createOrphanFinder(call: EsimGoCall, reader: EsimReader): NonNullable<EsimPartner['findOrphans']> {
  const read = { priority: 'usage' } as const;
  return async (window, known) => {
    const orphans: PartnerOrphan[] = [];
    for (const order of await ordersBetween(call, window, read)) {
      const iccids = iccidsOf(order);
      if (iccids.length === 0 || (await known({ partnerOrderNo: order.orderReference, iccids }))) continue;
      for (const iccid of iccids) {
        const key = { iccid, customerRef: '' };
        try {
          await reader.detailsOf(key, read);
        } catch (error) {
          // Labelled (an order's), or no longer in the account (released before, or returned).
          if (error instanceof PartnerError && error.kind === 'not_found') continue;
          throw error;
        }
        orphans.push({ partnerOrderNo: order.orderReference, esimTranNo: esimKey(key) });
      }
    }
    return orphans;
  };
}

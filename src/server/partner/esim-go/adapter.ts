import type { EsimPartner } from '../partner.types.ts';
import { createCatalogue } from './catalogue.ts';
import { createEsimGoClient } from './client.ts';
import { PARTNER, type EsimGoConfig } from './config.ts';
import { createOrphanFinder } from './orphans.ts';
import { createEsimReader } from './esim-reads.ts';
import { cancelProfile, revokeProfile, setSuspended, topUp } from './esim-writes.ts';
import { parseEsimKey } from './esim-key.ts';
import { label } from './label.ts';
import { orderEsim } from './ordering.ts';

/**
 * eSIM Go (API v2.5, docs.esim-go.com), the shop's second wholesale partner, behind the partner
 * interface. Orders and top-ups are paid from the organisation's prepaid balance; prices are USD
 * × 10,000, volumes bytes (eSIM Go's are decimal: 1GB is 10^9 bytes).
 *
 * How the interface maps (why in each module):
 * - The eSIM's key (esimTranNo) is `<ICCID>:<customerRef>` (esim-key.ts): eSIM Go knows an eSIM by
 *   its ICCID alone, and hands ICCIDs out again; partnerOrderNo is eSIM Go's orderReference.
 * - orderEsim (ordering.ts): validate, then the transaction, sent once; its answer names the
 *   install details, so the profiles come with it. labelEsim (label.ts): the eSIM's customerRef
 *   set to our order once the shop stored it. findOrder: eSIM Go's orders
 *   carry nothing of ours, so an order whose answer was lost is never found (ordering.ts); its eSIM
 *   is an orphan, released by findOrphans and cancelProfile.
 * - queryProfiles and usage (esim-reads.ts): install details, eSIM details and its bundle assignments;
 *   the delivery's read, when the order's answer named no install details, is those alone.
 * - cancelProfile (esim-writes.ts): its unused bundles revoked with a refund to the balance, only for
 *   a never-installed eSIM; suspend and unsuspend: eSIM Go's v2.5 suspension; revokeProfile: refused,
 *   eSIM Go has no call that closes an eSIM for good; topUp: a bundle ordered onto the eSIM.
 * - findOrphans (orphans.ts): eSIMs bought by a transaction whose answer was lost, which no order
 *   claims; cancelProfile releases each by its unlabelled key (`<ICCID>:`).
 * - listPackages, listTopUps, balance (catalogue.ts); notifications.ts reads its signed callbacks.
 * Transport, retries, the request budget and the error codes: client.ts.
 */
export function createEsimGoPartner(config: EsimGoConfig): EsimPartner {
  const call = createEsimGoClient(config);
  const reader = createEsimReader(call);
  const catalogue = createCatalogue(call, reader);
  return {
    name: PARTNER,
    // An order assigns its bundle to a new eSIM at once (Create orders, assign: true): nothing to wait for.
    notifiesAllocation: false,
    // Validate and transaction, whose answer names the install details (ordering.ts).
    requestsPerDelivery: { order: 2, read: 0 },
    listPackages: catalogue.listPackages,
    orderEsim: (order) => orderEsim(call, reader, order),
    labelEsim: (esimTranNo) => {
      const key = parseEsimKey(esimTranNo);
      return key?.customerRef ? label(call, key.iccid, key.customerRef, { priority: 'usage' }) : Promise.resolve();
    },
    findOrder: () => Promise.resolve(undefined),
    queryProfiles: reader.queryProfiles,
    cancelProfile: (esimTranNo) => cancelProfile(call, reader, esimTranNo),
    suspendProfile: (esimTranNo) => setSuspended(call, reader, esimTranNo, true),
    unsuspendProfile: (esimTranNo) => setSuspended(call, reader, esimTranNo, false),
    revokeProfile,
    findOrphans: createOrphanFinder(call, reader),
    listTopUps: catalogue.listTopUps,
    topUp: (order) => topUp(call, reader, order),
    balance: catalogue.balance,
    usage: reader.usage,
  };
}

import type { EsimAccessStandIn } from '../../../stand-ins/esim-access/server.ts';
import { bundleBytes } from '../../../stand-ins/esim-go/esims.ts';
import type { EsimGoStandIn } from '../../../stand-ins/esim-go/server.ts';
import type { Db } from '../../../src/server/db/db.types.ts';
import type { EsimPartner } from '../../../src/server/partner/partner.types.ts';
import { esimKey, parseEsimKey } from '../../../src/server/partner/esim-go/esim-key.ts';
import { listedProfile } from '../../../src/server/partner/partner.ts';
import { ESIM_ACCESS } from '../../../src/server/partner/registry.ts';
import { ESIM_GO } from '../../../src/server/partner/esim-go/config.ts';

/**
 * One partner of a fault run as the run sees it from outside the shop: what its stand-in handed
 * out, the traveller's phone for its eSIMs, and its adapter reading it directly (not through the
 * fault proxy). The buyers and the cross-checks are written against this, whichever partner an
 * order ended at.
 */
export interface RunPartner {
  id: string;
  adapter: EsimPartner;
  /** Every eSIM it issued: the order of ours it is for (undefined: none, an orphan), and the shop's key for it. */
  esims(): Promise<{ orderId: string | undefined; key: string }[]>;
  /** How many eSIMs it issued in all, by its own count. */
  readonly issued: number;
  /**
   * The traveller's phone: installs the eSIM and uses it (in use), or installs it and deletes it
   * before it carried data; or uses it until 10 % or less is left as the partner reports it (an
   * automatic top-up's crossing, issue 49), answering how to report that same measure again.
   */
  phone(key: string): { install(): void; deleteUnused(): void; useNearlyAll(): Promise<() => void> };
  /** How many times this top-up order was applied, when the partner's requests name it (eSIM Go's do not). */
  topUpsApplied?(topUpOrderId: string): number;
  /** The bytes one of its packages (or top-ups) puts on an eSIM. */
  bytesOf(partnerCode: string): number;
}

export function esimAccessAtRun(standIn: EsimAccessStandIn, adapter: EsimPartner): RunPartner {
  return {
    id: ESIM_ACCESS,
    adapter,
    async esims() {
      const transactions = new Set<string>();
      for (const request of standIn.requests) {
        const body = request.body as { transactionId?: unknown } | undefined;
        if (request.call === 'esim/order' && typeof body?.transactionId === 'string') transactions.add(body.transactionId);
      }
      return [...transactions].flatMap((orderId) => {
        const key = standIn.tranNoOfTransaction(orderId);
        return key ? [{ orderId, key }] : [];
      });
    },
    get issued() {
      return standIn.esimCount;
    },
    phone: (key) => ({
      install: () => standIn.markInstalled(key),
      deleteUnused: () => {
        standIn.installTo(key, 'DOWNLOAD');
        standIn.installTo(key, 'DELETED');
      },
      // 95 % of its data, by a DATA_USAGE notification; the same measure may be notified again.
      useNearlyAll: async () => {
        const used = Math.ceil((await listedProfile(adapter, key)).totalBytes * 0.95);
        standIn.setUsage(key, used);
        return () => standIn.setUsage(key, used);
      },
    }),
    topUpsApplied: (id) => standIn.topUpsApplied(id),
    bytesOf: (code) => [...standIn.packages, ...standIn.topUpPackages].find((p) => p.packageCode === code)?.volume ?? NaN,
  };
}

/**
 * eSIM Go's orders carry nothing of ours, and the shop labels an eSIM only after it recorded its
 * order (label.ts): an eSIM is an order's when the shop holds the eSIM Go order that issued it
 * (`ordersOf`: each eSIM Go order reference the shop recorded, and its order), else an orphan.
 */
export function esimGoAtRun(
  standIn: EsimGoStandIn,
  adapter: EsimPartner,
  ordersOf: () => Promise<ReadonlyMap<string, string>>,
): RunPartner {
  const iccidOf = (key: string) => {
    const parsed = parseEsimKey(key);
    if (!parsed) throw new Error(`${key} is no eSIM Go key`);
    return parsed.iccid;
  };
  return {
    id: ESIM_GO,
    adapter,
    async esims() {
      const orderOf = await ordersOf();
      // A top-up is an order naming an eSIM issued before: each ICCID counts once, from the order that issued it.
      const issuedBy = new Map<string, string>();
      for (const placed of standIn.ordersPlaced())
        for (const iccid of placed.iccids) if (!issuedBy.has(iccid)) issuedBy.set(iccid, placed.orderReference);
      return [...issuedBy].map(([iccid, reference]) => {
        const orderId = orderOf.get(reference);
        return { orderId, key: esimKey({ iccid, customerRef: orderId ?? '' }) };
      });
    },
    get issued() {
      return standIn.esimCount;
    },
    phone: (key) => ({
      // A kilobyte starts its bundle: in use, its data still all but whole.
      install: () => standIn.useData(iccidOf(key), 1_000),
      deleteUnused: () => {
        standIn.installEsim(iccidOf(key), 'Installed');
        standIn.installEsim(iccidOf(key), 'Released');
      },
      // eSIM Go reports use at 80 and 100 % of a bundle only (Utilisation callbacks): all of it, used up.
      // Its callbacks are sent once each: the shop sees the measure again by reading it.
      useNearlyAll: async () => {
        const profile = await listedProfile(adapter, key);
        const left = profile.totalBytes - profile.usedBytes;
        if (left > 0) standIn.useData(iccidOf(key), left);
        return () => {};
      },
    }),
    bytesOf: (code) => {
      const bundle = standIn.bundles.find((b) => b.name === code);
      return bundle ? bundleBytes(bundle) : NaN;
    },
  };
}

/** Where an order's eSIM is: each partner that issued one for it, with its key. */
export async function esimsOfOrders(partners: readonly RunPartner[]): Promise<Map<string, { partner: RunPartner; key: string }[]>> {
  const byOrder = new Map<string, { partner: RunPartner; key: string }[]>();
  for (const partner of partners)
    for (const { orderId, key } of await partner.esims())
      if (orderId) byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), { partner, key }]);
  return byOrder;
}

/** The partner's order references the shop recorded, each with its order (esimGoAtRun's `ordersOf`). */
export async function recordedOrders(db: Db, partner: string): Promise<ReadonlyMap<string, string>> {
  const rows = await db.query<{ order_id: string; partner_order_no: string }>(
    `SELECT order_id, partner_order_no FROM order_sourcing WHERE partner = $1 AND partner_order_no IS NOT NULL`,
    [partner],
  );
  return new Map(rows.map((r) => [r.partner_order_no, r.order_id]));
}

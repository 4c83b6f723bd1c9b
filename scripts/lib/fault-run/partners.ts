import type { EsimAccessStandIn } from '../../../stand-ins/esim-access/server.ts';
import { bundleBytes } from '../../../stand-ins/esim-go/esims.ts';
import type { EsimGoStandIn } from '../../../stand-ins/esim-go/server.ts';
import type { EsimPartner } from '../../../src/server/partner/partner.types.ts';
import { esimKey, parseEsimKey } from '../../../src/server/partner/esim-go/esim-key.ts';
import { ESIM_ACCESS, ESIM_GO } from '../../../src/server/partner/registry.ts';

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
  esims(): { orderId: string | undefined; key: string }[];
  /** How many eSIMs it issued in all, by its own count. */
  readonly issued: number;
  /** The traveller's phone: installs the eSIM and uses it (in use), or installs it and deletes it before it carried data. */
  phone(key: string): { install(): void; deleteUnused(): void };
  /** How many times this top-up order was applied, when the partner's requests name it (eSIM Go's do not). */
  topUpsApplied?(topUpOrderId: string): number;
  /** The bytes one of its packages (or top-ups) puts on an eSIM. */
  bytesOf(partnerCode: string): number;
}

export function esimAccessAtRun(standIn: EsimAccessStandIn, adapter: EsimPartner): RunPartner {
  return {
    id: ESIM_ACCESS,
    adapter,
    esims() {
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
    }),
    topUpsApplied: (id) => standIn.topUpsApplied(id),
    bytesOf: (code) => [...standIn.packages, ...standIn.topUpPackages].find((p) => p.packageCode === code)?.volume ?? NaN,
  };
}

export function esimGoAtRun(standIn: EsimGoStandIn, adapter: EsimPartner): RunPartner {
  const iccidOf = (key: string) => {
    const parsed = parseEsimKey(key);
    if (!parsed) throw new Error(`${key} is no eSIM Go key`);
    return parsed.iccid;
  };
  return {
    id: ESIM_GO,
    adapter,
    esims() {
      // A top-up is an order naming an eSIM issued before: each ICCID counts once, from the order that issued it.
      const iccids = new Set(standIn.ordersPlaced().flatMap((o) => o.iccids));
      return [...iccids].map((iccid) => {
        const customerRef = standIn.esim(iccid)?.customerRef ?? '';
        return { orderId: customerRef || undefined, key: esimKey({ iccid, customerRef }) };
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
    }),
    bytesOf: (code) => {
      const bundle = standIn.bundles.find((b) => b.name === code);
      return bundle ? bundleBytes(bundle) : NaN;
    },
  };
}

/** Where an order's eSIM is: each partner that issued one for it, with its key. */
export function esimsOfOrders(partners: readonly RunPartner[]): Map<string, { partner: RunPartner; key: string }[]> {
  const byOrder = new Map<string, { partner: RunPartner; key: string }[]>();
  for (const partner of partners)
    for (const { orderId, key } of partner.esims()) if (orderId) byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), { partner, key }]);
  return byOrder;
}

import { PartnerError } from '../partner.ts';
import type { EsimPartner, EsimUsage, PackageQuery, ProfileAnswer, TopUpResult } from '../partner.types.ts';
import { NotFound } from '../partner-http.ts';
import { createEsimAccessClient, NOT_ALLOCATED } from './client.ts';
import { ESIM_ACCESS_REQUESTS_PER_DELIVERY, PARTNER, type EsimAccessConfig } from './config.ts';
import {
  BalanceObj,
  FIXED_DATA,
  mapEsimAccessCataloguePackage,
  mapEsimAccessPackage,
  mapEsimAccessProfile,
  OrderObj,
  PackageListObj,
  partnerTime,
  PRE_ALLOCATION,
  QueryObj,
  TopUpObj,
  UsageObj,
} from './schemas.ts';

/**
 * The eSIM Access open API (docs.esimaccess.com) behind the partner interface: each method one
 * call through the client (client.ts: signing, the envelope, retries, the request budget), its
 * answer read with schemas.ts. Prices are US dollars × 10,000, volumes bytes.
 */

/** eSIMs per esim/usage/query call, at most (docs.esimaccess.com, Usage Check). */
const USAGE_QUERY_MAX = 10;
/** How far around an order's time to look for it, and how many pages of 50 at most. */
const FIND_ORDER_WINDOW_MS = 10 * 60_000;
const FIND_ORDER_MAX_PAGES = 20;

type EsimAccessCall = ReturnType<typeof createEsimAccessClient>;

/** esim/query for an order's profiles or one eSIM (EsimPartner.queryProfiles). */
async function queryProfiles(
  call: EsimAccessCall,
  which: Parameters<EsimPartner['queryProfiles']>[0],
  options: Parameters<EsimPartner['queryProfiles']>[1] = {},
): Promise<ProfileAnswer> {
  const byOrder = 'partnerOrderNo' in which;
  const body = {
    ...(byOrder ? { orderNo: which.partnerOrderNo } : { esimTranNo: which.esimTranNo }),
    iccid: '',
    pager: { pageNum: 1, pageSize: 50 },
  };
  try {
    return await call(
      'esim/query',
      body,
      (obj): ProfileAnswer => {
        const list = QueryObj.parse(obj).esimList;
        // An order whose profiles are not listed yet is still being allocated; an eSIM asked for by
        // its own id that is not listed does not exist (the docs are silent on both cases).
        if (list.length === 0 && !byOrder) throw new NotFound(`no eSIM ${which.esimTranNo}`);
        if (list.length === 0 || list.some((raw) => PRE_ALLOCATION.has(raw.esimStatus) || !raw.ac)) {
          return { status: 'allocating' };
        }
        return { status: 'ready', profiles: list.map(mapEsimAccessProfile) };
      },
      { priority: options.priority ?? (byOrder ? 'delivery' : 'refund'), signal: options.signal },
    );
  } catch (error) {
    if (error instanceof PartnerError && error.code === NOT_ALLOCATED) return { status: 'allocating' };
    throw error;
  }
}

// Query by time window (docs: esim/query takes startTime and endTime, UTC): the profiles of the
// orders placed then, each naming its transactionId. The window is wide: clocks differ.
async function findOrder(call: EsimAccessCall, transactionId: string, placedAround: Date): Promise<string | undefined> {
  const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;
  const window = {
    startTime: at(placedAround.getTime() - FIND_ORDER_WINDOW_MS),
    endTime: at(placedAround.getTime() + FIND_ORDER_WINDOW_MS),
  };
  for (let pageNum = 1; pageNum <= FIND_ORDER_MAX_PAGES; pageNum++) {
    const page = await call(
      'esim/query',
      { ...window, iccid: '', pager: { pageNum, pageSize: 50 } },
      (obj) => QueryObj.parse(obj).esimList,
      {
        priority: 'delivery',
      },
    );
    const found = page.find((raw) => raw.transactionId === transactionId);
    if (found?.orderNo) return found.orderNo;
    if (page.length < 50) return undefined;
  }
  return undefined;
}

export function createEsimAccessPartner(config: EsimAccessConfig): EsimPartner {
  const call = createEsimAccessClient(config);
  return {
    name: PARTNER,
    notifiesAllocation: true,
    requestsPerDelivery: ESIM_ACCESS_REQUESTS_PER_DELIVERY,
    async listPackages(query: PackageQuery = {}) {
      const body: Record<string, string> = { type: 'BASE' };
      if (query.location) body['locationCode'] = query.location;
      if (query.packageCode) body['packageCode'] = query.packageCode;
      // Every kind of plan (fixed, daily, unlimited) with its facts; one the mapping cannot state
      // truthfully (an unknown dataType, no networks) fails the whole listing, so the generator never publishes it.
      return call('package/list', body, (obj) => PackageListObj.parse(obj).packageList.map(mapEsimAccessCataloguePackage));
    },

    // Retried like every call: the partner keeps one order per transactionId, so a repeat after a
    // lost answer returns the same orderNo instead of buying a second eSIM (DESIGN 6).
    async orderEsim({ transactionId, partnerCode, priceUsdE4, count }) {
      const item: Record<string, string | number> = { packageCode: partnerCode, count };
      const body: Record<string, unknown> = { transactionId, packageInfoList: [item] };
      if (priceUsdE4 !== undefined) {
        // With a price the partner refuses the order (200005/200006) rather than charge another.
        item['price'] = priceUsdE4;
        body['amount'] = priceUsdE4 * count;
      }
      return call('esim/order', body, (obj) => ({ partnerOrderNo: OrderObj.parse(obj).orderNo }));
    },

    queryProfiles: (which, options) => queryProfiles(call, which, options),

    findOrder: (transactionId, placedAround) => findOrder(call, transactionId, placedAround),

    async balance(options = {}) {
      return call('balance/query', {}, (obj) => BalanceObj.parse(obj).balance, options);
    },

    async cancelProfile(esimTranNo) {
      await call('esim/cancel', { esimTranNo }, () => undefined);
    },

    // Suspend, Unsuspend and Revoke Profile (docs: esimTranNo or iccid; the answer's obj is {}).
    // Sent once: a repeat after a lost answer that was applied is refused (200002) like a real
    // refusal, so the caller settles a failure by reading the eSIM's state (esims/service-actions.ts).
    async suspendProfile(esimTranNo) {
      await call('esim/suspend', { esimTranNo }, () => undefined, { retries: 0 });
    },

    async unsuspendProfile(esimTranNo) {
      await call('esim/unsuspend', { esimTranNo }, () => undefined, { retries: 0 });
    },

    async revokeProfile(esimTranNo) {
      await call('esim/revoke', { esimTranNo }, () => undefined, { retries: 0 });
    },

    // package/list with type TOPUP and the eSIM's iccid (docs.esimaccess.com, package/list; Top Up):
    // the partner's TOPUP_ packages for it, empty when its package cannot be topped up. A read the
    // buyer waits for (the top-up offer, the top-up order): in the budget with refunds and top-ups.
    async listTopUps(iccid, options = {}) {
      return call(
        'package/list',
        { type: 'TOPUP', iccid },
        (obj) =>
          PackageListObj.parse(obj)
            .packageList.filter((raw) => raw.dataType === FIXED_DATA)
            .map(mapEsimAccessPackage),
        { priority: 'refund', signal: options.signal },
      );
    },

    // The docs do not say that a top-up's transactionId makes a repeat harmless, so a top-up is
    // sent once: after a failure the caller checks the eSIM's totals before trying again.
    async topUp({ esimTranNo, partnerCode, transactionId }): Promise<TopUpResult> {
      return call(
        'esim/topup',
        { esimTranNo, packageCode: partnerCode, transactionId },
        (obj) => {
          const raw = TopUpObj.parse(obj);
          return {
            totalBytes: raw.totalVolume,
            usedBytes: raw.orderUsage,
            validityDays: raw.totalDuration,
            expiresAt: partnerTime(raw.expiredTime),
          };
        },
        { retries: 0 },
      );
    },

    // The partner takes at most 10 eSIMs a usage call (docs.esimaccess.com, Usage Check): a longer
    // list goes in calls of 10, one after another through the limiter.
    async usage(esimTranNos, options = {}): Promise<EsimUsage[]> {
      const usages: EsimUsage[] = [];
      for (let from = 0; from < esimTranNos.length; from += USAGE_QUERY_MAX) {
        const esimTranNoList = esimTranNos.slice(from, from + USAGE_QUERY_MAX);
        usages.push(
          ...(await call(
            'esim/usage/query',
            { esimTranNoList },
            (obj) =>
              UsageObj.parse(obj).map((raw) => ({
                esimTranNo: raw.esimTranNo,
                usedBytes: raw.dataUsage,
                totalBytes: raw.totalData,
                measuredAt: partnerTime(raw.lastUpdateTime),
              })),
            options,
          )),
        );
      }
      return usages;
    },
  };
}

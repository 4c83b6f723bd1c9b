import { randomBytes, randomUUID } from 'node:crypto';
import type { StandInPackage } from './catalogue.ts';

/**
 * The stand-in's eSIMs: orders, allocation after a delay, cancel, top-up, usage, and the
 * webhook notifications these send, in eSIM Access's field names (docs.esimaccess.com). In memory
 * only. Where the docs are silent (an unknown esimTranNo, top-up answers) the choice is marked.
 */

/** A business refusal: answered as HTTP 200 with `success: false` and the partner's code. */
export class PartnerRefusal extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const REFUSE = {
  missingParam: () => new PartnerRefusal('000105', 'Mandatory params missing'),
  notAllowed: () => new PartnerRefusal('200002', 'Operation not allowed due to order status'),
  priceError: () => new PartnerRefusal('200005', 'Package price error'),
  wrongAmount: () => new PartnerRefusal('200006', 'Wrong total amount'),
  orderParam: () => new PartnerRefusal('200008', 'Order parameter error'),
  notAllocated: () => new PartnerRefusal('200010', 'Profile not yet allocated'),
  noPackage: () => new PartnerRefusal('310241', 'packageCode does not exist'),
  // The docs name no code for a top-up package that is not one of the eSIM's (Top Up: the code comes
  // from package/list with type TOPUP and the eSIM's iccid): the stand-in's guess is 'does not exist'.
  notItsTopUp: () => new PartnerRefusal('310241', 'packageCode is not a top-up of this eSIM'),
  noOrder: () => new PartnerRefusal('310272', 'orderNo does not exist'),
  // Docs, error codes: 200007 'insufficient account balance' (orders and top-ups are paid from it).
  noBalance: () => new PartnerRefusal('200007', 'Insufficient account balance'),
  // The docs name no code for a repeated transactionId: the stand-in's guess, for setRepeatedOrderAnswer('refuse').
  duplicateTransaction: () => new PartnerRefusal('200004', 'Duplicate transactionId'),
  // The docs name no code for an unknown esimTranNo; the stand-in answers the order's.
  noEsim: () => new PartnerRefusal('310272', 'esimTranNo does not exist'),
};

/** A webhook notification as the partner sends it. */
export interface PartnerNotificationBody {
  notifyType: 'ORDER_STATUS' | 'ESIM_STATUS' | 'DATA_USAGE' | 'VALIDITY_USAGE' | 'SMDP_EVENT';
  notifyId: string;
  eventGenerateTime: string;
  content: Record<string, unknown>;
}

interface StandInEsim {
  esimTranNo: string;
  orderNo: string;
  transactionId: string;
  iccid: string;
  matchingId: string;
  pkg: StandInPackage;
  esimStatus: 'GOT_RESOURCE' | 'IN_USE' | 'USED_UP' | 'CANCEL';
  smdpStatus: 'RELEASED' | 'ENABLED';
  totalVolume: number;
  totalDuration: number;
  orderUsage: number;
  usageMeasuredAt: Date | null;
  installedAt: Date | null;
  /** Unused: the last day to install it; installed: the end of its validity. */
  expiresAt: Date;
}

interface StandInOrder {
  orderNo: string;
  transactionId: string;
  placedAt: Date;
  allocated: boolean;
  esims: StandInEsim[];
}

export interface EsimStoreOptions {
  packages: readonly StandInPackage[];
  /** The top-up packages an eSIM of this base package may take (none if it cannot be topped up). */
  topUpsOf: (pkg: StandInPackage) => readonly StandInPackage[];
  /** The account's prepaid balance, USD × 10,000 (default: plenty). */
  balanceUsdE4?: number;
  allocationDelayMs: number;
  smdpAddress: string;
  notify: (notification: PartnerNotificationBody) => void;
}

const DAY_MS = 86_400_000;

export function createEsimStore(options: EsimStoreOptions) {
  const orders = new Map<string, StandInOrder>();
  const orderByTransaction = new Map<string, StandInOrder>();
  const esims = new Map<string, StandInEsim>();
  /** Every top-up applied, by transactionId (a repeat appears twice). */
  const topUps: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const issued = new Set<string>();
  let repeatedOrderAnswer: 'same' | 'refuse' = 'same';
  // The partner sells from a prepaid balance (docs: balance/query; an order or top-up above it is
  // refused with 200007, a cancelled eSIM's price goes back to it).
  let balance = options.balanceUsdE4 ?? 1_000_000_000_000;
  const charge = (amount: number) => {
    if (amount > balance) throw REFUSE.noBalance();
    balance -= amount;
  };

  // Orders name base packages only; a top-up package's code (TOPUP_…) is for esim/topup.
  const packageByCode = (code: unknown) => (typeof code === 'string' ? options.packages.find((p) => p.packageCode === code) : undefined);
  const days = (pkg: StandInPackage) => (pkg.durationUnit === 'MONTH' ? pkg.duration * 30 : pkg.duration);

  function notify(notifyType: PartnerNotificationBody['notifyType'], content: Record<string, unknown>) {
    options.notify({ notifyType, notifyId: randomUUID().replaceAll('-', ''), eventGenerateTime: partnerTime(new Date()), content });
  }
  const aboutEsim = (esim: StandInEsim) => ({
    orderNo: esim.orderNo,
    transactionId: esim.transactionId,
    esimTranNo: esim.esimTranNo,
    iccid: esim.iccid,
  });

  function findEsim(body: Record<string, unknown>): StandInEsim {
    const esim =
      typeof body['esimTranNo'] === 'string' && body['esimTranNo']
        ? esims.get(body['esimTranNo'])
        : [...esims.values()].find((e) => e.iccid === body['iccid'] && e.esimStatus !== 'CANCEL');
    if (!esim) throw REFUSE.noEsim();
    if (!orders.get(esim.orderNo)!.allocated) throw REFUSE.notAllocated();
    return esim;
  }

  function order(body: Record<string, unknown>) {
    const { transactionId, packageInfoList, amount } = body;
    if (typeof transactionId !== 'string' || !transactionId || !Array.isArray(packageInfoList) || packageInfoList.length === 0) {
      throw REFUSE.missingParam();
    }
    // The same transactionId is the same order: never a second eSIM. The docs say only that a
    // duplicate "will be identified as the same request", not what it answers: the stand-in answers
    // the same orderNo, or (setRepeatedOrderAnswer('refuse')) a refusal, and the shop must cope with both.
    const known = orderByTransaction.get(transactionId);
    if (known && repeatedOrderAnswer === 'refuse') throw REFUSE.duplicateTransaction();
    if (known) return { orderNo: known.orderNo, transactionId };

    const items = packageInfoList.map((raw: Record<string, unknown>) => {
      const pkg = packageByCode(raw['packageCode']) ?? options.packages.find((p) => p.slug === raw['slug']);
      if (!pkg) throw REFUSE.noPackage();
      const count = raw['count'];
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) throw REFUSE.orderParam();
      if (raw['price'] !== undefined && raw['price'] !== pkg.price) throw REFUSE.priceError();
      return { pkg, count };
    });
    const total = items.reduce((sum, { pkg, count }) => sum + pkg.price * count, 0);
    if (amount !== undefined && amount !== total) throw REFUSE.wrongAmount();
    charge(total);

    const now = Date.now();
    const stamp = new Date(now).toISOString().slice(2, 10).replaceAll('-', '');
    // Never reused, not even by a restarted stand-in on the same day: the shop's database outlives
    // this process, and a real partner never hands out an esimTranNo twice.
    const next = (): string => {
      const number = `${stamp}${Array.from(randomBytes(10), (b) => b % 10).join('')}`;
      if (issued.has(number)) return next();
      issued.add(number);
      return number;
    };
    const placed: StandInOrder = { orderNo: `B${next()}`, transactionId, placedAt: new Date(now), allocated: false, esims: [] };
    for (const { pkg, count } of items) {
      for (let i = 0; i < count; i++) {
        const esim: StandInEsim = {
          esimTranNo: next(),
          orderNo: placed.orderNo,
          transactionId,
          iccid: `8985${Array.from(randomBytes(15), (b) => b % 10).join('')}`,
          matchingId: randomBytes(16).toString('hex').toUpperCase(),
          pkg,
          esimStatus: 'GOT_RESOURCE',
          smdpStatus: 'RELEASED',
          totalVolume: pkg.volume,
          totalDuration: days(pkg),
          orderUsage: 0,
          usageMeasuredAt: null,
          installedAt: null,
          expiresAt: new Date(now + (pkg.unusedValidTime || 180) * DAY_MS),
        };
        placed.esims.push(esim);
        esims.set(esim.esimTranNo, esim);
      }
    }
    orders.set(placed.orderNo, placed);
    orderByTransaction.set(transactionId, placed);
    const timer = setTimeout(() => {
      timers.delete(timer);
      placed.allocated = true;
      notify('ORDER_STATUS', { orderNo: placed.orderNo, transactionId, orderStatus: 'GOT_RESOURCE' });
    }, options.allocationDelayMs);
    timers.add(timer);
    return { orderNo: placed.orderNo, transactionId };
  }

  function profile(esim: StandInEsim) {
    return {
      esimTranNo: esim.esimTranNo,
      orderNo: esim.orderNo,
      transactionId: esim.transactionId,
      imsi: '',
      iccid: esim.iccid,
      ac: `LPA:1$${options.smdpAddress}$${esim.matchingId}`,
      qrCodeUrl: '',
      smdpStatus: esim.smdpStatus,
      esimStatus: esim.esimStatus,
      activeType: 1,
      dataType: 1,
      installationTime: esim.installedAt ? partnerTime(esim.installedAt) : null,
      activateTime: esim.installedAt ? partnerTime(esim.installedAt) : null,
      expiredTime: partnerTime(esim.expiresAt),
      totalVolume: esim.totalVolume,
      totalDuration: esim.totalDuration,
      durationUnit: 'DAY',
      orderUsage: esim.orderUsage,
      packageList: [
        {
          packageName: esim.pkg.name,
          packageCode: esim.pkg.packageCode,
          slug: esim.pkg.slug,
          duration: days(esim.pkg),
          volume: esim.pkg.volume,
          locationCode: esim.pkg.slug.slice(0, esim.pkg.slug.indexOf('_')),
        },
      ],
    };
  }

  function query(body: Record<string, unknown>) {
    const { orderNo, esimTranNo, iccid, pager } = body;
    if (typeof pager !== 'object' || pager === null) throw REFUSE.missingParam();
    let list: StandInEsim[];
    if (typeof orderNo === 'string' && orderNo) {
      const found = orders.get(orderNo);
      if (!found) throw REFUSE.noOrder();
      if (!found.allocated) throw REFUSE.notAllocated();
      list = found.esims;
    } else if ((typeof esimTranNo === 'string' && esimTranNo) || (typeof iccid === 'string' && iccid)) {
      list = [...esims.values()].filter((e) => (esimTranNo ? e.esimTranNo === esimTranNo : e.iccid === iccid));
      if (list.some((e) => !orders.get(e.orderNo)!.allocated)) throw REFUSE.notAllocated();
    } else if (typeof body['startTime'] === 'string' && typeof body['endTime'] === 'string') {
      // The allocated profiles of the orders placed in a time window (docs: query by startTime and
      // endTime, UTC, in the partner's time format), each with the order's transactionId.
      const from = Date.parse(body['startTime']);
      const to = Date.parse(body['endTime']);
      if (Number.isNaN(from) || Number.isNaN(to) || to < from) throw REFUSE.orderParam();
      const all = [...orders.values()].filter((o) => o.allocated && o.placedAt.getTime() >= from && o.placedAt.getTime() <= to).flatMap((o) => o.esims);
      const { pageNum = 1, pageSize = 50 } = pager as { pageNum?: number; pageSize?: number };
      const page = all.slice((pageNum - 1) * pageSize, pageNum * pageSize);
      return { esimList: page.map(profile), pager: { pageNum, pageSize, total: all.length } };
    } else {
      throw REFUSE.missingParam();
    }
    return { esimList: list.map(profile), pager: { pageNum: 1, pageSize: list.length, total: list.length } };
  }

  function cancel(body: Record<string, unknown>) {
    const esim = findEsim(body);
    // Only a never-installed eSIM is refunded (GOT_RESOURCE + RELEASED, per the docs).
    if (esim.esimStatus !== 'GOT_RESOURCE' || esim.smdpStatus !== 'RELEASED') throw REFUSE.notAllowed();
    esim.esimStatus = 'CANCEL';
    balance += esim.pkg.price;
    notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: 'CANCEL', smdpStatus: esim.smdpStatus });
    return null;
  }

  // Answer fields: the docs show none for top-up; these are esim/query's names for the new totals.
  // The docs do not promise that a repeated transactionId is harmless, so the stand-in assumes the
  // worst: every top-up request adds its data again (the shop must read before repeating one).
  // Top Up (docs: esim/topup with esimTranNo or iccid, a TOPUP_ packageCode, transactionId): only one
  // of the eSIM's own top-ups (package/list, type TOPUP, its iccid), charged at that package's price.
  function topUp(body: Record<string, unknown>) {
    const { transactionId, packageCode } = body;
    if (typeof transactionId !== 'string' || !transactionId || typeof packageCode !== 'string' || !packageCode) throw REFUSE.missingParam();
    const esim = findEsim(body);
    const pkg = options.topUpsOf(esim.pkg).find((p) => p.packageCode === packageCode);
    if (!pkg) throw REFUSE.notItsTopUp();
    if (esim.esimStatus === 'CANCEL' || esim.expiresAt.getTime() < Date.now()) throw REFUSE.notAllowed();
    charge(pkg.price);
    esim.totalVolume += pkg.volume;
    esim.totalDuration += days(pkg);
    if (esim.installedAt) esim.expiresAt = new Date(esim.expiresAt.getTime() + days(pkg) * DAY_MS);
    if (esim.esimStatus === 'USED_UP') esim.esimStatus = 'IN_USE';
    const answer = {
      transactionId,
      iccid: esim.iccid,
      expiredTime: partnerTime(esim.expiresAt),
      totalVolume: esim.totalVolume,
      totalDuration: esim.totalDuration,
      orderUsage: esim.orderUsage,
    };
    topUps.push(transactionId);
    return answer;
  }

  function usage(body: Record<string, unknown>) {
    const list = body['esimTranNoList'];
    if (!Array.isArray(list) || list.length === 0) throw REFUSE.missingParam();
    return {
      esimUsageList: list.flatMap((id) => {
        const esim = esims.get(String(id));
        if (!esim) return [];
        const lastUpdateTime = esim.usageMeasuredAt ? partnerTime(esim.usageMeasuredAt) : null;
        return [{ esimTranNo: esim.esimTranNo, dataUsage: esim.orderUsage, totalData: esim.totalVolume, lastUpdateTime }];
      }),
    };
  }

  /** The allocated eSIM, or an Error for the test that asked about one that is not. */
  function allocated(esimTranNo: string): StandInEsim {
    const esim = esims.get(esimTranNo);
    if (!esim || !orders.get(esim.orderNo)!.allocated) throw new Error(`stand-in: no allocated eSIM ${esimTranNo}`);
    return esim;
  }

  return {
    routes: {
      'esim/order': order,
      'esim/query': query,
      'esim/cancel': cancel,
      'esim/topup': topUp,
      'esim/usage/query': usage,
      'balance/query': () => ({ balance }),
    } as Record<string, (body: Record<string, unknown>) => unknown>,

    /** The traveller installs the eSIM and it goes online: not refundable from now on. */
    markInstalled(esimTranNo: string): void {
      const esim = allocated(esimTranNo);
      const now = new Date();
      esim.installedAt = now;
      esim.smdpStatus = 'ENABLED';
      esim.esimStatus = 'IN_USE';
      esim.expiresAt = new Date(now.getTime() + esim.totalDuration * DAY_MS);
      notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: esim.esimStatus, smdpStatus: esim.smdpStatus });
    },

    /** The partner measures this much data used (a DATA_USAGE notification; used up at the total). */
    setUsage(esimTranNo: string, usedBytes: number): void {
      const esim = allocated(esimTranNo);
      esim.orderUsage = usedBytes;
      esim.usageMeasuredAt = new Date();
      const remain = Math.max(0, esim.totalVolume - usedBytes);
      notify('DATA_USAGE', {
        ...aboutEsim(esim),
        totalVolume: esim.totalVolume,
        orderUsage: usedBytes,
        remain,
        lastUpdateTime: partnerTime(esim.usageMeasuredAt),
        remainThreshold: esim.totalVolume ? Math.round((remain / esim.totalVolume) * 100) / 100 : 0,
      });
      if (remain === 0 && esim.esimStatus === 'IN_USE') {
        esim.esimStatus = 'USED_UP';
        notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: esim.esimStatus, smdpStatus: esim.smdpStatus });
      }
    },

    /** The base package of the eSIM with this ICCID (package/list with type TOPUP and an iccid). */
    packageOfIccid(iccid: string): StandInPackage | undefined {
      return [...esims.values()].find((e) => e.iccid === iccid && e.esimStatus !== 'CANCEL')?.pkg;
    },

    /** The allocated eSIM with this ICCID (what a buyer's page shows), for tests in another process. */
    tranNoOfIccid(iccid: string): string | undefined {
      return [...esims.values()].find((e) => e.iccid === iccid && e.esimStatus !== 'CANCEL')?.esimTranNo;
    },

    /** The eSIM of the order placed with this transactionId (the shop's order id). */
    tranNoOfTransaction(transactionId: string): string | undefined {
      return orderByTransaction.get(transactionId)?.esims[0]?.esimTranNo;
    },

    /** The prepaid balance, USD × 10,000: set by a test (an account run dry, then topped up). */
    setBalance(usdE4: number): void {
      balance = usdE4;
    },

    /** What a repeated transactionId answers: the same orderNo (the default) or a refusal. */
    setRepeatedOrderAnswer(answer: 'same' | 'refuse'): void {
      repeatedOrderAnswer = answer;
    },

    /** How many top-ups were applied with this transactionId (more than one: a top-up bought twice). */
    topUpsApplied(transactionId: string): number {
      return topUps.filter((id) => id === transactionId).length;
    },

    /** How many eSIMs the stand-in has handed out in all (a repeated order makes none). */
    get esimCount(): number {
      return esims.size;
    },

    close(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** The partner's time format: ISO 8601 to the second with '+0000'. */
function partnerTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+0000`;
}

import { StandInRefusal } from '../refusal.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { StandInPackage } from './catalogue.ts';

/**
 * The stand-in's eSIMs: orders, allocation after a delay, cancel, suspend, unsuspend, revoke,
 * top-up, usage, and the webhook notifications these send, in eSIM Access's field names (docs.esimaccess.com). In memory
 * only. Where the docs are silent (an unknown esimTranNo, top-up answers) the choice is marked.
 */

/** A business refusal: answered as HTTP 200 with `success: false` and the partner's code. */
export class PartnerRefusal extends StandInRefusal<string> {}

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

/**
 * A webhook notification as the partner sends it (docs, Webhooks): `{ notifyType, notifyId,
 * eventGenerateTime, content }`. The older documented samples have neither notifyId nor
 * eventGenerateTime; the stand-in sends that shape only when a test asks for it.
 */
export interface PartnerNotificationBody {
  notifyType: 'CHECK_HEALTH' | 'ORDER_STATUS' | 'ESIM_STATUS' | 'DATA_USAGE' | 'VALIDITY_USAGE' | 'SMDP_EVENT';
  notifyId?: string;
  eventGenerateTime?: string;
  content: Record<string, unknown>;
}

/**
 * How far a traveller's phone has taken an eSIM. The SM-DP+ steps (docs, Query All Allocated
 * Profiles, smdpStatus: DOWNLOAD 'has been downloaded', INSTALLATION 'has been installed', ENABLED
 * 'has been enabled'), while esimStatus stays GOT_RESOURCE (docs, Webhooks, SMDP_EVENT: the
 * installation sequence), then IN_USE when it first uses data.
 */
export type InstallStage = 'DOWNLOAD' | 'INSTALLATION' | 'ENABLED' | 'IN_USE' | 'DELETED';
const INSTALL_STAGES: readonly InstallStage[] = ['DOWNLOAD', 'INSTALLATION', 'ENABLED', 'IN_USE'];

/** The shape of a VALIDITY_USAGE notification: today's, or the older sample's without esimTranNo or notifyId. */
export type NotificationShape = 'current' | 'older';

/**
 * Made-up profile details in the partner's formats (docs, Query All Allocated Profiles: apn
 * 'drei.at', qrCodeUrl and shortUrl on p.qrsim.net). Hosts under .invalid, like the SM-DP+ address:
 * nothing real is named, and nothing resolves.
 */
const APN = 'internet.stand-in.invalid';
const QR_BASE_URL = 'https://qr.esim-access.stand-in.invalid';

interface StandInEsim {
  esimTranNo: string;
  orderNo: string;
  transactionId: string;
  iccid: string;
  matchingId: string;
  pkg: StandInPackage;
  esimStatus: LiveStatus | 'SUSPENDED' | 'CANCEL' | 'REVOKED';
  /** While SUSPENDED: the status unsuspending gives back. */
  suspendedFrom: LiveStatus | null;
  smdpStatus: 'RELEASED' | 'DOWNLOAD' | 'INSTALLATION' | 'ENABLED' | 'DELETED';
  /** The phone's eUICC id: '' until it downloads the profile (docs: the eid column of the profile states). */
  eid: string;
  imsi: string;
  msisdn: string;
  /** The id in its QR code's and short link's URLs. */
  qrId: string;
  totalVolume: number;
  totalDuration: number;
  orderUsage: number;
  usageMeasuredAt: Date | null;
  /** When its validity started (activateTime): at installation (activeType 1) or first use (activeType 2). */
  installedAt: Date | null;
  /** Unused: the last day to install it; installed: the end of its validity. */
  expiresAt: Date;
}

/** The esimStatus values of an eSIM that has its data service (docs, Query All Allocated Profiles: New, In Use, Depleted). */
type LiveStatus = 'GOT_RESOURCE' | 'IN_USE' | 'USED_UP';
/** Closed for good: cancelled (refunded) or revoked (not refunded). */
const closed = (esim: StandInEsim) => esim.esimStatus === 'CANCEL' || esim.esimStatus === 'REVOKED';
const isLive = (status: StandInEsim['esimStatus']): status is LiveStatus =>
  status === 'GOT_RESOURCE' || status === 'IN_USE' || status === 'USED_UP';

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
  /** Sends a notification; those of one eSIM (`esimTranNo`) are to arrive in the order sent. */
  notify: (notification: PartnerNotificationBody, esimTranNo?: string) => void;
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

  function notify(
    notifyType: PartnerNotificationBody['notifyType'],
    content: Record<string, unknown>,
    esim?: StandInEsim,
    shape: NotificationShape = 'current',
  ) {
    const body: PartnerNotificationBody =
      shape === 'older'
        ? { notifyType, content }
        : { notifyType, notifyId: randomUUID().replaceAll('-', ''), eventGenerateTime: partnerTime(new Date()), content };
    options.notify(body, esim?.esimTranNo);
  }
  /** The SM-DP+'s sequence number of its events (docs, SMDP_EVENT: seqNumber). */
  let smdpSequence = 0;
  /** An SM-DP+ step (docs, Webhooks, SMDP_EVENT sample: eid, timestamp, seqNumber, notifyStatus). */
  function smdpEvent(esim: StandInEsim) {
    const now = partnerTime(new Date());
    notify(
      'SMDP_EVENT',
      {
        iccid: esim.iccid,
        eid: esim.eid,
        orderNo: esim.orderNo,
        esimTranNo: esim.esimTranNo,
        transactionId: esim.transactionId,
        esimStatus: esim.esimStatus,
        smdpStatus: esim.smdpStatus,
        timestamp: now,
        seqNumber: ++smdpSequence,
        notifyStatus: 'Executed-Success',
      },
      esim,
    );
  }
  /** The eSIM's validity starts: its days count from now. */
  function startValidity(esim: StandInEsim) {
    if (esim.installedAt) return;
    esim.installedAt = new Date();
    esim.expiresAt = new Date(esim.installedAt.getTime() + esim.totalDuration * DAY_MS);
  }
  const aboutEsim = (esim: StandInEsim) => ({
    orderNo: esim.orderNo,
    transactionId: esim.transactionId,
    esimTranNo: esim.esimTranNo,
    iccid: esim.iccid,
  });

  function findEsim(body: Record<string, unknown>): StandInEsim {
    // Docs (Cancel, Suspend, Unsuspend, Revoke Profile, Top Up): 'use "iccid" or "esimTranNo", can't be blank at the same time'.
    if (!body['esimTranNo'] && !body['iccid']) throw REFUSE.missingParam();
    const esim =
      typeof body['esimTranNo'] === 'string' && body['esimTranNo']
        ? esims.get(body['esimTranNo'])
        : [...esims.values()].find((e) => e.iccid === body['iccid'] && !closed(e));
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
          suspendedFrom: null,
          smdpStatus: 'RELEASED',
          eid: '',
          imsi: Array.from(randomBytes(15), (b) => b % 10).join(''),
          msisdn: `43${Array.from(randomBytes(11), (b) => b % 10).join('')}`,
          qrId: randomBytes(16).toString('hex'),
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
      notify('ORDER_STATUS', { orderNo: placed.orderNo, transactionId, orderStatus: 'GOT_RESOURCE' }, placed.esims[0]);
    }, options.allocationDelayMs);
    timers.add(timer);
    return { orderNo: placed.orderNo, transactionId };
  }

  // The fields and order of the docs' esim/query example (Query All Allocated Profiles; the
  // contract fixture tests/fixtures/esim-access/esim-query.json): eid '' until downloaded, pin and
  // puk '' as in the example ('PIN, PUK values if any'), activateTime null until validity starts.
  function profile(esim: StandInEsim) {
    return {
      esimTranNo: esim.esimTranNo,
      orderNo: esim.orderNo,
      transactionId: esim.transactionId,
      imsi: esim.imsi,
      iccid: esim.iccid,
      smsStatus: esim.pkg.smsStatus,
      msisdn: esim.msisdn,
      ac: `LPA:1$${options.smdpAddress}$${esim.matchingId}`,
      qrCodeUrl: `${QR_BASE_URL}/${esim.qrId}.png`,
      shortUrl: `${QR_BASE_URL}/${esim.qrId}`,
      smdpStatus: esim.smdpStatus,
      eid: esim.eid,
      activeType: esim.pkg.activeType,
      dataType: esim.pkg.dataType,
      activateTime: esim.installedAt ? partnerTime(esim.installedAt) : null,
      expiredTime: partnerTime(esim.expiresAt),
      totalVolume: esim.totalVolume,
      totalDuration: esim.totalDuration,
      durationUnit: 'DAY',
      orderUsage: esim.orderUsage,
      esimStatus: esim.esimStatus,
      pin: '',
      puk: '',
      apn: APN,
      packageList: [
        {
          packageName: esim.pkg.name,
          packageCode: esim.pkg.packageCode,
          slug: esim.pkg.slug,
          duration: days(esim.pkg),
          volume: esim.pkg.volume,
          locationCode: esim.pkg.slug.slice(0, esim.pkg.slug.indexOf('_')),
          createTime: partnerTime(orders.get(esim.orderNo)!.placedAt),
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
      const all = [...orders.values()]
        .filter((o) => o.allocated && o.placedAt.getTime() >= from && o.placedAt.getTime() <= to)
        .flatMap((o) => o.esims);
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
    notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: 'CANCEL', smdpStatus: esim.smdpStatus }, esim);
    return null;
  }

  // Suspend, Unsuspend and Revoke Profile (docs: esimTranNo or iccid; answered with obj {}). The docs
  // say what each does ('suspend or pause data service', 'unsuspend or reactivate data service',
  // 'close and remove an active eSIM and data plan. Non-refundable.') and name no state rules:
  // the stand-in's, each refusal 200002 ('not allowed due to the order status'):
  // - suspend: an eSIM with its data service (GOT_RESOURCE, IN_USE, USED_UP) before its end;
  //   esimStatus SUSPENDED, smdpStatus unchanged (the profile stays on the phone). A suspended
  //   eSIM carries no data and takes no top-up (docs, Top Up: New, In Use or Depleted only).
  // - unsuspend: only a SUSPENDED eSIM; it gets back the status it had.
  // - revoke: any eSIM not cancelled or revoked, suspended too; esimStatus REVOKED (docs, Webhooks,
  //   ESIM_STATUS: 'REVOKED: the eSIM profile has been revoked'), final; the balance gets nothing back.
  // Each sends an ESIM_STATUS with the new esimStatus (the docs list REVOKED among its values; the
  // stand-in sends SUSPENDED and the status given back alike). A repeat is refused, not ignored: the
  // shop must read the eSIM to tell its own lost answer from a refusal.
  function suspend(body: Record<string, unknown>) {
    const esim = findEsim(body);
    const from = esim.esimStatus;
    if (!isLive(from) || esim.expiresAt.getTime() < Date.now()) throw REFUSE.notAllowed();
    esim.suspendedFrom = from;
    esim.esimStatus = 'SUSPENDED';
    statusChanged(esim);
    return {};
  }

  function unsuspend(body: Record<string, unknown>) {
    const esim = findEsim(body);
    if (esim.esimStatus !== 'SUSPENDED') throw REFUSE.notAllowed();
    esim.esimStatus = esim.suspendedFrom ?? 'GOT_RESOURCE';
    esim.suspendedFrom = null;
    statusChanged(esim);
    return {};
  }

  function revoke(body: Record<string, unknown>) {
    const esim = findEsim(body);
    if (closed(esim)) throw REFUSE.notAllowed();
    esim.esimStatus = 'REVOKED';
    esim.suspendedFrom = null;
    statusChanged(esim);
    return {};
  }

  function statusChanged(esim: StandInEsim) {
    notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: esim.esimStatus, smdpStatus: esim.smdpStatus }, esim);
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
    if (closed(esim) || esim.esimStatus === 'SUSPENDED' || esim.expiresAt.getTime() < Date.now()) throw REFUSE.notAllowed();
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

  /**
   * The traveller's phone takes the eSIM to `stage` (DELETED: removes it, from DOWNLOAD on), through each step it has not reached yet, with
   * the partner's notifications of each (docs, Webhooks): an SMDP_EVENT per SM-DP+ step, the
   * esimStatus still GOT_RESOURCE (which 'does not appear in ESIM_STATUS events'); on first use
   * IN_USE/ENABLED, both as an SMDP_EVENT (the last step of the docs' installation sequence) and
   * an ESIM_STATUS ('IN_USE: the eSIM has been installed/activated on a device'). Validity starts at
   * installation for activeType 1, at first use for 2 (docs, package/list: 'First installation',
   * 'First network connection'). A step already passed changes nothing.
   */
  function installTo(esimTranNo: string, stage: InstallStage): void {
    const esim = allocated(esimTranNo);
    if (closed(esim)) throw new Error(`stand-in: eSIM ${esimTranNo} was ${esim.esimStatus === 'CANCEL' ? 'cancelled' : 'revoked'}`);
    // A suspended eSIM has no data service: it can be deleted from the phone, nothing else.
    if (esim.esimStatus === 'SUSPENDED' && stage !== 'DELETED') throw new Error(`stand-in: eSIM ${esimTranNo} is suspended`);
    // Deleted from the phone: the SM-DP+ will not hand the profile out again (docs, smdpStatus DELETED).
    if (esim.smdpStatus === 'DELETED') {
      if (stage === 'DELETED') return;
      throw new Error(`stand-in: eSIM ${esimTranNo} was deleted from the phone`);
    }
    if (stage === 'DELETED') {
      // Only a phone that downloaded it can delete it; the esimStatus stays as it was (an SMDP_EVENT only).
      if (esim.smdpStatus === 'RELEASED') throw new Error(`stand-in: eSIM ${esimTranNo} is on no phone to delete it from`);
      esim.smdpStatus = 'DELETED';
      smdpEvent(esim);
      return;
    }
    const reached =
      esim.esimStatus === 'GOT_RESOURCE' ? INSTALL_STAGES.indexOf(esim.smdpStatus as InstallStage) : INSTALL_STAGES.length - 1;
    for (const step of INSTALL_STAGES.slice(reached + 1, INSTALL_STAGES.indexOf(stage) + 1)) {
      if (step === 'IN_USE') {
        esim.esimStatus = 'IN_USE';
        startValidity(esim);
        smdpEvent(esim);
        notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: esim.esimStatus, smdpStatus: esim.smdpStatus }, esim);
        continue;
      }
      esim.smdpStatus = step;
      // The phone's EID from the download on (docs, profile states: eid '' while New).
      if (step === 'DOWNLOAD') esim.eid = `89049032${Array.from(randomBytes(24), (b) => b % 10).join('')}`;
      if (step === 'INSTALLATION' && esim.pkg.activeType === 1) startValidity(esim);
      smdpEvent(esim);
    }
  }

  return {
    routes: {
      'esim/order': order,
      'esim/query': query,
      'esim/cancel': cancel,
      'esim/suspend': suspend,
      'esim/unsuspend': unsuspend,
      'esim/revoke': revoke,
      'esim/topup': topUp,
      'esim/usage/query': usage,
      'balance/query': () => ({ balance }),
    } as Record<string, (body: Record<string, unknown>) => unknown>,

    installTo,

    /**
     * The traveller installs the eSIM and it goes online: every step of installTo at once, ending
     * IN_USE. Not refundable from now on.
     */
    markInstalled(esimTranNo: string): void {
      installTo(esimTranNo, 'IN_USE');
    },

    /**
     * The partner measures this much data used (a DATA_USAGE notification; used up at the total).
     * Data used means a phone installed it: an eSIM not in use yet is put in use first.
     */
    setUsage(esimTranNo: string, usedBytes: number): void {
      const esim = allocated(esimTranNo);
      // A suspended or closed eSIM carries no data: nothing to measure.
      if (closed(esim) || esim.esimStatus === 'SUSPENDED')
        throw new Error(`stand-in: eSIM ${esimTranNo} is ${esim.esimStatus}: it carries no data`);
      if (usedBytes > 0 && esim.esimStatus === 'GOT_RESOURCE') installTo(esimTranNo, 'IN_USE');
      esim.orderUsage = usedBytes;
      esim.usageMeasuredAt = new Date();
      const remain = Math.max(0, esim.totalVolume - usedBytes);
      notify(
        'DATA_USAGE',
        {
          ...aboutEsim(esim),
          totalVolume: esim.totalVolume,
          orderUsage: usedBytes,
          remain,
          lastUpdateTime: partnerTime(esim.usageMeasuredAt),
          remainThreshold: esim.totalVolume ? Math.round((remain / esim.totalVolume) * 100) / 100 : 0,
        },
        esim,
      );
      if (remain === 0 && esim.esimStatus === 'IN_USE') {
        esim.esimStatus = 'USED_UP';
        notify('ESIM_STATUS', { ...aboutEsim(esim), esimStatus: esim.esimStatus, smdpStatus: esim.smdpStatus }, esim);
      }
    },

    /**
     * The eSIM's validity ends in a day, as if its days had passed: VALIDITY_USAGE (docs, Webhooks:
     * 'sent when the remaining validity period of an active eSIM reaches 1 day'; remain in days,
     * durationUnit DAY, totalDuration the original validity). 'current': the 2026 sample's fields;
     * 'older': the earlier sample's, without esimTranNo, notifyId or eventGenerateTime. Only for an
     * eSIM whose validity started.
     */
    sendValidityUsage(esimTranNo: string, shape: NotificationShape = 'current'): void {
      const esim = allocated(esimTranNo);
      if (!esim.installedAt || closed(esim)) throw new Error(`stand-in: eSIM ${esimTranNo} is not in use: its validity has not started`);
      const dayLeft = new Date(Date.now() + DAY_MS);
      if (esim.expiresAt > dayLeft) esim.expiresAt = dayLeft;
      const expiredTime = partnerTime(esim.expiresAt);
      const { orderNo, transactionId, iccid } = aboutEsim(esim);
      const content =
        shape === 'older'
          ? { orderNo, transactionId, iccid, durationUnit: 'DAY', totalDuration: esim.totalDuration, expiredTime, remain: 1 }
          : { iccid, orderNo, esimTranNo, transactionId, remain: 1, totalDuration: esim.totalDuration, durationUnit: 'DAY', expiredTime };
      notify('VALIDITY_USAGE', content, esim, shape);
    },

    /** The base package of the eSIM with this ICCID (package/list with type TOPUP and an iccid). */
    packageOfIccid(iccid: string): StandInPackage | undefined {
      return [...esims.values()].find((e) => e.iccid === iccid && !closed(e))?.pkg;
    },

    /** The allocated eSIM with this ICCID (what a buyer's page shows), for tests in another process. */
    tranNoOfIccid(iccid: string): string | undefined {
      return [...esims.values()].find((e) => e.iccid === iccid && !closed(e))?.esimTranNo;
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

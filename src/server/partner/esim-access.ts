import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  PartnerError,
  type EsimPartner,
  type EsimProfile,
  type EsimStatus,
  type EsimUsage,
  type PackageQuery,
  type PartnerErrorKind,
  type PartnerNotification,
  type PartnerPackage,
  type ProfileAnswer,
  type TopUpResult,
} from './partner.ts';
import { ESIM_ACCESS_BUDGET, memoryPartnerBudget, type PartnerBudget, type PartnerPriority } from './partner-budget.ts';

/**
 * The eSIM Access open API (docs.esimaccess.com) behind the partner interface. Every call is a
 * signed POST of a JSON body to `<base>/api/v1/open/<call>`, answered with the envelope
 * `{ success, errorCode, errorMsg, obj }`, mostly with HTTP 200 even when it failed.
 * Prices are US dollars × 10,000, volumes bytes. The account may make 8 requests a second (an
 * account was suspended for more): every call takes a turn in the account's budget first, the
 * shop's in PostgreSQL shared by every instance (`config.budget`), else one per account and process.
 */

const PARTNER = 'eSIM Access';
export const ESIM_ACCESS_BASE_URL = 'https://api.esimaccess.com';

/** The partner's codes for 'server error' and 'system busy' (its answer to too many requests). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['000001', '900001']);
/** 'Profile not yet allocated': esim/query's answer while an order is being prepared (up to ~30 s). */
const NOT_ALLOCATED = '200010';
/** The partner's documented codes (docs.esimaccess.com, error codes) that the shop acts on. */
const KIND_BY_CODE: Readonly<Record<string, PartnerErrorKind>> = {
  '200002': 'not_allowed', // operation not allowed due to order status
  '200005': 'price_changed', // package price error: the partner's price is not the one we sent
  '200006': 'price_changed', // wrong total amount
  '200007': 'insufficient_balance',
  '200009': 'not_allowed', // abnormal order status
  [NOT_ALLOCATED]: 'not_allocated',
  '200011': 'out_of_stock', // insufficient available profiles
  '310241': 'not_found', // packageCode does not exist
  '310243': 'not_found', // package does not exist
  '310272': 'not_found', // orderNo does not exist
  '310403': 'not_found', // ICCID not in the order
};
/** eSIMs per esim/usage/query call, at most (docs.esimaccess.com, Usage Check). */
const USAGE_QUERY_MAX = 10;
/**
 * How urgent each call is in the budget (partner-budget.ts): deliveries first, then refunds and
 * top-ups, then usage reads. esim/query is a delivery when it reads an order's profiles or looks
 * an order up by its transactionId. The balance (once a minute while sales are paused) decides
 * when selling starts again: above usage reads.
 */
const PRIORITY_BY_CALL: Readonly<Record<string, PartnerPriority>> = {
  'esim/order': 'delivery',
  'esim/query': 'refund',
  'esim/cancel': 'refund',
  'esim/topup': 'refund',
  'balance/query': 'refund',
  'esim/usage/query': 'usage',
  'package/list': 'usage',
};

export interface EsimAccessConfig {
  accessCode: string;
  secretKey: string;
  /** Scheme and host without the /api/v1/open path; the stand-in's URL in dev and tests. */
  baseUrl: string;
  /** Retries after the first attempt, for network errors, HTTP 429 and 5xx, and busy answers. */
  retries?: number;
  /** First backoff; it doubles with each retry (with jitter), up to 5 s. */
  backoffMs?: number;
  timeoutMs?: number;
  /**
   * The account's request budget. The shop passes the one in its database (postgresPartnerBudget),
   * shared by every API instance; without one, this process's own limiter for the account.
   */
  budget?: PartnerBudget;
}

/** The configuration from ESIM_ACCESS_CODE, ESIM_ACCESS_SECRET and ESIM_ACCESS_BASE_URL. */
export function esimAccessConfigFromEnv(env: Record<string, string | undefined> = process.env): EsimAccessConfig {
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is not set: the eSIM Access adapter needs it`);
    return value;
  };
  return {
    accessCode: required('ESIM_ACCESS_CODE'),
    secretKey: required('ESIM_ACCESS_SECRET'),
    baseUrl: env['ESIM_ACCESS_BASE_URL']?.trim() || ESIM_ACCESS_BASE_URL,
  };
}

/** RT-Signature: lower-case hex HMAC-SHA256 of timestamp + request id + access code + body, keyed with the secret. */
export function signEsimAccessRequest(
  parts: { timestamp: string; requestId: string; accessCode: string; body: string },
  secretKey: string,
): string {
  return createHmac('sha256', secretKey)
    .update(parts.timestamp + parts.requestId + parts.accessCode + parts.body)
    .digest('hex');
}

export function createEsimAccessPartner(config: EsimAccessConfig): EsimPartner {
  const call = createCaller(config);
  return {
    name: PARTNER,
    async listPackages(query: PackageQuery = {}) {
      const body: Record<string, string> = { type: 'BASE' };
      if (query.location) body['locationCode'] = query.location;
      if (query.packageCode) body['packageCode'] = query.packageCode;
      return call('package/list', body, (obj) =>
        // Daily plans (a volume per day) have no place in our catalogue of fixed-data plans.
        PackageListObj.parse(obj).packageList.filter((raw) => raw.dataType === FIXED_DATA).map(mapEsimAccessPackage),
      );
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

    async queryProfiles(which): Promise<ProfileAnswer> {
      const byOrder = 'partnerOrderNo' in which;
      const body = {
        ...(byOrder ? { orderNo: which.partnerOrderNo } : { esimTranNo: which.esimTranNo }),
        iccid: '',
        pager: { pageNum: 1, pageSize: 50 },
      };
      try {
        return await call('esim/query', body, (obj): ProfileAnswer => {
          const list = QueryObj.parse(obj).esimList;
          // An order whose profiles are not listed yet is still being allocated; an eSIM asked for by
          // its own id that is not listed does not exist (the docs are silent on both cases).
          if (list.length === 0 && !byOrder) throw new NotFound(`no eSIM ${which.esimTranNo}`);
          if (list.length === 0 || list.some((raw) => PRE_ALLOCATION.has(raw.esimStatus) || !raw.ac)) {
            return { status: 'allocating' };
          }
          return { status: 'ready', profiles: list.map(mapEsimAccessProfile) };
        }, { priority: byOrder ? 'delivery' : 'refund' });
      } catch (error) {
        if (error instanceof PartnerError && error.code === NOT_ALLOCATED) return { status: 'allocating' };
        throw error;
      }
    },

    // Query by time window (docs: esim/query takes startTime and endTime, UTC): the profiles of the
    // orders placed then, each naming its transactionId. The window is wide: clocks differ.
    async findOrder(transactionId, placedAround) {
      const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;
      const window = { startTime: at(placedAround.getTime() - FIND_ORDER_WINDOW_MS), endTime: at(placedAround.getTime() + FIND_ORDER_WINDOW_MS) };
      for (let pageNum = 1; pageNum <= FIND_ORDER_MAX_PAGES; pageNum++) {
        const page = await call('esim/query', { ...window, iccid: '', pager: { pageNum, pageSize: 50 } }, (obj) => QueryObj.parse(obj).esimList, {
          priority: 'delivery',
        });
        const found = page.find((raw) => raw.transactionId === transactionId);
        if (found?.orderNo) return found.orderNo;
        if (page.length < 50) return undefined;
      }
      return undefined;
    },

    async balance() {
      return call('balance/query', {}, (obj) => BalanceObj.parse(obj).balance);
    },

    async cancelProfile(esimTranNo) {
      await call('esim/cancel', { esimTranNo }, () => undefined);
    },

    // package/list with type TOPUP and the eSIM's iccid (docs.esimaccess.com, package/list; Top Up):
    // the partner's TOPUP_ packages for it, empty when its package cannot be topped up. A read the
    // buyer waits for (the top-up offer, the top-up order): in the budget with refunds and top-ups.
    async listTopUps(iccid) {
      return call('package/list', { type: 'TOPUP', iccid }, (obj) =>
        PackageListObj.parse(obj).packageList.filter((raw) => raw.dataType === FIXED_DATA).map(mapEsimAccessPackage),
      { priority: 'refund' });
    },

    // The docs do not say that a top-up's transactionId makes a repeat harmless, so a top-up is
    // sent once: after a failure the caller checks the eSIM's totals before trying again.
    async topUp({ esimTranNo, partnerCode, transactionId }): Promise<TopUpResult> {
      return call('esim/topup', { esimTranNo, packageCode: partnerCode, transactionId }, (obj) => {
        const raw = TopUpObj.parse(obj);
        return {
          totalBytes: raw.totalVolume,
          usedBytes: raw.orderUsage,
          validityDays: raw.totalDuration,
          expiresAt: partnerTime(raw.expiredTime),
        };
      }, { retries: 0 });
    },

    // The partner takes at most 10 eSIMs a usage call (docs.esimaccess.com, Usage Check): a longer
    // list goes in calls of 10, one after another through the limiter.
    async usage(esimTranNos): Promise<EsimUsage[]> {
      const usages: EsimUsage[] = [];
      for (let from = 0; from < esimTranNos.length; from += USAGE_QUERY_MAX) {
        const esimTranNoList = esimTranNos.slice(from, from + USAGE_QUERY_MAX);
        usages.push(...(await call('esim/usage/query', { esimTranNoList }, (obj) =>
          UsageObj.parse(obj).map((raw) => ({
            esimTranNo: raw.esimTranNo,
            usedBytes: raw.dataUsage,
            totalBytes: raw.totalData,
            measuredAt: partnerTime(raw.lastUpdateTime),
          })),
        )));
      }
      return usages;
    },
  };
}

/** A failure inside an answer's reader that means 'no such thing', not 'unexpected answer'. */
class NotFound extends Error {}

const FIXED_DATA = 1;
/**
 * package/list's supportTopUpType of a package whose eSIMs can be topped up: 2, as a docs example
 * package shows and public integrations read it (1: no top-up). Another value is read as no: the
 * shop does not promise a top-up the partner did not say it sells. A package without the field
 * (the docs' 2026 example has none) is not refused for it: its eSIM's own top-up list then says.
 */
const TOP_UP_AVAILABLE = 2;

// docs.esimaccess.com, Get All Data Packages: the field table calls slug mandatory and 'an alias
// of packageCode', yet its own example has none (tests/fixtures/esim-access/package-list.json), and
// its network list names locationName, locationLogo and operatorList, no locationCode: both are
// read when given, else the package code and the comma-separated `location`.
const RawPackage = z.looseObject({
  packageCode: z.string().min(1),
  slug: z.string().optional(),
  name: z.string(),
  price: z.number().int().nonnegative(),
  currencyCode: z.string(),
  volume: z.number().int().positive(),
  dataType: z.number().int().default(FIXED_DATA),
  duration: z.number().int().positive(),
  durationUnit: z.string(),
  location: z.string().default(''),
  locationNetworkList: z.array(z.looseObject({ locationCode: z.string().optional() })).default([]),
  supportTopUpType: z.number().int().nullish(),
});
export type EsimAccessPackage = z.input<typeof RawPackage>;
const PackageListObj = z.object({ packageList: z.array(RawPackage) });

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const DURATION_UNITS: Record<string, PartnerPackage['validityUnit']> = { DAY: 'day', WEEK: 'week', MONTH: 'month' };

/** The partner's package in our terms: volume from bytes to MB/GB (binary, as the partner sells them). */
export function mapEsimAccessPackage(input: EsimAccessPackage): PartnerPackage {
  const raw = RawPackage.parse(input);
  const validityUnit = DURATION_UNITS[raw.durationUnit.toUpperCase()];
  if (!validityUnit) throw new Error(`${PARTNER} package ${raw.packageCode}: unknown durationUnit '${raw.durationUnit}'`);
  if (raw.currencyCode !== 'USD') throw new Error(`${PARTNER} package ${raw.packageCode}: price in ${raw.currencyCode}, not USD`);
  const listed = raw.locationNetworkList.flatMap((l) => (l.locationCode ? [l.locationCode] : []));
  const codes = listed.length > 0 ? listed : raw.location.split(',');
  return {
    partnerCode: raw.packageCode,
    slug: raw.slug || raw.packageCode,
    name: raw.name,
    countries: [...new Set(codes.map((c) => c.trim().toUpperCase()).filter(Boolean))].sort(),
    dataAmount:
      raw.volume >= GIB
        ? { value: Math.round((raw.volume / GIB) * 100) / 100, unit: 'GB' }
        : { value: Math.round(raw.volume / MIB), unit: 'MB' },
    dataBytes: raw.volume,
    validity: raw.duration,
    validityUnit,
    wholesaleUsdE4: raw.price,
    topUp: raw.supportTopUpType == null || raw.supportTopUpType === TOP_UP_AVAILABLE,
  };
}

const OrderObj = z.looseObject({ orderNo: z.string().min(1) });
const BalanceObj = z.looseObject({ balance: z.number().int() });
/** How far around an order's time to look for it, and how many pages of 50 at most. */
const FIND_ORDER_WINDOW_MS = 10 * 60_000;
const FIND_ORDER_MAX_PAGES = 20;

/** esimStatus values before a profile is allocated (an order being paid for or prepared). */
const PRE_ALLOCATION: ReadonlySet<string> = new Set(['CREATE', 'PAYING', 'PAID', 'GETTING_RESOURCE']);

const RawProfile = z.looseObject({
  esimTranNo: z.string().min(1),
  orderNo: z.string().nullish(),
  transactionId: z.string().nullish(),
  iccid: z.string().min(1),
  /** The LPA string. */
  ac: z.string().nullish(),
  esimStatus: z.string(),
  smdpStatus: z.string().nullish(),
  expiredTime: z.string().nullish(),
  totalVolume: z.number().int().nonnegative().nullish(),
  orderUsage: z.number().int().nonnegative().nullish(),
  totalDuration: z.number().int().nonnegative().nullish(),
  durationUnit: z.string().nullish(),
  /** 'APN value' (docs, Query All Allocated Profiles: optional; '' or absent when there is none). */
  apn: z.string().nullish(),
  packageList: z.array(z.looseObject({ volume: z.number().nullish(), duration: z.number().nullish() })).nullish(),
});
export type EsimAccessProfile = z.input<typeof RawProfile>;
const QueryObj = z.looseObject({ esimList: z.array(RawProfile).nullish().transform((list) => list ?? []) });

const TopUpObj = z.looseObject({
  totalVolume: z.number().int().nonnegative(),
  orderUsage: z.number().int().nonnegative().default(0),
  totalDuration: z.number().int().nonnegative(),
  expiredTime: z.string().nullish(),
});

const RawUsage = z.looseObject({
  esimTranNo: z.string().min(1),
  dataUsage: z.number().int().nonnegative(),
  totalData: z.number().int().nonnegative(),
  lastUpdateTime: z.string().nullish(),
});
// The docs show the list both bare as obj and as obj.esimUsageList; both are read.
const UsageObj = z.union([z.array(RawUsage), z.looseObject({ esimUsageList: z.array(RawUsage) }).transform((o) => o.esimUsageList)]);

/** esimStatus values whose meaning does not depend on the SM-DP+ status. */
const STATUS_BY_ESIM_STATUS: Readonly<Record<string, EsimStatus>> = {
  IN_USE: 'active',
  SUSPENDED: 'suspended',
  USED_UP: 'used_up',
  USED_EXPIRED: 'expired',
  UNUSED_EXPIRED: 'expired',
  CANCEL: 'cancelled',
  REVOKE: 'cancelled',
  REVOKED: 'cancelled',
};
/** esimStatus values that only a device that downloaded the profile can reach. */
const USED_STATUSES: ReadonlySet<string> = new Set(['IN_USE', 'USED_UP', 'USED_EXPIRED']);

/**
 * The eSIM's state in our terms from the partner's esimStatus and SM-DP+ status. smdpStatus
 * (docs, Query All Allocated Profiles): RELEASED ready for download, DOWNLOAD downloaded,
 * INSTALLATION installed, ENABLED, DISABLED, DELETED. Anything past RELEASED reached a phone, so it is
 * installed and no longer refundable, though esimStatus stays GOT_RESOURCE until first use (docs,
 * Webhooks, SMDP_EVENT: DOWNLOAD, INSTALLATION, ENABLED under GOT_RESOURCE, then IN_USE).
 */
function esimState(esimStatus: string, smdpStatus: string | null | undefined): { status: EsimStatus; installed: boolean } {
  const installed = USED_STATUSES.has(esimStatus) || (!!smdpStatus && smdpStatus !== 'RELEASED');
  return { status: STATUS_BY_ESIM_STATUS[esimStatus] ?? (installed ? 'installed' : 'ready'), installed };
}

/**
 * Splits an LPA activation code `LPA:1$<SM-DP+ address>$<matching id>` (GSMA SGP.22; optional
 * further fields after another '$'). Undefined when it is not one. Never echo the input: it is a credential.
 */
export function parseLpaString(activationCode: string): { smdpAddress: string; matchingId: string } | undefined {
  const [format, smdpAddress, matchingId] = activationCode.split('$');
  if (format !== 'LPA:1' || !smdpAddress || !matchingId || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(smdpAddress)) return undefined;
  return { smdpAddress, matchingId };
}

/** A profile from esim/query in our terms; throws (without the activation code) if it is not usable. */
export function mapEsimAccessProfile(input: EsimAccessProfile): EsimProfile {
  const raw = RawProfile.parse(input);
  const lpa = raw.ac ? parseLpaString(raw.ac) : undefined;
  if (!raw.ac || !lpa) throw new Error(`${PARTNER} eSIM ${raw.esimTranNo}: the activation code is not an LPA string`);
  const firstPackage = raw.packageList?.[0];
  const { status, installed } = esimState(raw.esimStatus, raw.smdpStatus);
  return {
    esimTranNo: raw.esimTranNo,
    transactionId: raw.transactionId ?? null,
    iccid: raw.iccid,
    activationCode: raw.ac,
    ...lpa,
    apn: raw.apn?.trim() || null,
    status,
    installed,
    expiresAt: partnerTime(raw.expiredTime),
    totalBytes: raw.totalVolume ?? firstPackage?.volume ?? 0,
    usedBytes: raw.orderUsage ?? 0,
    validityDays: raw.totalDuration != null ? raw.totalDuration * daysPer(raw.durationUnit) : (firstPackage?.duration ?? 0),
  };
}

/** Days in a partner durationUnit (profiles come in DAY; a month is counted as 30 days). */
function daysPer(unit: string | null | undefined): number {
  return { WEEK: 7, MONTH: 30 }[unit?.toUpperCase() ?? ''] ?? 1;
}

/** The partner's times: ISO 8601 with 'Z' or '+0000' (no colon, which Date does not read everywhere). */
function partnerTime(text: string | null | undefined): Date | null {
  if (!text) return null;
  const date = new Date(text.trim().replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(date.getTime()) ? null : date;
}

const Notification = z.looseObject({
  notifyType: z.string(),
  notifyId: z.string().nullish(),
  content: z.looseObject({}).default({}),
});
const text = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1)).optional().catch(undefined);
const count = z.coerce.number().int().nonnegative().catch(0);
const NotificationContent = z.looseObject({
  orderNo: text,
  transactionId: text,
  esimTranNo: text,
  iccid: text,
  orderStatus: text,
  esimStatus: text,
  smdpStatus: text,
  totalVolume: count,
  orderUsage: count,
  lastUpdateTime: text,
  expiredTime: text,
  remain: z.coerce.number().optional().catch(undefined),
});

/**
 * The partner's webhook body (`{ notifyType, notifyId?, eventGenerateTime?, content }`,
 * docs.esimaccess.com, webhooks) in our terms; undefined for anything else, never a throw.
 * Not signed by the partner: a hint to query it, never a fact to deliver or refund on.
 */
export function parsePartnerNotification(body: unknown): PartnerNotification | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const parsed = Notification.safeParse(value);
  if (!parsed.success) return undefined;
  const { notifyType } = parsed.data;
  const notifyId = parsed.data.notifyId || undefined;
  const content = NotificationContent.safeParse(parsed.data.content);
  if (!content.success) return undefined;
  const c = content.data;
  const about = { partnerOrderNo: c.orderNo, transactionId: c.transactionId, esimTranNo: c.esimTranNo, iccid: c.iccid };
  switch (notifyType) {
    case 'CHECK_HEALTH':
      return { kind: 'health_check', notifyId };
    case 'ORDER_STATUS':
      // GOT_RESOURCE is the only order status the partner documents sending.
      if (c.orderStatus !== 'GOT_RESOURCE' || !c.orderNo) return undefined;
      return { kind: 'order_ready', notifyId, partnerOrderNo: c.orderNo, transactionId: c.transactionId };
    // Both say where the eSIM is now; SMDP_EVENT (docs: one per SM-DP+ step, many per eSIM, with the
    // phone's eid, which we do not keep) is told apart so the shop can skip the ones that tell it nothing.
    case 'ESIM_STATUS':
    case 'SMDP_EVENT': {
      const state = c.esimStatus ? esimState(c.esimStatus, c.smdpStatus) : undefined;
      return {
        kind: notifyType === 'SMDP_EVENT' ? 'smdp_event' : 'esim_status',
        notifyId,
        ...about,
        status: state?.status,
        installed: state?.installed ?? (!!c.smdpStatus && c.smdpStatus !== 'RELEASED'),
      };
    }
    case 'DATA_USAGE':
      return {
        kind: 'data_usage',
        notifyId,
        ...about,
        usedBytes: c.orderUsage,
        totalBytes: c.totalVolume,
        measuredAt: partnerTime(c.lastUpdateTime),
      };
    // The older documented sample has no esimTranNo (and no notifyId): the eSIM is then known by
    // its ICCID and its order only, which the caller must look up.
    case 'VALIDITY_USAGE':
      return { kind: 'validity', notifyId, ...about, expiresAt: partnerTime(c.expiredTime), daysLeft: c.remain };
    default:
      return undefined;
  }
}

const Envelope = z.object({
  success: z.union([z.boolean(), z.literal('true'), z.literal('false')]),
  errorCode: z.union([z.string(), z.number()]).nullish(),
  errorMsg: z.string().nullish(),
  errorMessage: z.string().nullish(),
  obj: z.unknown(),
});

type Failure = { code?: string; kind?: PartnerErrorKind; reason: string; retryable: boolean; cause?: unknown };

interface CallOptions {
  /** Fewer retries than configured for a call that is not safe to repeat (0: once). */
  retries?: number;
  /** The call's turn in the budget, if not the one PRIORITY_BY_CALL gives it. */
  priority?: PartnerPriority;
}

function createCaller(config: EsimAccessConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const retries = config.retries ?? 3;
  const backoffMs = config.backoffMs ?? 250;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const budget = config.budget ?? accountLimiter(`${base}\n${config.accessCode}`);

  async function attempt<T>(
    name: string,
    priority: PartnerPriority,
    body: string,
    read: (obj: unknown) => T,
  ): Promise<{ ok: true; value: T } | ({ ok: false } & Failure)> {
    let done: () => void | Promise<void>;
    try {
      done = await budget.acquire(priority);
    } catch (error) {
      // Nothing was sent: safe to try again.
      return { ok: false, reason: `no turn in the request budget (${describe(error)})`, retryable: true, cause: error };
    }
    const timestamp = String(Date.now());
    const requestId = randomUUID().replaceAll('-', '');
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}/api/v1/open/${name}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'RT-AccessCode': config.accessCode,
          'RT-RequestID': requestId,
          'RT-Timestamp': timestamp,
          'RT-Signature': signEsimAccessRequest({ timestamp, requestId, accessCode: config.accessCode, body }, config.secretKey),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { ok: false, reason: `no answer (${describe(error)})`, retryable: true, cause: error };
    } finally {
      await done();
    }
    const envelope = Envelope.safeParse(safeJson(text));
    const code = envelope.success && envelope.data.errorCode != null ? String(envelope.data.errorCode) : undefined;
    const message = envelope.success ? (envelope.data.errorMsg ?? envelope.data.errorMessage ?? '') : '';
    const http = `HTTP ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      return { ok: false, code: code ?? http, reason: code ? `${http} ${code} ${message}`.trim() : http, retryable: true };
    }
    if (!envelope.success) {
      return { ok: false, code: http, reason: `${http}, not the partner's envelope: ${text.slice(0, 120)}`, retryable: false };
    }
    if (envelope.data.success !== true && envelope.data.success !== 'true') {
      const retryable = code !== undefined && RETRYABLE_CODES.has(code);
      return { ok: false, code: code ?? http, reason: `${code ?? http} ${message}`.trim(), retryable };
    }
    try {
      return { ok: true, value: read(envelope.data.obj) };
    } catch (error) {
      if (error instanceof NotFound) return { ok: false, kind: 'not_found', reason: error.message, retryable: false };
      const reason = error instanceof z.ZodError ? z.prettifyError(error) : describe(error);
      return { ok: false, reason: `unexpected answer: ${reason}`, retryable: false, cause: error };
    }
  }

  /** Calls `name`, retrying what may pass on a second try; `read` turns the answer's obj into ours or throws. */
  return async function call<T>(name: string, payload: object, read: (obj: unknown) => T, options: CallOptions = {}): Promise<T> {
    const body = JSON.stringify(payload);
    const maxRetries = Math.min(retries, options.retries ?? retries);
    const priority = options.priority ?? PRIORITY_BY_CALL[name] ?? 'usage';
    for (let attempts = 1; ; attempts++) {
      const result = await attempt(name, priority, body, read);
      if (result.ok) return result.value;
      if (!result.retryable || attempts > maxRetries) {
        const kind = result.kind ?? (result.code === undefined ? undefined : KIND_BY_CODE[result.code]);
        const details = { partner: PARTNER, call: name, code: result.code, kind, retryable: result.retryable, attempts, reason: result.reason };
        throw new PartnerError(details, { cause: result.cause });
      }
      await sleep(Math.min(5_000, backoffMs * 2 ** (attempts - 1)) * (0.5 + Math.random() / 2));
    }
  };
}

/** One limiter per account in this process, shared by every adapter made for it without a budget. */
const limiters = new Map<string, PartnerBudget>();

function accountLimiter(account: string): PartnerBudget {
  let limiter = limiters.get(account);
  if (!limiter) {
    // 25 ms of margin, as before: one process counts the ends of its own requests on one clock.
    limiter = memoryPartnerBudget({ ...ESIM_ACCESS_BUDGET, marginMs: 25 });
    limiters.set(account, limiter);
  }
  return limiter;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

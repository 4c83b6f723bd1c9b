import { z } from 'zod';
import type { InstallStep } from '../../../contract/shop-api.ts';
import type { PlanFacts } from '../../../catalogue/schema.ts';
import type { CataloguePackage, EsimProfile, EsimStatus, PartnerPackage } from '../partner.types.ts';
import { PARTNER } from './config.ts';

// The partner's answers (the envelope's obj) as zod schemas, and their mapping to the EsimPartner types.

export const FIXED_DATA = 1;
/**
 * package/list's dataType (public integrations read it so; the docs' field table names the field):
 * 1 a fixed volume for the whole validity, 2 a volume a day then slowed to fupPolicy, 3 a volume a
 * day then cut off until the next day, 4 'unlimited': a daily fair-use volume then slowed to fupPolicy.
 */
export const DATA_TYPES = { fixed: FIXED_DATA, dailySlowed: 2, dailyCut: 3, unlimited: 4 } as const;
/** activeType: 1 validity starts when the eSIM is installed, 2 at its first connection in a covered country. */
const ACTIVE_TYPES: Record<number, PlanFacts['validityStarts']> = { 1: 'install', 2: 'first-connection' };
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
  locationNetworkList: z
    .array(
      z.looseObject({
        locationCode: z.string().optional(),
        locationName: z.string().nullish(),
        operatorList: z.array(z.looseObject({ operatorName: z.string(), networkType: z.string().nullish() })).nullish(),
      }),
    )
    .default([]),
  supportTopUpType: z.number().int().nullish(),
  /** The package's network generations ('3G/4G/5G'), when an operator does not name its own. */
  speed: z.string().nullish(),
  /** The speed after the (daily) volume: '512Kbps', '1 Mbps'; '' for fixed-data plans. */
  fupPolicy: z.string().nullish(),
  activeType: z.number().int().nullish(),
  /** Days within which the eSIM must be installed after purchase. */
  unusedValidTime: z.number().int().nullish(),
  /** 0 no SMS, 1 the eSIM receives SMS. */
  smsStatus: z.number().int().nullish(),
  /** Where the traffic leaves to the internet: a country code, or several ('NL/FR'); '' when not said. */
  ipExport: z.string().nullish(),
});
export type EsimAccessPackage = z.input<typeof RawPackage>;
export const PackageListObj = z.object({ packageList: z.array(RawPackage) });

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

/**
 * A package the catalogue sells, with its plan facts. Throws, naming the package, when the facts
 * cannot be stated truthfully: an unknown dataType or activeType, a daily or unlimited plan without
 * its fupPolicy speed, a covered country without operators, no unusedValidTime.
 */
export function mapEsimAccessCataloguePackage(input: EsimAccessPackage): CataloguePackage {
  const raw = RawPackage.parse(input);
  const pkg = mapEsimAccessPackage(input);
  const fail = (problem: string): never => {
    throw new Error(`${PARTNER} package ${raw.packageCode}: ${problem}`);
  };
  const validityStarts = ACTIVE_TYPES[raw.activeType ?? 1] ?? fail(`unknown activeType ${raw.activeType}`);
  const installWithinDays = raw.unusedValidTime ?? fail('no unusedValidTime (days to install it)');
  if (installWithinDays <= 0) fail(`unusedValidTime ${installWithinDays} is not a number of days`);
  return {
    ...pkg,
    facts: {
      networks: networks(raw, pkg.countries, fail),
      data: dataKind(raw, fail),
      validityStarts,
      installWithinDays,
      topUp: pkg.topUp,
      // The partner states nothing about hotspot use (no field in package/list).
      hotspot: null,
      sms: (raw.smsStatus ?? 0) >= 1,
      trafficExit: trafficExit(raw.ipExport),
    },
  };
}

type Fail = (problem: string) => never;

function dataKind(raw: z.output<typeof RawPackage>, fail: Fail): PlanFacts['data'] {
  const slowed = () => {
    const kbps = kbpsOf(raw.fupPolicy);
    return kbps ? { slowedToKbps: kbps } : fail(`dataType ${raw.dataType} without a fupPolicy speed (got '${raw.fupPolicy ?? ''}')`);
  };
  switch (raw.dataType) {
    case DATA_TYPES.fixed:
      return { kind: 'total' };
    case DATA_TYPES.dailySlowed:
      return { kind: 'daily', after: slowed() };
    case DATA_TYPES.dailyCut:
      return { kind: 'daily', after: 'cut' };
    case DATA_TYPES.unlimited:
      return { kind: 'unlimited', after: slowed() };
    default:
      return fail(`unknown dataType ${raw.dataType} (known: 1 fixed, 2 daily then slowed, 3 daily then cut, 4 unlimited)`);
  }
}

/** '512Kbps', '1Mbps', '1 Mbps', '1.5 Mbps' in kbit/s; undefined when it names no speed. */
export function kbpsOf(fupPolicy: string | null | undefined): number | undefined {
  const match = /(\d+(?:\.\d+)?)\s*([km])bps/i.exec(fupPolicy ?? '');
  if (!match) return undefined;
  const kbps = Math.round(Number(match[1]) * (match[2]!.toLowerCase() === 'm' ? 1000 : 1));
  return kbps > 0 ? kbps : undefined;
}

/** The best generation a network type names: '4G/5G' is 5G, 'LTE' 4G; undefined when none. */
function bestNetworkType(text: string | null | undefined): PlanFacts['networks'][number]['operators'][number]['networkType'] | undefined {
  const generations = [...(text ?? '').matchAll(/([2-5])G/gi)].map((m) => Number(m[1]));
  if (/\bLTE\b/i.test(text ?? '')) generations.push(4);
  if (generations.length === 0) return undefined;
  return `${Math.max(...generations)}G` as '2G' | '3G' | '4G' | '5G';
}

/**
 * Each covered country's operators. A network entry names its country by locationCode, else by
 * locationName (the docs' example has no code), else it is the package's only country.
 */
function networks(raw: z.output<typeof RawPackage>, countries: readonly string[], fail: Fail): PlanFacts['networks'] {
  const english = new Intl.DisplayNames('en', { type: 'region' });
  const byCountry = new Map<string, PlanFacts['networks'][number]['operators']>();
  for (const entry of raw.locationNetworkList) {
    const country =
      entry.locationCode?.trim().toUpperCase() ||
      countries.find((code) => english.of(code) === entry.locationName?.trim()) ||
      (countries.length === 1 ? countries[0] : undefined) ||
      fail(`a network entry names no country of the package ('${entry.locationName ?? ''}')`);
    const operators = (entry.operatorList ?? []).map((op) => ({
      name: op.operatorName.trim(),
      networkType:
        bestNetworkType(op.networkType) ??
        bestNetworkType(raw.speed) ??
        fail(`${country} operator ${op.operatorName}: no network type ('${op.networkType ?? ''}')`),
    }));
    byCountry.set(country, [...(byCountry.get(country) ?? []), ...operators.filter((op) => op.name)]);
  }
  // `location` names the countries too: one there without networks is a gap, not a smaller plan.
  const named = raw.location
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  const without = [...new Set([...countries, ...named])].sort().filter((code) => (byCountry.get(code) ?? []).length === 0);
  if (without.length > 0) fail(`no operators listed for ${without.join(', ')}: a plan without networks is not sold`);
  return countries.map((country) => ({ country, operators: byCountry.get(country)! }));
}

/** ipExport's first country ('NL/FR' is NL; 'UK' is GB); null when it names none. */
function trafficExit(ipExport: string | null | undefined): string | null {
  const first = (ipExport ?? '')
    .split(/[/,;\s]+/)
    .find(Boolean)
    ?.toUpperCase();
  if (!first || !/^[A-Z]{2}$/.test(first)) return null;
  return first === 'UK' ? 'GB' : first;
}

export const OrderObj = z.looseObject({ orderNo: z.string().min(1) });
export const BalanceObj = z.looseObject({ balance: z.number().int() });

/** esimStatus values before a profile is allocated (an order being paid for or prepared). */
export const PRE_ALLOCATION: ReadonlySet<string> = new Set(['CREATE', 'PAYING', 'PAID', 'GETTING_RESOURCE']);

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
export const QueryObj = z.looseObject({
  esimList: z
    .array(RawProfile)
    .nullish()
    .transform((list) => list ?? []),
});

export const TopUpObj = z.looseObject({
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
export const UsageObj = z.union([z.array(RawUsage), z.looseObject({ esimUsageList: z.array(RawUsage) }).transform((o) => o.esimUsageList)]);

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
export function esimState(
  esimStatus: string,
  smdpStatus: string | null | undefined,
): { status: EsimStatus; installed: boolean; installStep: InstallStep | null } {
  const installed = USED_STATUSES.has(esimStatus) || (!!smdpStatus && smdpStatus !== 'RELEASED');
  return {
    status: STATUS_BY_ESIM_STATUS[esimStatus] ?? (installed ? 'installed' : 'ready'),
    installed,
    installStep: installStep(esimStatus, smdpStatus),
  };
}

/** smdpStatus in install steps; DISABLED (turned off in the phone's settings) is still installed. */
const STEP_BY_SMDP_STATUS: Readonly<Record<string, InstallStep>> = {
  RELEASED: 'released',
  DOWNLOAD: 'downloaded',
  INSTALLATION: 'installed',
  ENABLED: 'enabled',
  DISABLED: 'installed',
  DELETED: 'deleted',
};

/**
 * Where the eSIM is on the phone (My eSIMs' status line). Expired and deleted win over the rest:
 * the phone can no longer use it, whatever else the partner still says; IN_USE (and used up) come
 * after ENABLED, which the SM-DP+ status stays at. Cancelled (refunded) eSIMs have no step.
 */
export function installStep(esimStatus: string, smdpStatus: string | null | undefined): InstallStep | null {
  if (esimStatus === 'USED_EXPIRED' || esimStatus === 'UNUSED_EXPIRED') return 'expired';
  if (STATUS_BY_ESIM_STATUS[esimStatus] === 'cancelled') return null;
  if (smdpStatus === 'DELETED') return 'deleted';
  if (USED_STATUSES.has(esimStatus)) return 'in_use';
  return STEP_BY_SMDP_STATUS[smdpStatus ?? ''] ?? 'released';
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
  const { status, installed, installStep } = esimState(raw.esimStatus, raw.smdpStatus);
  return {
    esimTranNo: raw.esimTranNo,
    transactionId: raw.transactionId ?? null,
    iccid: raw.iccid,
    activationCode: raw.ac,
    ...lpa,
    apn: raw.apn?.trim() || null,
    status,
    installed,
    installStep,
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
export function partnerTime(text: string | null | undefined): Date | null {
  if (!text) return null;
  const date = new Date(
    text
      .trim()
      .replace(' ', 'T')
      .replace(/([+-]\d{2})(\d{2})$/, '$1:$2'),
  );
  return Number.isNaN(date.getTime()) ? null : date;
}

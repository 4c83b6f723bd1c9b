import type { PlanFacts } from '../../../catalogue/schema.ts';
import type { CataloguePackage, PartnerPackage } from '../partner.types.ts';
import { PARTNER } from './config.ts';
import { RawBundle, type EsimGoBundle, type EsimGoNetworks } from './schemas.ts';

// eSIM Go's catalogue bundles in our terms (PartnerPackage, and with its plan facts CataloguePackage).

/**
 * eSIM Go counts data in decimal units: a '1GB' bundle is 1,000,000,000 bytes (guides/bundle_status:
 * esim_1GB_7D_GB_V2's initialQuantity 1000000000), its catalogue dataAmount 1000 (MB).
 */
const BYTES_PER_MB = 1_000_000;

/**
 * The unlimited groups (Get Bundle Groups, the 'Standard' tier's descriptions): a daily volume at
 * full speed, then slowed, every day of the validity. Told apart by group name, else by the
 * documented bundle monikers (esim_UL_1D_TR_V2, esim_ULE_…, esim_ULP_…).
 */
const UNLIMITED: readonly { group: RegExp; name: RegExp; dailyMb: number; slowedToKbps: number }[] = [
  { group: /unlimited essential/i, name: /^esim_ULE_/i, dailyMb: 1000, slowedToKbps: 1250 },
  { group: /unlimited plus/i, name: /^esim_ULP_/i, dailyMb: 2000, slowedToKbps: 2000 },
  { group: /unlimited lite/i, name: /^esim_UL_/i, dailyMb: 1000, slowedToKbps: 512 },
];

/**
 * Days an eSIM may wait to be installed: eSIM Go schedules an eSIM for deletion when it has no
 * active bundle and none was applied or used in the last 180 days (Notifications, eSIM Deletion Scheduled).
 */
export const INSTALL_WITHIN_DAYS = 180;

type Fail = (problem: string) => never;

function failFor(name: string): Fail {
  return (problem) => {
    throw new Error(`${PARTNER} bundle ${name}: ${problem}`);
  };
}

/** ISO codes of a bundle's base countries, sorted ('UK' read as GB); roamingEnabled countries are not counted as covered. */
function countriesOf(raw: ReturnType<typeof RawBundle.parse>): string[] {
  const codes = raw.countries.map((c) => (c.iso ?? '').trim().toUpperCase()).map((c) => (c === 'UK' ? 'GB' : c));
  return [...new Set(codes.filter((c) => /^[A-Z]{2}$/.test(c)))].sort();
}

function unlimitedOf(raw: ReturnType<typeof RawBundle.parse>) {
  if (!raw.unlimited) return undefined;
  return (
    UNLIMITED.find((u) => (raw.groups ?? []).some((g) => u.group.test(g))) ??
    UNLIMITED.find((u) => u.name.test(raw.name)) ??
    failFor(raw.name)(
      `an unlimited bundle of no known group (${(raw.groups ?? []).join(', ') || 'none'}): its daily volume and speed are unknown`,
    )
  );
}

/** A catalogue bundle in our terms; its price must be in USD (the organisation's currency, checked by the caller). */
export function mapEsimGoBundle(input: EsimGoBundle): PartnerPackage {
  const raw = RawBundle.parse(input);
  const fail = failFor(raw.name);
  const countries = countriesOf(raw);
  if (countries.length === 0) fail('no country ISO code');
  const unlimited = unlimitedOf(raw);
  const megabytes = unlimited?.dailyMb ?? raw.dataAmount ?? fail('no dataAmount');
  if (!(megabytes > 0)) fail(`dataAmount ${megabytes} MB is not a volume`);
  if (!Number.isInteger(raw.duration) || raw.duration <= 0) fail(`duration ${raw.duration} is not a number of days`);
  return {
    partnerCode: raw.name,
    // Bundle names are eSIM Go's readable ids ('esim_1GB_7D_DE_V2'), case sensitive.
    slug: raw.name,
    name: raw.description?.trim() || raw.name,
    countries,
    dataAmount: megabytes >= 1000 ? { value: Math.round(megabytes / 10) / 100, unit: 'GB' } : { value: Math.round(megabytes), unit: 'MB' },
    dataBytes: Math.round(megabytes * BYTES_PER_MB),
    validity: raw.duration,
    // Get Bundle catalogue: 'Validity period of the bundle in days'.
    validityUnit: 'day',
    wholesaleUsdE4: Math.round(raw.price * 10_000),
    // eSIM Go sells top-ups as bundles applied to an eSIM already sold (Apply Bundle to an eSIM:
    // 'New eSIM (or topup existing eSIM)'; Create orders, Auto-assign), any bundle its provider can
    // carry: which ones fit one eSIM is asked per eSIM (listTopUps: Check eSIM and Bundle Compatibility).
    topUp: true,
  };
}

/**
 * A bundle the catalogue sells, with its plan facts. Throws, naming the bundle, when the facts
 * cannot be stated truthfully: an unlimited bundle of unknown group, a bundle that starts when it
 * is applied rather than at first use (autostart false), a covered country without operators.
 */
export function mapEsimGoCataloguePackage(input: EsimGoBundle, networks: EsimGoNetworks): CataloguePackage {
  const raw = RawBundle.parse(input);
  const pkg = mapEsimGoBundle(input);
  const fail = failFor(raw.name);
  // Notifications, First Use: the bundle and its duration start at its first data use. A bundle with
  // autostart false starts when applied unless given a startTime (Apply Bundle: startTime), neither of our two kinds.
  if (raw.autostart === false) fail('autostart is false: its validity starts when it is applied, not at first use');
  const unlimited = unlimitedOf(raw);
  return {
    ...pkg,
    facts: {
      networks: networksOf(pkg.countries, raw.speed, networks, fail),
      data: unlimited ? { kind: 'unlimited', after: { slowedToKbps: unlimited.slowedToKbps } } : { kind: 'total' },
      validityStarts: 'first-connection',
      installWithinDays: INSTALL_WITHIN_DAYS,
      topUp: pkg.topUp,
      // eSIM Go states nothing about hotspot use nor where the traffic leaves (no field in the catalogue).
      hotspot: null,
      sms: (raw.allowances ?? []).some((a) => a.type?.toUpperCase() === 'SMS' && (a.amount ?? 1) > 0),
      trafficExit: null,
    },
  };
}

/** Each covered country's operators (Get Country Network Data): the brand a traveller sees, its best generation. */
function networksOf(countries: readonly string[], bundleSpeed: readonly string[] | null | undefined, answer: EsimGoNetworks, fail: Fail) {
  return countries.map((country) => {
    const entry = answer.countryNetworks.find((c) => (c.iso ?? c.name ?? '').trim().toUpperCase() === country);
    const operators = (entry?.networks ?? []).flatMap((network) => {
      const name = (network.brandName || network.name || '').trim();
      if (!name) return [];
      const networkType = bestNetworkType(network.speed) ?? bestNetworkType(bundleSpeed) ?? fail(`${country} network ${name}: no speed`);
      return [{ name, networkType }];
    });
    // Two networks of one brand (one per MNC) are one operator to a traveller: its best generation.
    const byName = new Map<string, PlanFacts['networks'][number]['operators'][number]>();
    for (const op of operators) if (!byName.has(op.name) || op.networkType > byName.get(op.name)!.networkType) byName.set(op.name, op);
    if (byName.size === 0) fail(`no operators listed for ${country}: a plan without networks is not sold`);
    return { country, operators: [...byName.values()] };
  });
}

/** The best generation of a speed list (['3G', '4G', '5G'], ['LTE']); undefined when it names none. */
function bestNetworkType(speeds: readonly string[] | null | undefined): '2G' | '3G' | '4G' | '5G' | undefined {
  const generations = (speeds ?? []).flatMap((s) =>
    [...s.matchAll(/([2-5])G/gi)].map((m) => Number(m[1])).concat(/\bLTE\b/i.test(s) ? [4] : []),
  );
  return generations.length === 0 ? undefined : (`${Math.max(...generations)}G` as '2G' | '3G' | '4G' | '5G');
}

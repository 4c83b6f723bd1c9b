import { createRequire } from 'node:module';
import { COUNTRY_CODES, REGIONS } from '../../scripts/lib/geography.ts';

/**
 * The partner's wholesale catalogue, shaped like eSIM Access's package/list answer: what the
 * partner sells is its own decision, so the plans come from here, not from our snapshot (which
 * the generator makes from this). It sells in our countries and regions (scripts/lib/geography.ts)
 * a plan ladder sized by population, with a made-up but realistic and deterministic price
 * (USD × 10,000) and the partner's field names and units.
 */

const require = createRequire(import.meta.url);
const territoryInfo: Record<string, { _population?: string }> = require('cldr-core/supplemental/territoryInfo.json').supplemental
  .territoryInfo;

// Plans: every country gets the core ladder; large markets get more, tiny ones fewer.
type Plan = [gigabytes: number, days: number];
const CORE: Plan[] = [
  [1, 7],
  [3, 15],
  [5, 30],
  [10, 30],
  [20, 30],
];
const LARGE_EXTRA: Plan[] = [[50, 30]];
const SMALL: Plan[] = [
  [1, 7],
  [3, 15],
  [5, 30],
];
const REGION_PLANS: Plan[] = [
  [1, 7],
  [3, 15],
  [5, 30],
  [10, 30],
  [20, 30],
];
const GLOBAL_PLANS: Plan[] = [
  [1, 7],
  [3, 30],
  [5, 30],
  [10, 30],
];

function plansFor(code: string): Plan[] {
  const population = Number(territoryInfo[code]?._population ?? 0);
  if (population >= 20_000_000) return [...CORE, ...LARGE_EXTRA];
  if (population < 1_000_000) return SMALL;
  return CORE;
}

/** One package as eSIM Access lists it (docs.esimaccess.com, package/list). */
export interface StandInPackage {
  packageCode: string;
  slug: string;
  name: string;
  /** USD × 10,000. */
  price: number;
  currencyCode: 'USD';
  /** Bytes. */
  volume: number;
  smsStatus: number;
  /** 1: a fixed amount of data for the whole validity. */
  dataType: number;
  unusedValidTime: number;
  duration: number;
  durationUnit: 'DAY' | 'MONTH';
  /** Comma-separated country codes. */
  location: string;
  description: string;
  activeType: number;
  favorite: boolean;
  /** The partner's suggested retail price, USD × 10,000. */
  retailPrice: number;
  speed: string;
  ipExport: string;
  /**
   * Whether an eSIM of this package can be topped up (package/list, supportTopUpType; the docs'
   * example package shows 2): TOP_UP_TYPE.none (1) no top-up, TOP_UP_TYPE.available (2) top-ups
   * are listed for it by package/list with type TOPUP.
   */
  supportTopUpType: number;
  fupPolicy: string;
  locationNetworkList: {
    locationName: string;
    locationLogo: string;
    locationCode: string;
    operatorList: { operatorName: string; networkType: string }[];
  }[];
}

/** supportTopUpType's values: 1 no top-up, 2 top-ups available (see StandInPackage). */
export const TOP_UP_TYPE = { none: 1, available: 2 } as const;

/**
 * Whether a location's operator reloads its profiles: in about one location in seven it does not,
 * and no package sold there can be topped up (a stable pick, so the snapshot never changes by itself).
 */
export const reloadable = (locationCode: string) => unitHash(`${locationCode}:topup`) >= 0.12;

/**
 * The partner's location code prefix ('EU-42': a prefix and the number of countries) and English
 * name of each multi-country location.
 */
const REGION_LOCATION: Record<string, [prefix: string, name: string]> = {
  europe: ['EU', 'Europe'],
  asia: ['AS', 'Asia'],
  mena: ['ME', 'Middle East & North Africa'],
  africa: ['AF', 'Africa'],
  'north-america': ['NA', 'North America'],
  'latin-america': ['SA', 'Latin America'],
  caribbean: ['CB', 'Caribbean'],
  oceania: ['OC', 'Oceania'],
  global: ['GL', 'Global'],
};

/** How dear data is in a country, by the first region (in this order) that lists it. */
const REGION_COST: [string, number][] = [
  ['europe', 1.0],
  ['asia', 1.15],
  ['north-america', 1.3],
  ['mena', 1.6],
  ['latin-america', 1.7],
  ['oceania', 1.9],
  ['africa', 2.2],
  ['caribbean', 2.4],
];
const UNLISTED_COST = 2.0;
const REGIONAL_PREMIUM = 1.15;
/** USD for 1 GB over 7 days where data is cheapest, before the country's ±15 % spread. */
const BASE_USD = 0.85;

/** Wholesale USD: sub-linear in data (50 GB is not 50 × 1 GB) and, more weakly, in days. */
function wholesaleUsd(gigabytes: number, days: number, costFactor: number): number {
  return BASE_USD * costFactor * gigabytes ** 0.8 * (days / 7) ** 0.25;
}

export function buildWholesaleCatalogue(): StandInPackage[] {
  const englishName = new Intl.DisplayNames('en', { type: 'region' });
  const countryName = (code: string) => englishName.of(code) ?? code;
  const countryCost = (code: string): number => {
    const tier = REGION_COST.find(([region]) => REGIONS[region]?.includes(code));
    return (tier ? tier[1] : UNLISTED_COST) * (0.85 + 0.3 * unitHash(code));
  };
  const locations = [
    ...COUNTRY_CODES.map((code) => ({ region: undefined, countries: [code], plans: plansFor(code) })),
    ...Object.entries(REGIONS).map(([region, countries]) => ({
      region,
      countries: [...countries],
      plans: region === 'global' ? GLOBAL_PLANS : REGION_PLANS,
    })),
  ];

  const codes = new Set<string>();
  return locations.flatMap(({ region, countries, plans }) => {
    const costs = countries.map(countryCost);
    // A regional plan costs about what its dearer members cost, plus something for the convenience.
    const cost = region ? REGIONAL_PREMIUM * ((mean(costs) + Math.max(...costs)) / 2) : costs[0]!;
    const [prefix, regionName] = region ? (REGION_LOCATION[region] ?? [region.slice(0, 2).toUpperCase(), region]) : [];
    const locationCode = prefix ? `${prefix}-${countries.length}` : countries[0]!;
    const placeName = regionName ?? countryName(countries[0]!);

    return plans.map(([gigabytes, days]): StandInPackage => {
      const usd = wholesaleUsd(gigabytes, days, cost);
      const name = `${placeName} ${gigabytes}GB ${days}Days`;
      const slug = `${locationCode}_${gigabytes}_${days}`;
      const packageCode = `P${Math.floor(unitHash(slug) * 36 ** 7)
        .toString(36)
        .toUpperCase()
        .padStart(7, '0')}`;
      if (codes.has(packageCode)) throw new Error(`Stand-in package code ${packageCode} is not unique (${slug})`);
      codes.add(packageCode);

      return {
        packageCode,
        slug,
        name,
        price: Math.round(usd * 100) * 100,
        currencyCode: 'USD',
        volume: gigabytes * 2 ** 30,
        smsStatus: 0,
        dataType: 1,
        unusedValidTime: 180,
        duration: days,
        durationUnit: 'DAY',
        location: countries.join(','),
        description: name,
        activeType: 2,
        favorite: false,
        retailPrice: Math.round(usd * 2 * 100) * 100,
        speed: '3G/4G/5G',
        ipExport: region ? 'HK' : countries[0]!,
        supportTopUpType: reloadable(locationCode) ? TOP_UP_TYPE.available : TOP_UP_TYPE.none,
        fupPolicy: '',
        locationNetworkList: countries.map((code) => ({
          locationName: countryName(code),
          locationLogo: `/img/flags/${code.toLowerCase()}.png`,
          locationCode: code,
          operatorList: [{ operatorName: 'Stand-in Mobile', networkType: countryCost(code) < 1.5 ? '5G' : '4G' }],
        })),
      };
    });
  });
}

/**
 * Top-ups (docs.esimaccess.com, package/list with `type: 'TOPUP'` and an eSIM's `iccid`, or a base
 * `packageCode`; Top Up: esim/topup): packages of their own, with `TOPUP_` codes, that only add data
 * and days to an eSIM already sold. Each location whose packages can be topped up has a ladder of
 * them, not the plans' ladder (a 2 GB step no plan has), each cheaper than a plan of its size and
 * days would be (no new profile in it). None for a location that does not reload.
 */
type TopUpStep = [gigabytes: number, days: number];
const TOP_UP_STEPS: TopUpStep[] = [
  [1, 7],
  [2, 15],
  [5, 30],
  [10, 30],
];
const SMALL_TOP_UP_STEPS: TopUpStep[] = [
  [1, 7],
  [2, 15],
  [5, 30],
];
/** A top-up costs this much of what a plan of its size and days would. */
const TOP_UP_PRICE_FACTOR = 0.85;

/** Top-up packages by the location of the packages they top up ('DE', 'EU-54'). */
export function buildTopUpCatalogue(packages: readonly StandInPackage[]): Map<string, StandInPackage[]> {
  const byLocation = new Map<string, StandInPackage[]>();
  const codes = new Set(packages.map((p) => p.packageCode));
  for (const [location, plans] of Map.groupBy(packages, locationOf)) {
    if (plans.some((p) => p.supportTopUpType !== TOP_UP_TYPE.available)) continue;
    // The location's price per gigabyte-week, from its 1 GB 7-day plan (every location sells one).
    const reference = plans.find((p) => p.volume === 2 ** 30 && p.duration === 7) ?? plans[0]!;
    const cost = reference.price / 10_000 / wholesaleUsd(reference.volume / 2 ** 30, reference.duration, 1);
    const steps = plans.length <= SMALL.length ? SMALL_TOP_UP_STEPS : TOP_UP_STEPS;
    byLocation.set(
      location,
      steps.map(([gigabytes, days]): StandInPackage => {
        const slug = `${location}_${gigabytes}_${days}_TOPUP`;
        const packageCode = `TOPUP_T${Math.floor(unitHash(slug) * 36 ** 7)
          .toString(36)
          .toUpperCase()
          .padStart(7, '0')}`;
        if (codes.has(packageCode)) throw new Error(`Stand-in top-up code ${packageCode} is not unique (${slug})`);
        codes.add(packageCode);
        const usd = wholesaleUsd(gigabytes, days, cost) * TOP_UP_PRICE_FACTOR;
        const name = `${reference.name.replace(/ \d+GB \d+Days$/, '')} ${gigabytes}GB ${days}Days`;
        return {
          ...reference,
          packageCode,
          slug,
          name,
          description: `${name} top-up`,
          price: Math.round(usd * 100) * 100,
          retailPrice: Math.round(usd * 2 * 100) * 100,
          volume: gigabytes * 2 ** 30,
          duration: days,
        };
      }),
    );
  }
  return byLocation;
}

/** The partner's location of a package: its slug's first part ('DE', 'EU-54'). */
export const locationOf = (p: StandInPackage) => p.slug.slice(0, p.slug.indexOf('_'));

function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** A stable number in [0, 1) from a string (FNV-1a), so prices and codes never change between runs. */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}

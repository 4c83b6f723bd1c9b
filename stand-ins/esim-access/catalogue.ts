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

/**
 * Daily plans (dataType 2: a volume a day, then slowed to fupPolicy; 3: then cut off until the next
 * day) and unlimited ones (4: a daily fair-use volume, then slowed): sold in large markets and in a
 * few regions, as partners do.
 */
type DailyPlan = [dataType: 2 | 3 | 4, gigabytesADay: number, days: number, fupPolicy: string];
const LARGE_DAILY: DailyPlan[] = [
  [2, 1, 7, '512Kbps'],
  [3, 2, 15, ''],
];
const HUGE_DAILY: DailyPlan[] = [...LARGE_DAILY, [4, 3, 7, '1Mbps']];
const REGION_DAILY: Record<string, DailyPlan[]> = {
  europe: [
    [2, 1, 7, '512Kbps'],
    [4, 5, 30, '1Mbps'],
  ],
  asia: [[4, 2, 15, '512Kbps']],
};

function dailyPlansFor(code: string): DailyPlan[] {
  const population = Number(territoryInfo[code]?._population ?? 0);
  if (population >= 60_000_000) return HUGE_DAILY;
  if (population >= 20_000_000) return LARGE_DAILY;
  return [];
}

/**
 * Mobile operators and their best network in the big markets (public knowledge, 2026). Other
 * countries get a made-up but plausible incumbent, and a second operator where many people live.
 */
type Operator = [name: string, networkType: '3G' | '4G' | '5G'];
const OPERATORS: Record<string, Operator[]> = {
  AE: [
    ['Etisalat', '5G'],
    ['du', '5G'],
  ],
  AR: [
    ['Claro', '4G'],
    ['Movistar', '4G'],
    ['Personal', '4G'],
  ],
  AT: [
    ['A1', '5G'],
    ['Magenta', '5G'],
    ['Drei', '4G'],
  ],
  AU: [
    ['Telstra', '5G'],
    ['Optus', '5G'],
    ['Vodafone', '4G'],
  ],
  BE: [
    ['Proximus', '5G'],
    ['Orange', '4G'],
    ['Base', '4G'],
  ],
  BR: [
    ['Vivo', '5G'],
    ['Claro', '4G'],
    ['TIM', '4G'],
  ],
  CA: [
    ['Rogers', '5G'],
    ['Bell', '5G'],
    ['Telus', '4G'],
  ],
  CH: [
    ['Swisscom', '5G'],
    ['Sunrise', '5G'],
    ['Salt', '4G'],
  ],
  CN: [
    ['China Mobile', '5G'],
    ['China Unicom', '4G'],
    ['China Telecom', '4G'],
  ],
  CZ: [
    ['O2', '4G'],
    ['T-Mobile', '5G'],
    ['Vodafone', '4G'],
  ],
  DE: [
    ['Telekom', '5G'],
    ['Vodafone', '5G'],
    ['O2', '4G'],
  ],
  DK: [
    ['TDC', '5G'],
    ['Telenor', '4G'],
    ['Telia', '4G'],
  ],
  EG: [
    ['Vodafone', '4G'],
    ['Orange', '4G'],
    ['Etisalat', '4G'],
  ],
  ES: [
    ['Movistar', '5G'],
    ['Vodafone', '5G'],
    ['Orange', '4G'],
  ],
  FI: [
    ['Elisa', '5G'],
    ['DNA', '4G'],
    ['Telia', '4G'],
  ],
  FR: [
    ['Orange', '5G'],
    ['SFR', '5G'],
    ['Bouygues Telecom', '4G'],
  ],
  GB: [
    ['EE', '5G'],
    ['Vodafone', '5G'],
    ['O2', '4G'],
    ['Three', '4G'],
  ],
  GR: [
    ['Cosmote', '5G'],
    ['Vodafone', '4G'],
    ['Nova', '4G'],
  ],
  HK: [
    ['CSL', '5G'],
    ['3HK', '4G'],
    ['SmarTone', '4G'],
  ],
  HU: [
    ['Telekom', '4G'],
    ['Yettel', '4G'],
    ['Vodafone', '4G'],
  ],
  ID: [
    ['Telkomsel', '4G'],
    ['Indosat', '4G'],
    ['XL Axiata', '4G'],
  ],
  IE: [
    ['Vodafone', '5G'],
    ['Three', '4G'],
    ['Eir', '4G'],
  ],
  IL: [
    ['Partner', '4G'],
    ['Cellcom', '4G'],
    ['Pelephone', '4G'],
  ],
  IN: [
    ['Jio', '5G'],
    ['Airtel', '5G'],
    ['Vi', '4G'],
  ],
  IT: [
    ['TIM', '5G'],
    ['Vodafone', '5G'],
    ['WindTre', '4G'],
  ],
  JP: [
    ['SoftBank', '5G'],
    ['KDDI (au)', '5G'],
    ['NTT Docomo', '4G'],
  ],
  KR: [
    ['SK Telecom', '5G'],
    ['KT', '5G'],
    ['LG U+', '4G'],
  ],
  MA: [
    ['Maroc Telecom', '4G'],
    ['Orange', '4G'],
    ['inwi', '4G'],
  ],
  MX: [
    ['Telcel', '4G'],
    ['AT&T', '4G'],
    ['Movistar', '4G'],
  ],
  MY: [
    ['Maxis', '4G'],
    ['CelcomDigi', '4G'],
    ['U Mobile', '4G'],
  ],
  NL: [
    ['KPN', '5G'],
    ['Vodafone', '4G'],
    ['Odido', '4G'],
  ],
  NO: [
    ['Telenor', '5G'],
    ['Telia', '4G'],
  ],
  NZ: [
    ['One NZ', '5G'],
    ['Spark', '4G'],
    ['2degrees', '4G'],
  ],
  PH: [
    ['Globe', '4G'],
    ['Smart', '4G'],
  ],
  PL: [
    ['Plus', '4G'],
    ['Orange', '4G'],
    ['Play', '4G'],
    ['T-Mobile', '4G'],
  ],
  PT: [
    ['MEO', '5G'],
    ['NOS', '4G'],
    ['Vodafone', '4G'],
  ],
  SA: [
    ['STC', '5G'],
    ['Mobily', '4G'],
    ['Zain', '4G'],
  ],
  SE: [
    ['Telia', '5G'],
    ['Tele2', '4G'],
    ['Telenor', '4G'],
  ],
  SG: [
    ['Singtel', '5G'],
    ['StarHub', '5G'],
    ['M1', '4G'],
  ],
  TH: [
    ['AIS', '5G'],
    ['TrueMove H', '4G'],
    ['dtac', '4G'],
  ],
  TR: [
    ['Turkcell', '4G'],
    ['Vodafone', '4G'],
    ['Türk Telekom', '4G'],
  ],
  TW: [
    ['Chunghwa Telecom', '5G'],
    ['Taiwan Mobile', '4G'],
    ['FarEasTone', '4G'],
  ],
  US: [
    ['AT&T', '5G'],
    ['T-Mobile', '5G'],
    ['Verizon', '4G'],
  ],
  VN: [
    ['Viettel', '4G'],
    ['Vinaphone', '4G'],
    ['MobiFone', '4G'],
  ],
  ZA: [
    ['Vodacom', '4G'],
    ['MTN', '4G'],
    ['Cell C', '4G'],
  ],
};

/** Where a regional plan's traffic leaves to the internet: the partner's hub for the region. */
const REGION_EXIT: Record<string, string> = {
  europe: 'NL',
  asia: 'HK',
  mena: 'AE',
  africa: 'GB',
  'north-america': 'US',
  'latin-america': 'US',
  caribbean: 'US',
  oceania: 'AU',
  global: 'HK',
};

function operatorsIn(code: string, name: string, regional: boolean): Operator[] {
  const known = OPERATORS[code];
  // A regional plan roams on fewer partners a country than a local one.
  if (known) return regional ? known.slice(0, 2) : known;
  const population = Number(territoryInfo[code]?._population ?? 0);
  const incumbent: Operator = [`${name} Telecom`, unitHash(`${code}:net`) < 0.25 ? '3G' : '4G'];
  return population >= 5_000_000 && !regional ? [incumbent, [`${name} Mobile`, '4G']] : [incumbent];
}

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
  /** 1: a fixed volume for the whole validity; 2, 3: a volume a day (then slowed, cut); 4: unlimited, a daily fair-use volume. */
  dataType: number;
  /** Days within which the eSIM must be installed. */
  unusedValidTime: number;
  duration: number;
  durationUnit: 'DAY' | 'MONTH';
  /** Comma-separated country codes. */
  location: string;
  description: string;
  /** 1: the validity starts at installation, 2: at the first connection in a covered country. */
  activeType: number;
  favorite: boolean;
  /** The partner's suggested retail price, USD × 10,000. */
  retailPrice: number;
  speed: string;
  /** Where the traffic leaves to the internet (a country code). */
  ipExport: string;
  /**
   * Whether an eSIM of this package can be topped up (package/list, supportTopUpType; the docs'
   * example package shows 2): TOP_UP_TYPE.none (1) no top-up, TOP_UP_TYPE.available (2) top-ups
   * are listed for it by package/list with type TOPUP.
   */
  supportTopUpType: number;
  /** The speed after the daily volume of a dataType 2 or 4 plan ('512Kbps'); '' otherwise. */
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
    ...COUNTRY_CODES.map((code) => ({ region: undefined, countries: [code], plans: plansFor(code), daily: dailyPlansFor(code) })),
    ...Object.entries(REGIONS).map(([region, countries]) => ({
      region,
      countries: [...countries],
      plans: region === 'global' ? GLOBAL_PLANS : REGION_PLANS,
      daily: REGION_DAILY[region] ?? [],
    })),
  ];

  const codes = new Set<string>();
  return locations.flatMap(({ region, countries, plans, daily }) => {
    const costs = countries.map(countryCost);
    // A regional plan costs about what its dearer members cost, plus something for the convenience.
    const cost = region ? REGIONAL_PREMIUM * ((mean(costs) + Math.max(...costs)) / 2) : costs[0]!;
    const [prefix, regionName] = region ? (REGION_LOCATION[region] ?? [region.slice(0, 2).toUpperCase(), region]) : [];
    const locationCode = prefix ? `${prefix}-${countries.length}` : countries[0]!;
    const placeName = regionName ?? countryName(countries[0]!);

    // Per location, stable: how it activates, how long it waits to be installed, whether it gets SMS.
    const activeType = unitHash(`${locationCode}:active`) < 0.3 ? 1 : 2;
    const unusedValidTime = unitHash(`${locationCode}:unused`) < 0.2 ? 30 : 180;
    const smsStatus = !region && unitHash(`${locationCode}:sms`) < 0.25 ? 1 : 0;
    const locationNetworkList = countries.map((code) => ({
      locationName: countryName(code),
      locationLogo: `/img/flags/${code.toLowerCase()}.png`,
      locationCode: code,
      operatorList: operatorsIn(code, countryName(code), Boolean(region)).map(([operatorName, networkType]) => ({
        operatorName,
        networkType,
      })),
    }));
    const speed = [...new Set(locationNetworkList.flatMap((l) => l.operatorList.map((o) => o.networkType)))].sort().join('/');
    const offers: [dataType: number, gigabytes: number, days: number, fupPolicy: string][] = [
      ...plans.map(([gigabytes, days]): [number, number, number, string] => [1, gigabytes, days, '']),
      ...daily,
    ];

    return offers.map(([dataType, gigabytes, days, fupPolicy]): StandInPackage => {
      const perDay = dataType !== 1;
      // A day's volume over the days is more data than a fixed plan's, but most of it is never used.
      const usd = perDay ? wholesaleUsd(gigabytes * days * (dataType === 4 ? 0.5 : 0.4), days, cost) : wholesaleUsd(gigabytes, days, cost);
      const kind = { 1: '', 2: '/Day', 3: '/Day', 4: '/Day Unlimited' }[dataType];
      const name = `${placeName} ${gigabytes}GB${kind} ${days}Days`;
      const slug = `${locationCode}_${gigabytes}_${days}${perDay ? `_D${dataType}` : ''}`;
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
        smsStatus,
        dataType,
        unusedValidTime,
        duration: days,
        durationUnit: 'DAY',
        location: countries.join(','),
        description: name,
        activeType,
        favorite: false,
        retailPrice: Math.round(usd * 2 * 100) * 100,
        speed,
        // Local plans break out in the country; regional ones at the partner's hub.
        ipExport: region ? (REGION_EXIT[region] ?? 'HK') : countries[0]!,
        supportTopUpType: reloadable(locationCode) ? TOP_UP_TYPE.available : TOP_UP_TYPE.none,
        fupPolicy,
        locationNetworkList,
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
    const fixed = plans.filter((p) => p.dataType === 1);
    const reference = fixed.find((p) => p.volume === 2 ** 30 && p.duration === 7) ?? fixed[0]!;
    const cost = reference.price / 10_000 / wholesaleUsd(reference.volume / 2 ** 30, reference.duration, 1);
    const steps = fixed.length <= SMALL.length ? SMALL_TOP_UP_STEPS : TOP_UP_STEPS;
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

import snapshotJson from '../../src/catalogue/snapshot.json' with { type: 'json' };

/**
 * A wholesale catalogue shaped like eSIM Access's package/list answer, for every plan of our
 * committed snapshot: the same countries, regions, data amounts and validities, with a made-up
 * but realistic and deterministic price (USD × 10,000) and the partner's field names and units.
 */

/** The fields of the snapshot the stand-in reads; anything else in it may change freely. */
export interface CatalogueSource {
  countries: { code: string; names: { en: string } }[];
  regions: { code: string; names: { en: string }; supportedCountries: string[] }[];
  packages: {
    id: string;
    destination: string;
    metadata: { dataAmount: { value: number; unit: string } };
    validity: number;
    validityUnit: string;
    supportedCountries: string[];
  }[];
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
  supportTopUpType: number;
  fupPolicy: string;
  locationNetworkList: {
    locationName: string;
    locationLogo: string;
    locationCode: string;
    operatorList: { operatorName: string; networkType: string }[];
  }[];
}

/** The partner's location codes for multi-country packages: a prefix and the number of countries ('EU-42'). */
const REGION_PREFIX: Record<string, string> = {
  europe: 'EU',
  asia: 'AS',
  mena: 'ME',
  africa: 'AF',
  'north-america': 'NA',
  'latin-america': 'SA',
  caribbean: 'CB',
  oceania: 'OC',
  global: 'GL',
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

export function buildWholesaleCatalogue(source: CatalogueSource = snapshotJson): StandInPackage[] {
  const countryNames = new Map(source.countries.map((c) => [c.code, c.names.en]));
  const regions = new Map(source.regions.map((r) => [r.code, r]));
  const countryCost = (code: string): number => {
    const tier = REGION_COST.find(([region]) => regions.get(region)?.supportedCountries.includes(code));
    return (tier ? tier[1] : UNLISTED_COST) * (0.85 + 0.3 * unitHash(code));
  };

  const codes = new Set<string>();
  return source.packages.map((pkg) => {
    const region = regions.get(pkg.destination);
    const countries = [...pkg.supportedCountries].sort();
    const costs = countries.map(countryCost);
    // A regional plan costs about what its dearer members cost, plus something for the convenience.
    const cost = region ? REGIONAL_PREMIUM * ((mean(costs) + Math.max(...costs)) / 2) : costs[0]!;
    const prefix = region && (REGION_PREFIX[region.code] ?? region.code.slice(0, 2).toUpperCase());
    const locationCode = prefix ? `${prefix}-${countries.length}` : pkg.destination;
    const placeName = region ? region.names.en : (countryNames.get(pkg.destination) ?? pkg.destination);

    const { value, unit } = pkg.metadata.dataAmount;
    const gigabytes = unit === 'GB' ? value : value / 1024;
    const days = pkg.validity * ({ day: 1, week: 7, month: 30 }[pkg.validityUnit] ?? 1);
    const usd = wholesaleUsd(gigabytes, days, cost);
    const dataLabel = `${value}${unit}`;
    const durationLabel = pkg.validityUnit === 'month' ? `${pkg.validity}Months` : `${days}Days`;
    const name = `${placeName} ${dataLabel} ${durationLabel}`;

    const packageCode = `P${Math.floor(unitHash(pkg.id) * 36 ** 7).toString(36).toUpperCase().padStart(7, '0')}`;
    if (codes.has(packageCode)) throw new Error(`Stand-in package code ${packageCode} is not unique (${pkg.id})`);
    codes.add(packageCode);

    return {
      packageCode,
      slug: `${locationCode}_${unit === 'GB' ? value : dataLabel}_${pkg.validityUnit === 'month' ? pkg.validity : days}`,
      name,
      price: Math.round(usd * 100) * 100,
      currencyCode: 'USD',
      volume: value * (unit === 'GB' ? 2 ** 30 : 2 ** 20),
      smsStatus: 0,
      dataType: 1,
      unusedValidTime: 180,
      duration: pkg.validityUnit === 'month' ? pkg.validity : days,
      durationUnit: pkg.validityUnit === 'month' ? 'MONTH' : 'DAY',
      location: countries.join(','),
      description: name,
      activeType: 2,
      favorite: false,
      retailPrice: Math.round(usd * 2 * 100) * 100,
      speed: '3G/4G/5G',
      ipExport: region ? 'HK' : pkg.destination,
      supportTopUpType: 2,
      fupPolicy: '',
      locationNetworkList: countries.map((code) => ({
        locationName: countryNames.get(code) ?? code,
        locationLogo: `/img/flags/${code.toLowerCase()}.png`,
        locationCode: code,
        operatorList: [{ operatorName: 'Stand-in Mobile', networkType: countryCost(code) < 1.5 ? '5G' : '4G' }],
      })),
    };
  });
}

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

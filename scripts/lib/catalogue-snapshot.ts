import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LOCALE_CODES, type Locale } from '../../src/i18n/locales.ts';
import type { Snapshot } from '../../src/catalogue/schema.ts';
import { parseSnapshot } from '../../src/catalogue/snapshot.ts';
import type { ExchangeRates } from '../../src/pricing/exchange-rates.ts';
import { pricesInEveryCurrency } from '../../src/pricing/pricing.ts';
import type { CataloguePackage, PartnerCatalogue } from '../../src/server/partner/partner.types.ts';
import { COUNTRY_CODES, REGIONS } from './geography.ts';
import { listPartnerCatalogue, planKey } from './partner-catalogue.ts';

/**
 * The catalogue snapshot from the partner's packages (DESIGN 4 and 6): our countries and regions
 * with their names in 12 languages, flags and search aliases, and the packages the partner sells
 * in them, each with its partner code, wholesale price and our retail price.
 *
 * Which destination a partner package belongs to:
 * - a single-country package: that country, if it is one of ours;
 * - a multi-country package: the region whose countries are exactly the package's;
 * - anything else is left out (returned in `unmatched`). If that leaves a destination without a
 *   package, the snapshot's invariants refuse it, naming the destination.
 * Two packages of one destination with the same data and validity: the cheaper one is sold.
 */
const require = createRequire(import.meta.url);
const version = (pkg: string) => (require(`${pkg}/package.json`) as { version: string }).version;
const isoEnglish: { countries: Record<string, string | string[]> } = require('i18n-iso-countries/langs/en.json');

/** Intl's long names for these read like legal titles ('Hong Kong SAR China'); use the short ones. */
const SHORT_NAME = new Set(['HK', 'MO', 'PS', 'MM']);

/** Region labels are ours, hand-translated (Intl has no 'Middle East & North Africa'). */
const REGION_NAMES: Record<string, Record<Locale, string>> = JSON.parse(
  readFileSync(new URL('../../src/catalogue/region-names.json', import.meta.url), 'utf8'),
);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function names(code: string): Record<Locale, string> {
  return Object.fromEntries(
    LOCALE_CODES.map((locale) => {
      const style = SHORT_NAME.has(code) ? 'short' : 'long';
      return [locale, new Intl.DisplayNames(locale, { type: 'region', style }).of(code)!];
    }),
  ) as Record<Locale, string>;
}

function aliases(code: string, englishName: string): string[] {
  const iso = isoEnglish.countries[code];
  const list = Array.isArray(iso) ? iso : iso ? [iso] : [];
  return [...new Set(list)].filter((a) => a.toLowerCase() !== englishName.toLowerCase() && a.toUpperCase() !== code);
}

const DAYS = { day: 1, week: 7, month: 30 } as const;
/** A destination's plans: the fixed-data ones first, then daily, then unlimited. */
const KIND_ORDER = { total: 0, daily: 1, unlimited: 2 } as const;
const megabytes = ({ dataAmount: { value, unit } }: CataloguePackage) => (unit === 'GB' ? value * 1024 : value);

/**
 * 'de-1gb-7d', 'europe-500mb-1w', 'de-1gb-daily-7d', 'jp-unlimited-3gb-7d': stable as long as the
 * partner sells the plan, whatever its code. Fixed-data ids are as before daily plans were sold.
 */
function packageId(destination: string, pkg: CataloguePackage): string {
  const { value, unit } = pkg.dataAmount;
  const amount = unit === 'GB' && Number.isInteger(value) ? `${value}gb` : `${Math.round(megabytes(pkg))}mb`;
  const { kind } = pkg.facts.data;
  // An unknown kind still gets an id, so the snapshot's schema can name the plan it refuses.
  const data = { total: amount, daily: `${amount}-daily`, unlimited: `unlimited-${amount}` }[kind] ?? `${amount}-${String(kind)}`;
  return `${destination.toLowerCase()}-${data}-${pkg.validity}${pkg.validityUnit[0]}`;
}

export interface GeneratedSnapshot {
  snapshot: Snapshot;
  /** Slugs of the partner's packages that fit none of our destinations. */
  unmatched: string[];
}

/** `exchangeRates`: the ECB's, with the rates the prices use after the band (pricing/exchange-rates.ts applyRateBand). */
export async function generateSnapshot(partner: PartnerCatalogue, exchangeRates: ExchangeRates): Promise<GeneratedSnapshot> {
  const countries = new Set(COUNTRY_CODES);
  const regionByCountries = new Map(Object.entries(REGIONS).map(([code, members]) => [members.join(','), code]));
  const byDestination = new Map<string, Map<string, CataloguePackage>>(
    [...COUNTRY_CODES, ...Object.keys(REGIONS)].map((code) => [code, new Map()]),
  );
  const unmatched: string[] = [];
  for (const pkg of await listPartnerCatalogue(partner)) {
    const [only] = pkg.countries;
    const destination =
      pkg.countries.length === 1 ? (countries.has(only!) ? only : undefined) : regionByCountries.get(pkg.countries.join(','));
    if (!destination) {
      unmatched.push(pkg.slug);
      continue;
    }
    const plans = byDestination.get(destination)!;
    const key = planKey(pkg);
    const other = plans.get(key);
    if (!other || pkg.wholesaleUsdE4 < other.wholesaleUsdE4) plans.set(key, pkg);
  }

  const packages = [...byDestination].flatMap(([destination, plans]) => {
    const sorted = [...plans.values()].sort(
      (a, b) =>
        KIND_ORDER[a.facts.data.kind] - KIND_ORDER[b.facts.data.kind] ||
        megabytes(a) - megabytes(b) ||
        a.validity * DAYS[a.validityUnit] - b.validity * DAYS[b.validityUnit],
    );
    const unpriced = sorted.map((pkg) => ({
      id: packageId(destination, pkg),
      destination,
      metadata: { dataAmount: pkg.dataAmount },
      validity: pkg.validity,
      validityUnit: pkg.validityUnit,
      supportedCountries: pkg.countries,
      partnerCode: pkg.partnerCode,
      wholesaleUsdE4: pkg.wholesaleUsdE4,
      facts: pkg.facts,
    }));
    // Daily and unlimited plans too: the one pricing function, from their own wholesale price, in every currency.
    const prices = pricesInEveryCurrency(unpriced, exchangeRates.applied);
    return unpriced.map((plan, i) => ({ ...plan, prices: prices[i]! }));
  });

  const snapshot = {
    sources: {
      'cldr-core': version('cldr-core'),
      'country-flag-icons': version('country-flag-icons'),
      'i18n-iso-countries': version('i18n-iso-countries'),
      icu: process.versions.icu ?? 'unknown',
      partner: partner.name,
    },
    countries: COUNTRY_CODES.map((code) => {
      const countryNames = names(code);
      return { code, names: countryNames, flag: `/flags/${code}.svg`, aliases: aliases(code, countryNames.en) };
    }),
    regions: Object.entries(REGIONS).map(([code, members]) => ({
      code,
      names: REGION_NAMES[code]!,
      flag: code === 'europe' ? '/flags/region-europe.svg' : '/flags/region.svg',
      supportedCountries: [...members],
    })),
    packages,
    exchangeRates,
  };
  // The same invariants the build enforces, flag files included.
  return { snapshot: parseSnapshot(snapshot, `generated from ${partner.name}`, ROOT), unmatched: unmatched.sort() };
}

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
import { afterVolume, listPartnerCatalogue, planKey } from './partner-catalogue.ts';
import { addPackage, mergePlan, type MergedPlan, type ShapePackages } from './plan-offers.ts';

/**
 * The catalogue snapshot from the partners' packages (DESIGN 4 and 6, issue 48): our countries and
 * regions with their names in 12 languages, flags and search aliases, and the plans the partners
 * sell in them, each with every partner's offer (code and wholesale price) and our retail price.
 *
 * Which destination a partner package belongs to:
 * - a single-country package: that country, if it is one of ours;
 * - a multi-country package: the region whose countries are exactly the package's;
 * - anything else is left out (returned in `unmatched`). If that leaves a destination without a
 *   package, the snapshot's invariants refuse it, naming the destination.
 * A plan is one shape in a destination (planKey: data, how it is counted and slowed, validity),
 * whichever partners sell it; of two packages of one partner with the same shape, its cheaper
 * one. How a plan is priced from its offers: plan-offers.ts.
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
 * plan is sold, whatever its partner or code. Fixed-data ids are as before daily plans were sold.
 */
function packageId(destination: string, pkg: CataloguePackage): string {
  const { value, unit } = pkg.dataAmount;
  const amount = unit === 'GB' && Number.isInteger(value) ? `${value}gb` : `${Math.round(megabytes(pkg))}mb`;
  const { kind } = pkg.facts.data;
  // An unknown kind still gets an id, so the snapshot's schema can name the plan it refuses.
  const data = { total: amount, daily: `${amount}-daily`, unlimited: `unlimited-${amount}` }[kind] ?? `${amount}-${String(kind)}`;
  return `${destination.toLowerCase()}-${data}-${pkg.validity}${pkg.validityUnit[0]}`;
}

/** What a daily or unlimited plan does after its volume, for its id: '512kbps', 'cut'; undefined for a fixed volume. */
function afterVolumeId(pkg: CataloguePackage): string | undefined {
  const after = afterVolume(pkg.facts.data);
  return after === undefined ? undefined : after === 'cut' ? 'cut' : `${after}kbps`;
}

/**
 * A destination's plan ids. Two plans differing only in what happens after their daily volume get
 * the same packageId: the one priced from the reference partner keeps it (of two such, the
 * cheaper), as the plan sold before other partners (and speeds in the plan key) came; the other
 * names its speed: 'de-1gb-daily-7d-1000kbps'.
 */
function planIds(destination: string, plans: readonly MergedPlan[], reference: string): string[] {
  const ids = plans.map((plan) => packageId(destination, plan.pkg));
  for (const [id, indexes] of Map.groupBy(ids.keys(), (i) => ids[i]!)) {
    if (indexes.length < 2) continue;
    const referenceFirst = (i: number) => (plans[i]!.partner === reference ? 0 : 1);
    const [, ...renamed] = indexes.sort(
      (a, b) => referenceFirst(a) - referenceFirst(b) || plans[a]!.pkg.wholesaleUsdE4 - plans[b]!.pkg.wholesaleUsdE4,
    );
    // A fixed volume has no speed to tell it by: the schema refuses the repeated id, naming it.
    for (const i of renamed) {
      const speed = afterVolumeId(plans[i]!.pkg);
      if (speed) ids[i] = `${id}-${speed}`;
    }
  }
  return ids;
}

/** The slowest first among plans differing only in their speed after the volume; cut off is the slowest. */
const speedOf = (pkg: CataloguePackage) => {
  const after = afterVolume(pkg.facts.data);
  return typeof after === 'number' ? after : 0;
};

/** A partner the catalogue is made from: its registry id (src/server/partner/registry.ts) and its catalogue. */
export interface SnapshotPartner {
  id: string;
  catalogue: PartnerCatalogue;
}

export interface GeneratedSnapshot {
  snapshot: Snapshot;
  /** By partner id, the slugs of its packages that fit none of our destinations. */
  unmatched: Record<string, string[]>;
}

/**
 * `partners`: every partner selling the catalogue, the reference first: the one a plan it sells
 * is priced from (plan-offers.ts). `exchangeRates`: the ECB's, with the rates the prices use after
 * the band (pricing/exchange-rates.ts applyRateBand).
 */
export async function generateSnapshot(partners: readonly SnapshotPartner[], exchangeRates: ExchangeRates): Promise<GeneratedSnapshot> {
  const reference = partners[0]?.id;
  if (reference === undefined) throw new Error('The catalogue needs at least one partner');
  const ids = partners.map((p) => p.id);
  if (new Set(ids).size !== ids.length) throw new Error(`A partner is listed twice: ${ids.join(', ')}`);
  const countries = new Set(COUNTRY_CODES);
  const regionByCountries = new Map(Object.entries(REGIONS).map(([code, members]) => [members.join(','), code]));
  const byDestination = new Map<string, Map<string, ShapePackages>>(
    [...COUNTRY_CODES, ...Object.keys(REGIONS)].map((code) => [code, new Map()]),
  );
  const unmatched: Record<string, string[]> = {};
  const catalogues = await Promise.all(partners.map(({ catalogue }) => listPartnerCatalogue(catalogue)));
  partners.forEach(({ id }, p) => {
    const left: string[] = [];
    for (const pkg of catalogues[p]!) {
      const [only] = pkg.countries;
      const destination =
        pkg.countries.length === 1 ? (countries.has(only!) ? only : undefined) : regionByCountries.get(pkg.countries.join(','));
      if (!destination) {
        left.push(pkg.slug);
        continue;
      }
      const shapes = byDestination.get(destination)!;
      const key = planKey(pkg);
      const shape = shapes.get(key) ?? new Map();
      shapes.set(key, shape);
      addPackage(shape, id, pkg);
    }
    unmatched[id] = left.sort();
  });

  const packages = [...byDestination].flatMap(([destination, shapes]) => {
    const plans = [...shapes.values()]
      .map((shape) => mergePlan(shape, reference))
      .sort(
        ({ pkg: a }, { pkg: b }) =>
          KIND_ORDER[a.facts.data.kind] - KIND_ORDER[b.facts.data.kind] ||
          megabytes(a) - megabytes(b) ||
          a.validity * DAYS[a.validityUnit] - b.validity * DAYS[b.validityUnit] ||
          speedOf(a) - speedOf(b),
      );
    const planIdList = planIds(destination, plans, reference);
    const unpriced = plans.map(({ pkg, offers }, i) => ({
      id: planIdList[i]!,
      destination,
      metadata: { dataAmount: pkg.dataAmount },
      validity: pkg.validity,
      validityUnit: pkg.validityUnit,
      supportedCountries: pkg.countries,
      // The pricing offer (the first): what the one pricing function prices the plan from.
      partnerCode: pkg.partnerCode,
      wholesaleUsdE4: pkg.wholesaleUsdE4,
      offers,
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
      // Every partner by its registry id, the reference (the prices') first.
      ...Object.fromEntries(partners.map(({ id, catalogue }) => [`partner:${id}`, catalogue.name])),
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
  const from = partners.map((p) => p.catalogue.name).join(' and ');
  return { snapshot: parseSnapshot(snapshot, `generated from ${from}`, ROOT), unmatched };
}

import type { Price, Prices, Snapshot } from '../../catalogue/schema.ts';
import { BASE_CURRENCY } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';
import { priceIn } from '../../pricing/price-in.ts';
import { pricesInEveryCurrency } from '../../pricing/pricing.ts';
import type { SoldPlan } from './store.types.ts';

type SnapshotPackage = Snapshot['packages'][number];

/** A plan as the shop sells it now: the catalogue's package and the prices the pricing function gives it today. */
export interface SellablePlan {
  pkg: SnapshotPackage;
  /** In every listed currency, minor units. */
  prices: Prices;
  /** The euro price, the base list's (BASE_CURRENCY). */
  price: Price;
  destination: { code: string; flag: string; names: Record<Locale, string> };
}

/** A catalogue plan as an order keeps it, whatever the catalogue says later. */
export function soldPlan({ pkg }: SellablePlan): SoldPlan {
  return {
    id: pkg.id,
    metadata: pkg.metadata,
    validity: pkg.validity,
    validityUnit: pkg.validityUnit,
    supportedCountries: pkg.supportedCountries,
    topUp: pkg.facts.topUp,
    data: pkg.facts.data,
  };
}

/** The catalogue's countries and regions by code. */
const destinationsOf = (catalogue: Snapshot) => new Map([...catalogue.countries, ...catalogue.regions].map((d) => [d.code, d]));

/**
 * Prices every plan of the catalogue again with the one pricing function (DESIGN 6), as the
 * snapshot generator does (in every currency, on the snapshot's rates), so an order is charged
 * what the pricing rules say today and never what a page or a client claims.
 */
export function sellablePlans(catalogue: Snapshot): Map<string, SellablePlan> {
  const destinations = destinationsOf(catalogue);
  const plans = new Map<string, SellablePlan>();
  for (const [code, packages] of Map.groupBy(catalogue.packages, (p) => p.destination)) {
    const { flag, names } = destinations.get(code)!;
    const priced = pricesInEveryCurrency(packages, catalogue.exchangeRates.applied);
    packages.forEach((pkg, i) => {
      const prices = priced[i]!;
      plans.set(pkg.id, { pkg: { ...pkg, prices }, prices, price: priceIn(prices, BASE_CURRENCY), destination: { code, flag, names } });
    });
  }
  return plans;
}

/** A destination's name and flag in a language, for answers about orders. */
export function destinationNames(catalogue: Snapshot) {
  const destinations = destinationsOf(catalogue);
  return (code: string, lang: Locale) => {
    const destination = destinations.get(code);
    return { code, name: destination?.names[lang] ?? code, flag: destination?.flag ?? '' };
  };
}

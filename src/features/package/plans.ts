import type { Package, Price } from '../../catalogue/schema.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { T } from '../../i18n/t.ts';
import { formatPrice, formatValidity } from '../../lib/format.ts';
import { dataText } from './plan-facts.ts';

/** A plan card's text, formatted on the server so the island ships no Intl or i18n code. */
export interface PlanView {
  id: string;
  /** The card's headline: '1 GB', '1 GB a day', 'Unlimited'. */
  data: string;
  /** After the daily volume: 'Then 512 kb/s'; undefined for a total volume. */
  limit: string | undefined;
  /** The data rule in one line, for the checkout bar: '1 GB in total', '1 GB a day, then 512 kb/s'. */
  summary: string;
  validity: string;
  countries: string;
  /** The facts of this plan that the destination's other plans do not share ('Cannot be topped up'). */
  facts: string[];
  /** Formatted price, or undefined while the catalogue has none (DESIGN 2): then it cannot be bought. */
  price: string | undefined;
  /** The price in minor units, for sorting (one currency per catalogue). */
  amountMinor: number | undefined;
}

/** The orders a traveller can list plans in: the catalogue's own, or by price. */
export const PLAN_ORDERS = ['default', 'price-asc', 'price-desc'] as const;
export type PlanOrder = (typeof PLAN_ORDERS)[number];

/** `ownFacts`: the plan's facts not said once for the page (plan-facts.ts splitFacts). */
export function planView(pkg: Package, locale: Locale, t: T, tPlans: T<'plans'>, ownFacts: string[] = []): PlanView {
  const data = dataText(pkg, locale, tPlans);
  return {
    id: pkg.id,
    data: data.headline,
    limit: data.limit,
    summary: data.summary,
    facts: ownFacts,
    validity: formatValidity(pkg.validity, pkg.validityUnit, locale),
    countries: t('store.countriesCount', { count: pkg.supportedCountries.length }),
    price: pkg.price && formatPrice(pkg.price, locale),
    amountMinor: pkg.price?.amountMinor,
  };
}

/** Plans in the chosen order; plans without a price come last either way. */
export function sortPlans<P extends Pick<PlanView, 'amountMinor'>>(plans: readonly P[], order: PlanOrder): P[] {
  if (order === 'default') return [...plans];
  const sign = order === 'price-asc' ? 1 : -1;
  return [...plans].sort((a, b) =>
    a.amountMinor === undefined || b.amountMinor === undefined
      ? Number(a.amountMinor === undefined) - Number(b.amountMinor === undefined)
      : sign * (a.amountMinor - b.amountMinor),
  );
}

/** The cheapest priced package of a destination, for the store's 'from' price; undefined if none is priced. */
export function lowestPrice(packages: readonly Package[]): Price | undefined {
  return packages.reduce<Price | undefined>(
    (low, pkg) => (pkg.price && (!low || pkg.price.amountMinor < low.amountMinor) ? pkg.price : low),
    undefined,
  );
}

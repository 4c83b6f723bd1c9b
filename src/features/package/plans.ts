import type { Package, Prices } from '../../catalogue/schema.ts';
import { CURRENCIES, type Currency } from '../../config/currencies.ts';
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
  /**
   * The price in every listed currency, formatted in the page's language (issue 34): the page
   * switches between them without asking anyone. Undefined while the catalogue has none (DESIGN 2):
   * then it cannot be bought.
   */
  prices: FormattedPrices | undefined;
  /** The same in minor units, each currency's own price list: for sorting in the shown currency and the cart. */
  amounts: Prices | undefined;
}

export type FormattedPrices = Record<Currency, string>;

/** A price list formatted in `locale`, currency by currency ('4,99 €', '5,49 $', '360 ¥' in German). */
export function formatPrices(prices: Prices, locale: Locale): FormattedPrices {
  return Object.fromEntries(
    CURRENCIES.map((currency) => [currency, formatPrice({ amountMinor: prices[currency], currency }, locale)]),
  ) as FormattedPrices;
}

/** The orders a traveller can list plans in: the catalogue's own, or by price. */
export const PLAN_ORDERS = ['default', 'price-asc', 'price-desc'] as const;
export type PlanOrder = (typeof PLAN_ORDERS)[number];

/** `ownFacts`: the plan's facts not said once for the page (plan-facts.ts splitFacts). */
export function planView(pkg: Package, locale: Locale, t: T, tPlans: T<'plans'>, ownFacts: string[] = []): PlanView {
  const data = dataText(pkg, locale, tPlans);
  const amounts = pkg.price && pkg.prices;
  return {
    id: pkg.id,
    data: data.headline,
    limit: data.limit,
    summary: data.summary,
    facts: ownFacts,
    validity: formatValidity(pkg.validity, pkg.validityUnit, locale),
    countries: t('store.countriesCount', { count: pkg.supportedCountries.length }),
    prices: amounts && formatPrices(amounts, locale),
    amounts,
  };
}

/**
 * Plans in the chosen order, by their price in the shown currency (each currency's price list is
 * rounded on its own, so the orders may differ); plans without a price come last either way.
 */
export function sortPlans<P extends Pick<PlanView, 'amounts'>>(plans: readonly P[], order: PlanOrder, currency: Currency): P[] {
  if (order === 'default') return [...plans];
  const sign = order === 'price-asc' ? 1 : -1;
  return [...plans].sort((a, b) =>
    a.amounts && b.amounts ? sign * (a.amounts[currency] - b.amounts[currency]) : Number(!a.amounts) - Number(!b.amounts),
  );
}

/**
 * A destination's 'from' price in every currency: each currency's lowest among its priced
 * packages (a currency's own rounding may make another plan the cheapest); undefined if none is priced.
 */
export function lowestPrices(packages: readonly Package[]): Prices | undefined {
  const priced = packages.flatMap((pkg) => (pkg.price && pkg.prices ? [pkg.prices] : []));
  if (priced.length === 0) return undefined;
  return Object.fromEntries(CURRENCIES.map((currency) => [currency, Math.min(...priced.map((p) => p[currency]))])) as Prices;
}

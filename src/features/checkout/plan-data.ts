import type { Catalogue } from '../../catalogue/loader.ts';
import type { Package, PlanFacts, Price, Prices } from '../../catalogue/schema.ts';
import type { Locale } from '../../i18n/locales.ts';

/**
 * How a chosen plan reaches checkout: the package page opens /checkout?plan={id} (static, one
 * page per language), and the page fetches /plans/{id}.json, published by the build for every
 * plan that can be bought.
 */
export const PLAN_PARAM = 'plan';
/** Set by the shop API's cancel URL: the buyer left the payment page with Cancel. */
export const CANCELLED_PARAM = 'cancelled';
/** A top-up (My eSIMs): the id of the eSIM the plan's data is added to; the cancel URL keeps it. */
export const TOP_UP_PARAM = 'topUp';

/** What /plans/{id}.json holds: a priced plan and its destination, named in every language. */
export interface PlanData extends Omit<Package, 'price' | 'prices' | 'facts'> {
  /** The euro price (`prices.EUR`). */
  price: Price;
  /** The price in every listed currency, minor units (issue 34): checkout and the cart show the visitor's. */
  prices: Prices;
  /** The plan's facts without its networks: checkout does not list them, and a global plan's are 20 KB. */
  facts: Omit<PlanFacts, 'networks'>;
  destination: {
    code: string;
    flag: string;
    names: Record<Locale, string>;
    /** A country's continent in every language, shown under its name (look-alikes: Niger, Nigeria); none for a region. */
    continent?: Record<Locale, string>;
  };
}

export const checkoutUrl = (checkoutPath: string, planId: string, topUpOf?: string) =>
  `${checkoutPath}?${PLAN_PARAM}=${encodeURIComponent(planId)}${topUpOf ? `&${TOP_UP_PARAM}=${encodeURIComponent(topUpOf)}` : ''}`;

/** Encoded, so whatever the address bar holds stays one path segment: an unknown id is a 404. */
export const planDataUrl = (planId: string) => `/plans/${encodeURIComponent(planId)}.json`;

/**
 * Every plan that can be bought, i.e. has a price (DESIGN 2). The build passes continentNames
 * (src/catalogue/continents.ts): this module is also the browser's (checkout, the package page's
 * bar), which must not load CLDR's data.
 */
export function planData(catalogue: Catalogue, continentOf: (code: string) => Record<Locale, string> | undefined): PlanData[] {
  return [...catalogue.countries, ...catalogue.regions].flatMap(({ code, flag, names }) => {
    // A region's code ('europe') is no country's: it gets none.
    const continent = continentOf(code);
    const destination = { code, flag, names, ...(continent && { continent }) };
    return catalogue.packages
      .get(code)!
      .flatMap(({ facts: { networks: _, ...facts }, price, prices, ...pkg }) =>
        price && prices ? [{ ...pkg, facts, price, prices, destination }] : [],
      );
  });
}

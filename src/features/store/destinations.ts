import { continentName, continentOf } from '../../catalogue/continents.ts';
import type { Catalogue } from '../../catalogue/loader.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatPrices, lowestPrices, type FormattedPrices } from '../package/plans.ts';
import { searchText } from './search.ts';

/** A store item as the page renders it: one country or region in one language. */
export interface Destination {
  code: string;
  /** Lower-case code used in the package URL: /package/de, /package/europe. */
  slug: string;
  name: string;
  flag: string;
  /** Countries: their continent, in the page's language, so look-alikes (Austria, Australia) are told apart. */
  continent?: string;
  /** Regions: how many countries they cover. */
  countryCount?: number;
  /** The lowest price of its plans in every currency, formatted; undefined while none has a price. */
  fromPrices: FormattedPrices | undefined;
  search: string;
}

/** Countries and regions in the page's language, sorted with that language's collation. */
export function destinationsFor(catalogue: Catalogue, locale: Locale) {
  const collator = new Intl.Collator(locale);
  const byName = (a: Destination, b: Destination) => collator.compare(a.name, b.name);
  const fromPrices = (code: string) => {
    const prices = lowestPrices(catalogue.packages.get(code) ?? []);
    return prices && formatPrices(prices, locale);
  };
  const countries = catalogue.countries
    .map((c): Destination => {
      const continent = continentOf(c.code);
      return {
        code: c.code,
        slug: c.code.toLowerCase(),
        name: c.names[locale],
        flag: c.flag,
        ...(continent && { continent: continentName(continent, locale) }),
        fromPrices: fromPrices(c.code),
        search: searchText([c.names[locale], c.names.en, c.code, ...c.aliases]),
      };
    })
    .sort(byName);
  const regions = catalogue.regions
    .map((r): Destination => ({
      code: r.code,
      slug: r.code,
      name: r.names[locale],
      flag: r.flag,
      countryCount: r.supportedCountries.length,
      fromPrices: fromPrices(r.code),
      search: searchText([r.names[locale], r.names.en, r.code]),
    }))
    .sort(byName);
  return { countries, regions };
}

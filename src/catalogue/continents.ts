import containment from 'cldr-core/supplemental/territoryContainment.json';
import { LOCALE_CODES, type Locale } from '../i18n/locales.ts';

/**
 * A country's continent, shown beside its name so look-alikes (Austria and Australia, Niger and
 * Nigeria) are told apart (issue 22). From CLDR's UN M.49 territory containment, read at build
 * time: no hand list to keep up. The continents are one level below the world, with the Americas
 * split into North (with Central America and the Caribbean) and South, as travellers name them.
 */
export const CONTINENTS = ['002', '003', '005', '009', '142', '150'] as const;
export type Continent = (typeof CONTINENTS)[number];

const tree: Record<string, { _contains?: readonly string[] }> = containment.supplemental.territoryContainment;

/** The two-letter territories under an M.49 area, at any depth. */
function countriesIn(area: string): string[] {
  const children = tree[area]?._contains;
  if (!children) return /^[A-Z]{2}$/.test(area) ? [area] : [];
  return children.flatMap(countriesIn);
}

const continentByCountry = new Map<string, Continent>(CONTINENTS.flatMap((continent) => countriesIn(continent).map((c) => [c, continent])));

/** 'AT' → '150'; undefined for a code CLDR places on no continent. */
export function continentOf(countryCode: string): Continent | undefined {
  return continentByCountry.get(countryCode);
}

/** The continent's name in the page's language, from the runtime's CLDR data: 'Europe', 'Europa', 'أوروبا'. */
export function continentName(continent: Continent, locale: Locale): string {
  let names = displayNames.get(locale);
  if (!names) displayNames.set(locale, (names = new Intl.DisplayNames(locale, { type: 'region' })));
  return names.of(continent)!;
}
const displayNames = new Map<Locale, Intl.DisplayNames>();

/** A country's continent named in every language (for /plans/{id}.json); undefined as continentOf. */
export function continentNames(countryCode: string): Record<Locale, string> | undefined {
  const continent = continentOf(countryCode);
  return continent && (Object.fromEntries(LOCALE_CODES.map((l) => [l, continentName(continent, l)])) as Record<Locale, string>);
}

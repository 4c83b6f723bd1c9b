import { Hono, type Context } from 'hono';
import { BASE_CURRENCY } from '../config/currencies.ts';
import { DEFAULT_LOCALE, isLocale, LOCALE_CODES, type Locale } from '../i18n/locales.ts';
import { catalogueError, catalogueJson } from './answers.ts';
import { CountryCode, RegionCode, type Country, type Package, type Region, type Snapshot } from './schema.ts';

/**
 * The catalogue's reads (spec 7): GET /regions, GET /countries, GET /packages?regionId={code}, and
 * GET /exchange-rates (issue 34: the dated rates every package's `prices` rest on), also HEAD; any other method 405. `?lang=xx` (one of the 12; default en) chooses the language of `name`.
 * Bad input answers 400 and an unknown code 404, never a 500, and messages never echo unbounded input.
 */
export function catalogueRoutes(snapshot: Snapshot) {
  const countryCodes = new Set(snapshot.countries.map((c) => c.code));
  const regionCodes = new Set(snapshot.regions.map((r) => r.code));
  const packagesByDestination = Map.groupBy(snapshot.packages, (p) => p.destination);
  const routes = new Hono();

  /** A read in one of the 12 languages; GET and HEAD only. */
  const read = (path: string, answer: (c: Context, lang: Locale) => Response) => {
    routes.get(path, (c) => {
      const lang = c.req.query('lang') ?? DEFAULT_LOCALE;
      if (!isLocale(lang)) return catalogueError(c, 400, 'unsupported_lang', `lang must be one of ${LOCALE_CODES.join(', ')}.`);
      return answer(c, lang);
    });
    routes.all(path, (c) => catalogueError(c, 405, 'method_not_allowed', 'Only GET is supported.', { Allow: 'GET, HEAD' }));
  };

  read('/countries', (c, lang) =>
    catalogueJson(
      c,
      snapshot.countries.map(({ names, ...country }): Country => ({ ...country, name: names[lang] })),
    ),
  );
  read('/regions', (c, lang) =>
    catalogueJson(
      c,
      snapshot.regions.map(({ names, ...region }): Region => ({ ...region, name: names[lang] })),
    ),
  );
  // The ECB's rates the prices rest on, dated: the build refuses old ones (loader.ts).
  read('/exchange-rates', (c) => catalogueJson(c, snapshot.exchangeRates));
  read('/packages', (c) => {
    const raw = c.req.query('regionId');
    if (raw === undefined || raw.trim() === '') return catalogueError(c, 400, 'missing_region_id', 'Query parameter regionId is required.');
    const code = normalizeCode(raw.trim());
    if (code === undefined) {
      return catalogueError(c, 400, 'malformed_region_id', 'regionId must be a country code (DE) or a region code (europe).');
    }
    if (!countryCodes.has(code) && !regionCodes.has(code)) {
      // `code` passed the schema, so it is short: safe to echo.
      return catalogueError(c, 404, 'unknown_region_id', `No country or region has the code ${code}.`);
    }
    // Named fields only: the partner code and the wholesale price (our margin) stay internal.
    return catalogueJson(
      c,
      (packagesByDestination.get(code) ?? []).map(
        ({ id, metadata, validity, validityUnit, supportedCountries, prices, facts }): Package => ({
          id,
          metadata,
          validity,
          validityUnit,
          supportedCountries,
          price: { amountMinor: prices[BASE_CURRENCY], currency: BASE_CURRENCY },
          prices,
          facts,
        }),
      ),
    );
  });
  return routes;
}

/** 'de' and 'DE' name Germany; 'Europe' names the region. Anything else is malformed. */
function normalizeCode(raw: string): string | undefined {
  const country = raw.toUpperCase();
  if (CountryCode.safeParse(country).success) return country;
  const region = raw.toLowerCase();
  return RegionCode.safeParse(region).success ? region : undefined;
}

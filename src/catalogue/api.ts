import { DEFAULT_LOCALE, isLocale, LOCALE_CODES } from '../i18n/locales.ts';
import { CountryCode, RegionCode, type Country, type Package, type Region, type Snapshot } from './schema.ts';

/**
 * The catalogue API (spec 7): GET /regions, GET /countries, GET /packages?regionId={code}.
 * Written against web-standard Request/Response, so the same handler runs in a serverless
 * function, behind Node's HTTP server (scripts/catalogue-api.ts) and in-process in the build.
 *
 * Language: `?lang=xx` (one of the 12; default en) chooses the language of `name`.
 * Errors answer JSON `{ "error": { "code", "message" } }`: 400 for bad input, 404 for an
 * unknown code or path, 405 for another method. User input never causes a 500.
 */
export type CatalogueHandler = (request: Request) => Promise<Response>;

/** CDNs may keep answers an hour and serve stale ones for a day while revalidating. */
export const CACHE_CONTROL = 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400';

export function createCatalogueApi(snapshot: Snapshot, options: { basePath?: string } = {}): CatalogueHandler {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const countryCodes = new Set(snapshot.countries.map((c) => c.code));
  const regionCodes = new Set(snapshot.regions.map((r) => r.code));
  const packagesByDestination = Map.groupBy(snapshot.packages, (p) => p.destination);

  const routes: Record<string, (url: URL, lang: string) => Response> = {
    '/countries': (_, lang) =>
      json(snapshot.countries.map(({ names, ...country }): Country => ({ ...country, name: names[lang as 'en'] }))),
    '/regions': (_, lang) =>
      json(snapshot.regions.map(({ names, ...region }): Region => ({ ...region, name: names[lang as 'en'] }))),
    '/packages': (url) => {
      const raw = url.searchParams.get('regionId');
      if (raw === null || raw.trim() === '') return error(400, 'missing_region_id', 'Query parameter regionId is required.');
      const code = normalizeCode(raw.trim());
      if (code === undefined) {
        return error(400, 'malformed_region_id', 'regionId must be a country code (DE) or a region code (europe).');
      }
      if (!countryCodes.has(code) && !regionCodes.has(code)) {
        return error(404, 'unknown_region_id', `No country or region has the code ${code}.`);
      }
      return json((packagesByDestination.get(code) ?? []).map(({ destination: _, ...pkg }): Package => pkg));
    },
  };

  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : url.pathname;
    const route = routes[path.replace(/\/+$/, '')];
    if (!route) return error(404, 'not_found', `No such endpoint: ${url.pathname}`);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return error(405, 'method_not_allowed', 'Only GET is supported.', { Allow: 'GET, HEAD' });
    }
    const lang = url.searchParams.get('lang') ?? DEFAULT_LOCALE;
    if (!isLocale(lang)) return error(400, 'unsupported_lang', `lang must be one of ${LOCALE_CODES.join(', ')}.`);
    const response = route(url, lang);
    return request.method === 'HEAD' ? new Response(null, response) : response;
  };
}

/** 'de' and 'DE' name Germany; 'Europe' names the region. Anything else is malformed. */
function normalizeCode(raw: string): string | undefined {
  const country = raw.toUpperCase();
  if (CountryCode.safeParse(country).success) return country;
  const region = raw.toLowerCase();
  return RegionCode.safeParse(region).success ? region : undefined;
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': CACHE_CONTROL,
      'Access-Control-Allow-Origin': '*',
      Vary: 'Accept-Encoding',
    },
  });
}

function error(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

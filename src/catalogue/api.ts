import { DEFAULT_LOCALE, isLocale, LOCALE_CODES, type Locale } from '../i18n/locales.ts';
import { CountryCode, RegionCode, type Country, type Package, type Region, type Snapshot } from './schema.ts';

/**
 * The catalogue API (spec 7): GET /regions, GET /countries, GET /packages?regionId={code}.
 * Written against web-standard Request/Response, so the same handler runs in a serverless
 * function, behind Node's HTTP server (scripts/catalogue-api.ts) and in-process in the build.
 * With a base path ('/api', as a deployed function is mounted), only paths under it are served.
 *
 * Language: `?lang=xx` (one of the 12; default en) chooses the language of `name`.
 * Errors answer JSON `{ "error": { "code", "message" } }`: 400 for bad input, 404 for an
 * unknown code or path, 405 for another method. User input never causes a 500, and error
 * messages never echo unbounded input.
 *
 * Also POST /csp-reports: the site's Content-Security-Policy violation reports (see below).
 */
export type CatalogueHandler = (request: Request) => Promise<Response>;

/** CDNs may keep answers an hour and serve stale ones for a day while revalidating. */
export const CACHE_CONTROL = 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400';

type Route = (request: Request, url: URL) => Response | Promise<Response>;

export function createCatalogueApi(snapshot: Snapshot, options: { basePath?: string } = {}): CatalogueHandler {
  const basePath = withoutTrailingSlashes(options.basePath ?? '');
  const countryCodes = new Set(snapshot.countries.map((c) => c.code));
  const regionCodes = new Set(snapshot.regions.map((r) => r.code));
  const packagesByDestination = Map.groupBy(snapshot.packages, (p) => p.destination);

  // A Map, not an object literal: '/constructor' or '__proto__' must not reach Object.prototype.
  const routes = new Map<string, Route>([
    ['/countries', catalogueGet((lang) =>
      json(snapshot.countries.map(({ names, ...country }): Country => ({ ...country, name: names[lang] }))),
    )],
    ['/regions', catalogueGet((lang) =>
      json(snapshot.regions.map(({ names, ...region }): Region => ({ ...region, name: names[lang] }))),
    )],
    ['/packages', catalogueGet((_, url) => {
      const raw = url.searchParams.get('regionId');
      if (raw === null || raw.trim() === '') return error(400, 'missing_region_id', 'Query parameter regionId is required.');
      const code = normalizeCode(raw.trim());
      if (code === undefined) {
        return error(400, 'malformed_region_id', 'regionId must be a country code (DE) or a region code (europe).');
      }
      if (!countryCodes.has(code) && !regionCodes.has(code)) {
        // `code` passed the schema, so it is short: safe to echo.
        return error(404, 'unknown_region_id', `No country or region has the code ${code}.`);
      }
      // Named fields only: the partner code and the wholesale price (our margin) stay internal.
      return json(
        (packagesByDestination.get(code) ?? []).map(
          ({ id, metadata, validity, validityUnit, supportedCountries, price }): Package => ({
            id, metadata, validity, validityUnit, supportedCountries, ...(price && { price }),
          }),
        ),
      );
    })],
    ['/csp-reports', receiveCspReports],
  ]);

  return async (request) => {
    const url = new URL(request.url);
    // The base path matches whole segments: '/api/countries', never '/apicountries' or '/countries'.
    const underBase = !basePath || url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
    const route = underBase ? routes.get(withoutTrailingSlashes(url.pathname.slice(basePath.length))) : undefined;
    if (!route) return error(404, 'not_found', 'No such endpoint.');
    return route(request, url);
  };
}

/** A catalogue read: GET or HEAD only, in one of the 12 languages. */
function catalogueGet(answer: (lang: Locale, url: URL) => Response): Route {
  return (request, url) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return error(405, 'method_not_allowed', 'Only GET is supported.', { Allow: 'GET, HEAD' });
    }
    const lang = url.searchParams.get('lang') ?? DEFAULT_LOCALE;
    if (!isLocale(lang)) return error(400, 'unsupported_lang', `lang must be one of ${LOCALE_CODES.join(', ')}.`);
    const response = answer(lang, url);
    return request.method === 'HEAD' ? new Response(null, response) : response;
  };
}

/** A loop, not /\/+$/: that regex backtracks quadratically on a long run of slashes. */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
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

/**
 * POST /csp-reports receives the browser's Content-Security-Policy violation reports, in the
 * Reporting API's form (`application/reports+json`: `[{ type: 'csp-violation', url, body }]`)
 * or the legacy `report-uri` form (`application/csp-report`: `{ "csp-report": {...} }`), and
 * logs one bounded line per violation. Browsers send them cross-origin, hence CORS.
 */
const MAX_REPORT_BYTES = 64 * 1024;
const MAX_FIELD_LENGTH = 500;
const CORS = { 'Access-Control-Allow-Origin': '*' };

async function receiveCspReports(request: Request): Promise<Response> {
  if (request.method === 'OPTIONS') {
    return new Response(null, {
      status: 204,
      headers: { ...CORS, 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Content-Type', 'Access-Control-Max-Age': '86400' },
    });
  }
  if (request.method !== 'POST') return error(405, 'method_not_allowed', 'Only POST is supported.', { Allow: 'POST, OPTIONS' });
  const mediaType = request.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/reports+json' && mediaType !== 'application/csp-report') {
    return error(415, 'unsupported_media_type', 'Content-Type must be application/reports+json or application/csp-report.');
  }
  const text = await readAtMost(request, MAX_REPORT_BYTES);
  if (text === undefined) return error(413, 'report_too_large', `Reports are limited to ${MAX_REPORT_BYTES} bytes.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return error(400, 'malformed_report', 'The body is not JSON.');
  }
  const violations = mediaType === 'application/reports+json' ? reportingApiViolations(body) : legacyViolation(body);
  if (violations === undefined) return error(400, 'malformed_report', 'The body is not a CSP violation report.');
  for (const violation of violations) console.warn('csp-violation', JSON.stringify(violation));
  return new Response(null, { status: 204, headers: CORS });
}

/** The body as text, or undefined once it exceeds `limit` bytes (declared or streamed). */
async function readAtMost(request: Request, limit: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length')) > limit) return undefined;
  if (!request.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

interface Violation {
  documentURL?: string | undefined;
  blockedURL?: string | undefined;
  effectiveDirective?: string | undefined;
  disposition?: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const field = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_FIELD_LENGTH) : undefined);

/** Reports of other types (deprecation, intervention) may share the endpoint: they are skipped. */
function reportingApiViolations(body: unknown): Violation[] | undefined {
  if (!Array.isArray(body)) return undefined;
  return body
    .filter((report) => isRecord(report) && report.type === 'csp-violation' && isRecord(report.body))
    .map(({ url, body: b }: { url?: unknown; body: Record<string, unknown> }) => ({
      documentURL: field(b.documentURL ?? url),
      blockedURL: field(b.blockedURL),
      effectiveDirective: field(b.effectiveDirective),
      disposition: field(b.disposition),
    }));
}

function legacyViolation(body: unknown): Violation[] | undefined {
  const report = isRecord(body) ? body['csp-report'] : undefined;
  if (!isRecord(report)) return undefined;
  return [{
    documentURL: field(report['document-uri']),
    blockedURL: field(report['blocked-uri']),
    // Older browsers send only violated-directive.
    effectiveDirective: field(report['effective-directive'] ?? report['violated-directive']),
    disposition: field(report.disposition),
  }];
}

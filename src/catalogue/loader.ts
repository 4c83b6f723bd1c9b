import type { z } from 'zod';
import { DEFAULT_LOCALE, LOCALE_CODES, type Locale } from '../i18n/locales.ts';
import { createCatalogueApi, type CatalogueHandler } from './api.ts';
import { mapLimited } from '../lib/map-limited.ts';
import { flagFilesExist } from './flag-files.ts';
import { AssembledCatalogue, CountryList, PackageList, RegionList, describeIssues, type Package } from './schema.ts';
import { embeddedSnapshot } from './snapshot.ts';
import { ExchangeRates, fromEcbStandIn, staleRates } from '../pricing/exchange-rates.ts';

/**
 * Build-time loading (DESIGN 1): the build reads the catalogue through the API, over HTTP
 * when CATALOGUE_API_URL is set, else in-process on the committed snapshot. Every answer is
 * validated with the shared schema; bad data or an unreachable API stops the build with a
 * message naming the call, the record and the field. The build never sees a partial store.
 */
export interface CatalogueCountry {
  code: string;
  names: Record<Locale, string>;
  flag: string;
  aliases: string[];
}
export interface CatalogueRegion extends Omit<CatalogueCountry, 'aliases'> {
  supportedCountries: string[];
}
export interface Catalogue {
  countries: CatalogueCountry[];
  regions: CatalogueRegion[];
  /** Packages by destination code (country code or region code). */
  packages: Map<string, Package[]>;
  /** The dated ECB rates the packages' prices rest on. */
  exchangeRates: ExchangeRates;
}

export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

export interface LoaderOptions {
  /** Base URL of a deployed catalogue API; undefined for the in-process API on the snapshot. */
  apiUrl?: string | undefined;
  /** Attempts per call over HTTP before giving up (network errors and 5xx are retried). */
  attempts?: number;
  retryDelayMs?: number;
  /** For tests: the in-process handler to use instead of the embedded snapshot's. */
  handler?: CatalogueHandler;
  /** For tests: the day the rates' age is counted to. */
  now?: Date;
}

type Get = (path: string) => Promise<unknown>;

function httpGetter(apiUrl: string, attempts: number, retryDelayMs: number): Get {
  const base = apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`;
  return async (path) => {
    const url = new URL(path.slice(1), base);
    let lastProblem = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
        if (response.ok) return await response.json();
        lastProblem = `HTTP ${response.status}`;
        if (response.status < 500) break; // A 4xx will not get better by asking again.
      } catch (error) {
        lastProblem = error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}` : String(error);
      }
      if (attempt < attempts) await new Promise((r) => setTimeout(r, retryDelayMs * 2 ** (attempt - 1)));
    }
    throw new CatalogueError(`Catalogue API GET ${url.href} failed after ${attempts} attempt(s): ${lastProblem}`);
  };
}

function inProcessGetter(handler: CatalogueHandler): Get {
  return async (path) => {
    const response = await handler(new Request(`http://catalogue.internal${path}`));
    if (!response.ok) throw new CatalogueError(`Catalogue API GET ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
}

async function getValid<S extends z.ZodType>(get: Get, path: string, schema: S): Promise<z.infer<S>> {
  const data = await get(path);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new CatalogueError(`Catalogue API GET ${path} returned invalid data:\n${describeIssues(parsed.error, data)}`);
  }
  return parsed.data;
}

export async function loadCatalogue(options: LoaderOptions = {}): Promise<Catalogue> {
  const get = options.apiUrl
    ? httpGetter(options.apiUrl, options.attempts ?? 4, options.retryDelayMs ?? 500)
    : inProcessGetter(options.handler ?? createCatalogueApi(embeddedSnapshot()));

  const perLocale = await mapLimited(LOCALE_CODES, 4, async (lang) => ({
    lang,
    countries: await getValid(get, `/countries?lang=${lang}`, CountryList),
    regions: await getValid(get, `/regions?lang=${lang}`, RegionList),
  }));
  const english = perLocale.find((l) => l.lang === DEFAULT_LOCALE)!;
  if (english.countries.length === 0 || english.regions.length === 0) {
    throw new CatalogueError(
      `Catalogue API returned ${english.countries.length} countries and ${english.regions.length} regions: refusing to build an empty store.`,
    );
  }

  const namesOf = (code: string, kind: 'countries' | 'regions') =>
    Object.fromEntries(
      perLocale.map(({ lang, ...lists }) => {
        const found = lists[kind].find((item) => item.code === code);
        if (!found) throw new CatalogueError(`Catalogue API GET /${kind}?lang=${lang} lacks ${code}, which lang=en lists.`);
        return [lang, found.name];
      }),
    ) as Record<Locale, string>;

  const countries = english.countries.map(({ name: _, ...c }) => ({ ...c, names: namesOf(c.code, 'countries') }));
  const regions = english.regions.map(({ name: _, ...r }) => ({ ...r, names: namesOf(r.code, 'regions') }));
  const destinations = [...countries.map((c) => c.code), ...regions.map((r) => r.code)];
  const packageLists = await mapLimited(destinations, 8, (code) =>
    getValid(get, `/packages?regionId=${encodeURIComponent(code)}`, PackageList),
  );
  const packages = new Map(destinations.map((code, i) => [code, packageLists[i]!]));
  // Prices on old rates would sell at a margin nobody checked: the build stops instead. The ECB
  // stand-in's fixture rates are never a day's rates (the production preflight refuses them), so
  // their age says nothing: a checkout's committed snapshot still builds next month, with a warning.
  const exchangeRates = await getValid(get, '/exchange-rates', ExchangeRates);
  const stale = staleRates(exchangeRates, options.now);
  if (stale && !fromEcbStandIn(exchangeRates)) throw new CatalogueError(`Catalogue API GET /exchange-rates: ${stale}.`);
  if (stale) console.warn(`Catalogue: ${stale} (the ECB stand-in's rates, which a production start refuses anyway).`);

  const assembled = {
    countries,
    regions,
    packages: [...packages].flatMap(([destination, list]) => list.map((pkg) => ({ ...pkg, destination }))),
  };
  const checked = AssembledCatalogue.superRefine(flagFilesExist()).safeParse(assembled);
  if (!checked.success) {
    throw new CatalogueError(`Catalogue is inconsistent:\n${describeIssues(checked.error, assembled)}`);
  }

  return { countries, regions, packages, exchangeRates };
}

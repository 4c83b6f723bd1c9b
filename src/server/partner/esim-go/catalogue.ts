import { PartnerError } from '../partner.ts';
import type { CataloguePackage, PackageQuery, PartnerPackage, PartnerReadOptions } from '../partner.types.ts';
import type { CallOptions, EsimGoCall } from './client.ts';
import { PARTNER } from './config.ts';
import type { EsimReader } from './esim-reads.ts';
import { mapEsimGoBundle, mapEsimGoCataloguePackage } from './packages.ts';
import { CatalogueAnswer, CompatibilityAnswer, NetworksAnswer, OrganisationAnswer, RawBundle, type EsimGoBundle } from './schemas.ts';

/**
 * What eSIM Go sells and what we hold there: the catalogue (Get Bundle catalogue, Get Country Network
 * Data for the plan facts' operators), an eSIM's top-ups, the balance (Get Current Organisation Details).
 * Prices are 'in the organisation currency' (Get Bundle catalogue): the shop counts in US dollars,
 * so an organisation in another currency is refused rather than its prices misread.
 */

/** Bundles a catalogue page (its perPage), and pages at most. */
const CATALOGUE_PAGE = 500;
const CATALOGUE_MAX_PAGES = 40;

export function createCatalogue(call: EsimGoCall, reader: EsimReader) {
  let usd: Promise<void> | undefined;

  async function organisation(options: CallOptions) {
    const answer = await call(
      { method: 'GET', call: 'GET /organisation', path: '/organisation' },
      (json) => OrganisationAnswer.parse(json),
      options,
    );
    if (answer.currency.toUpperCase() !== 'USD') {
      throw new PartnerError({
        partner: PARTNER,
        call: 'GET /organisation',
        code: 'currency',
        retryable: false,
        attempts: 1,
        reason: `the organisation's currency is ${answer.currency}: the shop's prices and balance are in USD`,
      });
    }
    return answer;
  }

  /** Checked once per adapter (the currency of an organisation does not change); a failed check is asked again. */
  function requireUsd(options: CallOptions): Promise<void> {
    usd ??= organisation(options).then(() => undefined);
    return usd.catch((error: unknown) => {
      usd = undefined;
      throw error;
    });
  }

  /** The balance, USD × 10,000 ('Organisational balance + test credit'). */
  async function balance(options: PartnerReadOptions = {}): Promise<number> {
    return Math.round((await organisation(options)).balance * 10_000);
  }

  async function bundles(query: Record<string, string>, options: CallOptions): Promise<EsimGoBundle[]> {
    const all: EsimGoBundle[] = [];
    for (let page = 1; page <= CATALOGUE_MAX_PAGES; page++) {
      const request = {
        method: 'GET',
        call: 'GET /catalogue',
        path: '/catalogue',
        query: { ...query, page: String(page), perPage: String(CATALOGUE_PAGE) },
      } as const;
      const answer = await call(request, (json) => CatalogueAnswer.parse(json), options);
      all.push(...answer.bundles);
      if (answer.bundles.length < CATALOGUE_PAGE || page >= answer.pageCount) break;
    }
    return all;
  }

  async function bundle(name: string, options: CallOptions): Promise<EsimGoBundle> {
    const request = { method: 'GET', call: 'GET /catalogue/bundle/{name}', path: `/catalogue/bundle/${encodeURIComponent(name)}` } as const;
    return call(request, (json) => RawBundle.parse(json), options);
  }

  /**
   * The catalogue with its plan facts. A country ('DE') lists the bundles of that country alone (as
   * eSIM Access's location does), not the regional ones that include it; any other location is an
   * eSIM Go region ('Europe'). Every kind of bundle: one the mapping cannot state truthfully fails
   * the whole listing (packages.ts), so the catalogue generator never publishes it.
   */
  async function listPackages(query: PackageQuery = {}): Promise<CataloguePackage[]> {
    const options = {};
    await requireUsd(options);
    const country = query.location && /^[A-Za-z]{2}$/.test(query.location) ? query.location.toUpperCase() : undefined;
    const listed = query.packageCode
      ? [await bundle(query.packageCode, options)]
      : await bundles(country ? { countries: country } : query.location ? { region: query.location } : {}, options);
    const wanted = listed.filter((b) => !country || mapEsimGoBundle(b).countries.join() === country);
    if (wanted.length === 0) return [];
    const isos = [...new Set(wanted.flatMap((b) => mapEsimGoBundle(b).countries))].sort();
    const networks = await call(
      { method: 'GET', call: 'GET /networks', path: '/networks', query: { isos: isos.join(',') } },
      (json) => NetworksAnswer.parse(json),
      options,
    );
    return wanted.map((b) => mapEsimGoCataloguePackage(b, networks));
  }

  /**
   * An eSIM's top-ups: the fixed-data bundles covering the same countries as the bundle it was sold
   * with, each one eSIM Go says it can take (Check eSIM and Bundle Compatibility: 'certain bundles may
   * be incompatible with existing eSIMs if they originate from different providers').
   */
  async function listTopUps(iccid: string, options: PartnerReadOptions = {}): Promise<PartnerPackage[]> {
    const read = { priority: options.priority ?? 'refund', signal: options.signal };
    await requireUsd(read);
    const [sold] = await reader.bundlesOf(iccid, read);
    if (!sold) return [];
    const coverage = mapEsimGoBundle(await bundle(sold.bundle, read)).countries;
    const candidates = (await bundles({ countries: coverage[0]! }, read))
      .map((b) => ({ raw: RawBundle.parse(b), pkg: mapEsimGoBundle(b) }))
      .filter(({ raw, pkg }) => !raw.unlimited && pkg.countries.join() === coverage.join());
    const compatible: PartnerPackage[] = [];
    for (const { pkg } of candidates) {
      const path = `/esims/${encodeURIComponent(iccid)}/compatible/${encodeURIComponent(pkg.partnerCode)}`;
      const request = { method: 'GET', call: 'GET /esims/{iccid}/compatible/{bundle}', path } as const;
      if (await call(request, (json) => CompatibilityAnswer.parse(json).compatible, read)) compatible.push(pkg);
    }
    return compatible;
  }

  return { balance, listPackages, listTopUps };
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCatalogueApi } from './api.ts';
import { CatalogueError, loadCatalogue } from './loader.ts';
import { embeddedSnapshot } from './snapshot.ts';
import { serveApi } from '../../scripts/lib/api-server.ts';

const snapshot = embeddedSnapshot();
const servers: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(handler: (request: Request) => Promise<Response>) {
  const served = await serveApi(handler);
  servers.push(served);
  return served.url;
}

describe('build-time catalogue loading', () => {
  it('reads the whole catalogue in-process from the snapshot by default', async () => {
    const catalogue = await loadCatalogue();
    expect(catalogue.countries.length).toBe(snapshot.countries.length);
    expect(catalogue.countries.find((c) => c.code === 'FR')!.names.de).toBe('Frankreich');
    expect(catalogue.packages.get('FR')!.length).toBeGreaterThan(0);
    expect(catalogue.packages.get('global')!.length).toBeGreaterThan(0);
  });

  it('reads the same catalogue from a deployed API over HTTP, under a base path', async () => {
    const url = await serve(createCatalogueApi(snapshot, { basePath: '/api' }));
    const overHttp = await loadCatalogue({ apiUrl: `${url}/api` });
    const inProcess = await loadCatalogue();
    expect(overHttp.countries).toEqual(inProcess.countries);
    expect(overHttp.regions).toEqual(inProcess.regions);
    expect([...overHttp.packages.keys()]).toEqual([...inProcess.packages.keys()]);
  });

  it('retries a failing API and succeeds once it answers', async () => {
    const api = createCatalogueApi(snapshot);
    let failuresLeft = 2;
    const url = await serve(async (request) => (failuresLeft-- > 0 ? new Response('busy', { status: 503 }) : api(request)));
    const catalogue = await loadCatalogue({ apiUrl: url, retryDelayMs: 10 });
    expect(catalogue.countries.length).toBe(snapshot.countries.length);
  });

  it('stops with a clear message when the API stays unreachable', async () => {
    const url = await serve(async () => new Response('down', { status: 502 }));
    await expect(loadCatalogue({ apiUrl: url, attempts: 3, retryDelayMs: 10 })).rejects.toThrow(
      /GET .*\/countries\?lang=\w+ failed after 3 attempt\(s\): HTTP 502/,
    );
    await expect(loadCatalogue({ apiUrl: 'http://127.0.0.1:9', attempts: 2, retryDelayMs: 10 })).rejects.toThrow(CatalogueError);
  });

  it('names the call, the record and the field of invalid data', async () => {
    const api = createCatalogueApi(snapshot);
    const url = await serve(async (request) => {
      const response = await api(request);
      if (!new URL(request.url).pathname.endsWith('/countries')) return response;
      const countries = (await response.json()) as Array<Record<string, unknown>>;
      countries[5] = { ...countries[5], name: '' };
      return Response.json(countries);
    });
    const error = await loadCatalogue({ apiUrl: url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogueError);
    expect((error as Error).message).toMatch(/GET \/countries\?lang=\w+ returned invalid data/);
    expect((error as Error).message).toMatch(/\[5\]\.name \(code [A-Z]{2}\): must not be empty/);
  });

  it("refuses to build on the ECB's rates older than the set age, naming their date; today's pass", async () => {
    const { date } = snapshot.exchangeRates;
    const ecbs = { ...snapshot.exchangeRates, source: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' };
    const handler = createCatalogueApi({ ...snapshot, exchangeRates: ecbs });
    const weeksLater = new Date(Date.parse(`${date}T12:00:00Z`) + 20 * 86_400_000);
    await expect(loadCatalogue({ handler, now: weeksLater })).rejects.toThrow(
      new RegExp(`GET /exchange-rates: the exchange rates are of ${date}, 20 days old \\(at most 14\\)`),
    );
    const nextMonday = new Date(Date.parse(`${date}T12:00:00Z`) + 3 * 86_400_000);
    await expect(loadCatalogue({ handler, now: nextMonday })).resolves.toMatchObject({ exchangeRates: { date } });
  });

  it("builds on the ECB stand-in's fixture rates whatever their age, with a warning (a production start refuses them)", async () => {
    expect(snapshot.exchangeRates.source).toMatch(/stand-in/);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const monthsLater = new Date(Date.parse(`${snapshot.exchangeRates.date}T12:00:00Z`) + 90 * 86_400_000);
    await expect(loadCatalogue({ now: monthsLater })).resolves.toMatchObject({ exchangeRates: { date: snapshot.exchangeRates.date } });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/90 days old.*ECB stand-in/));
    warn.mockRestore();
  });

  it("hands the pages the contract's fields only, even from an API that answers the partners' offers", async () => {
    const internal = ['offers', 'partnerCode', 'wholesaleUsdE4', 'destination'];
    const byId = new Map(snapshot.packages.map((p) => [p.id, p]));
    const api = createCatalogueApi(snapshot);
    // A catalogue API that leaks the snapshot's internal fields: the loader's schema drops them.
    const leaky = async (request: Request) => {
      const response = await api(request);
      if (!new URL(request.url).pathname.endsWith('/packages')) return response;
      const plans = (await response.json()) as Array<{ id: string }>;
      return Response.json(plans.map((plan) => ({ ...byId.get(plan.id), ...plan })));
    };
    expect(await (await leaky(new Request('http://catalogue.internal/packages?regionId=DE'))).text()).toContain('"offers"');
    for (const catalogue of [await loadCatalogue(), await loadCatalogue({ handler: leaky })]) {
      const packages = [...catalogue.packages.values()].flat();
      expect(packages).toHaveLength(snapshot.packages.length);
      expect(packages.filter((p) => internal.some((field) => field in p)).map((p) => p.id)).toEqual([]);
    }
  });

  it('refuses an empty store, and a destination without plans', async () => {
    const empty = { ...snapshot, countries: [], regions: [] };
    await expect(loadCatalogue({ handler: createCatalogueApi(empty as typeof snapshot) })).rejects.toThrow(
      /refusing to build an empty store/,
    );
    const planless = { ...snapshot, packages: snapshot.packages.filter((p) => p.destination !== 'FR') };
    await expect(loadCatalogue({ handler: createCatalogueApi(planless) })).rejects.toThrow(/FR has no packages/);
  });

  it.each<[string, (s: typeof snapshot) => void, RegExp]>([
    [
      'a repeated country code',
      (s) => s.countries.push(s.countries.find((c) => c.code === 'DE')!),
      /GET \/countries\?lang=\w+ returned invalid data:\n\[\d+\]\.code \(code DE\): DE repeats \[\d+\]/,
    ],
    [
      'a package id sold for two destinations',
      (s) => (s.packages.find((p) => p.destination === 'FR')!.id = 'de-1gb-7d'),
      /Catalogue is inconsistent:\npackages\[\d+\]\.id \(id de-1gb-7d\): de-1gb-7d repeats \[\d+\]/,
    ],
    [
      "a country's package not covering it",
      (s) => {
        const pkg = s.packages.find((p) => p.destination === 'DE')!;
        pkg.supportedCountries = ['FR'];
        pkg.facts.networks = [{ country: 'FR', operators: [{ name: 'Orange', networkType: '5G' }] }];
      },
      /Catalogue is inconsistent:\npackages\[\d+\]\.supportedCountries \(id de-1gb-7d\): does not cover its destination DE/,
    ],
    [
      'a region listing an unknown country',
      (s) => s.regions[0]!.supportedCountries.push('ZZ'),
      /Catalogue is inconsistent:\nregions\[0\]\.supportedCountries \(code \w+\): lists unknown countries ZZ/,
    ],
    [
      'a flag file that does not exist',
      (s) => (s.countries.find((c) => c.code === 'JP')!.flag = '/flags/JP-missing.svg'),
      /Catalogue is inconsistent:\ncountries\[\d+\]\.flag \(code JP\): public\/flags\/JP-missing\.svg does not exist/,
    ],
  ])('refuses %s in the API answers, naming the record', async (_, corrupt, message) => {
    const broken = structuredClone(snapshot);
    corrupt(broken);
    await expect(loadCatalogue({ handler: createCatalogueApi(broken) })).rejects.toThrow(message);
  });
});

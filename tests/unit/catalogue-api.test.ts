import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_CONTROL, createCatalogueApi } from '../../src/catalogue/api.ts';
import { CountryList, PackageList, RegionList } from '../../src/catalogue/schema.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { serveCatalogue } from '../../scripts/lib/catalogue-server.ts';

// Contract tests over HTTP against the real handler on the committed snapshot.
let api: Awaited<ReturnType<typeof serveCatalogue>>;
beforeAll(async () => {
  api = await serveCatalogue(createCatalogueApi(embeddedSnapshot()));
});
afterAll(() => api.close());

const get = (path: string, init?: RequestInit) => fetch(`${api.url}${path}`, init);

describe('GET /countries', () => {
  it('lists every country with the spec fields, named in the asked language', async () => {
    const response = await get('/countries?lang=ja');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const countries = CountryList.parse(await response.json());
    expect(countries.length).toBeGreaterThan(200);
    expect(countries.find((c) => c.code === 'JP')).toMatchObject({ name: '日本', flag: '/flags/JP.svg' });
  });

  it('answers in English by default, with search aliases', async () => {
    const countries = CountryList.parse(await (await get('/countries')).json());
    const us = countries.find((c) => c.code === 'US')!;
    expect(us.name).toBe('United States');
    expect(us.aliases).toContain('USA');
  });

  it('is cacheable by a CDN', async () => {
    expect((await get('/countries')).headers.get('cache-control')).toBe(CACHE_CONTROL);
  });
});

describe('GET /regions', () => {
  it('lists the nine regions with their countries', async () => {
    const regions = RegionList.parse(await (await get('/regions?lang=de')).json());
    expect(regions.map((r) => r.code).sort()).toEqual(
      ['africa', 'asia', 'caribbean', 'europe', 'global', 'latin-america', 'mena', 'north-america', 'oceania'],
    );
    const europe = regions.find((r) => r.code === 'europe')!;
    expect(europe.name).toBe('Europa');
    expect(europe.supportedCountries).toEqual(expect.arrayContaining(['DE', 'FR', 'IT', 'ES', 'PL']));
    expect(europe.supportedCountries).not.toContain('JP');
  });
});

describe('GET /packages', () => {
  it('answers the plans of a country, by upper- or lower-case code', async () => {
    const upper = PackageList.parse(await (await get('/packages?regionId=DE')).json());
    const lower = PackageList.parse(await (await get('/packages?regionId=de')).json());
    expect(upper).toEqual(lower);
    expect(upper.length).toBeGreaterThanOrEqual(3);
    for (const pkg of upper) {
      expect(pkg.supportedCountries).toEqual(['DE']);
      expect(pkg.price).toBeUndefined();
    }
  });

  it('answers regional plans that list their countries', async () => {
    const plans = PackageList.parse(await (await get('/packages?regionId=europe')).json());
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expect(plan.supportedCountries.length).toBeGreaterThan(30);
  });

  it.each([
    ['/packages', 400, 'missing_region_id'],
    ['/packages?regionId=', 400, 'missing_region_id'],
    ['/packages?regionId=%20%20', 400, 'missing_region_id'],
    ['/packages?regionId=D', 400, 'malformed_region_id'],
    ['/packages?regionId=de1', 400, 'malformed_region_id'],
    ['/packages?regionId=%3Cscript%3E', 400, 'malformed_region_id'],
    ['/packages?regionId=%E6%97%A5%E6%9C%AC', 400, 'malformed_region_id'],
    ['/packages?regionId=%%%', 400, 'malformed_region_id'],
    ['/packages?regionId=ZZ', 404, 'unknown_region_id'],
    ['/packages?regionId=atlantis', 404, 'unknown_region_id'],
    ['/countries?lang=ko', 400, 'unsupported_lang'],
    ['/nothing-here', 404, 'not_found'],
  ])('%s answers %i with a JSON error', async (path, status, code) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
  });

  it('never answers 500 to odd input', async () => {
    const odd = ['regionId=' + 'a'.repeat(5000), 'regionId=..%2F..%2Fetc', 'regionId[]=de', 'regionId=de&regionId=fr', 'regionId=%00'];
    for (const query of odd) expect((await get(`/packages?${query}`)).status, query).toBeLessThan(500);
  });
});

describe('methods', () => {
  it('refuses writes with 405 and allows HEAD', async () => {
    const post = await get('/countries', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await get('/countries', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

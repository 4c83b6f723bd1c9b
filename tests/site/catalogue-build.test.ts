import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalogueApi } from '../../src/catalogue/api.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { serveApi } from '../../scripts/lib/api-server.ts';
import en from '../../locales/en/common.json' with { type: 'json' };
import { build, removeBuilds } from '../support/build.ts';

/**
 * A broken or unreachable catalogue fails the real build loudly, naming the problem, and
 * publishes nothing. Each build writes to a temporary folder, never to dist/.
 */
afterAll(removeBuilds);

describe('the build and a bad catalogue', () => {
  it('fails on invalid data with a message naming the call, the record and the field', async () => {
    const snapshot = embeddedSnapshot();
    const broken = structuredClone(snapshot);
    broken.packages[0]!.validity = -7;
    const api = await serveApi(createCatalogueApi(broken));
    try {
      const { status, output, outDir } = await build({ CATALOGUE_API_URL: api.url });
      expect(status).not.toBe(0);
      expect(output).toContain(`GET /packages?regionId=${snapshot.packages[0]!.destination} returned invalid data`);
      expect(output).toMatch(/\[0\]\.validity \(id [a-z0-9-]+\): .*(>0|positive|greater)/i);
      expect(existsSync(join(outDir, 'store.html'))).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('fails on a broken invariant, a flag file that does not exist, naming the record', async () => {
    const broken = embeddedSnapshot();
    const japan = broken.countries.findIndex((c) => c.code === 'JP');
    broken.countries[japan]!.flag = '/flags/JP-missing.svg';
    const api = await serveApi(createCatalogueApi(broken));
    try {
      const { status, output, outDir } = await build({ CATALOGUE_API_URL: api.url });
      expect(status).not.toBe(0);
      expect(output).toContain('Catalogue is inconsistent');
      expect(output).toContain(`countries[${japan}].flag (code JP): public/flags/JP-missing.svg does not exist`);
      expect(existsSync(join(outDir, 'store.html'))).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('fails when the API is unreachable after retries', async () => {
    const { status, output, outDir } = await build({ CATALOGUE_API_URL: 'http://127.0.0.1:9' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/failed after 4 attempt\(s\)/);
    expect(existsSync(join(outDir, 'index.html'))).toBe(false);
  });
});

describe('the build and prices', () => {
  it('gives a destination with no priced plan no Product structured data, no price, no way to buy and no plan for checkout', async () => {
    // The contract keeps price optional: a catalogue API may answer plans without one (nor, then, prices).
    const catalogue = createCatalogueApi(embeddedSnapshot());
    const api = await serveApi(async (request) => {
      const answer = await catalogue(request);
      if (new URL(request.url).searchParams.get('regionId') !== 'JP') return answer;
      const plans = (await answer.json()) as Record<string, unknown>[];
      return Response.json(plans.map(({ price: _price, prices: _prices, ...plan }) => plan));
    });
    try {
      const { status, output, outDir } = await build({ CATALOGUE_API_URL: api.url });
      expect(status, output).toBe(0);
      const ldJson = (page: string) =>
        readFileSync(join(outDir, page), 'utf8').match(/<script type="application\/ld\+json"[^>]*>(.*?)<\/script>/s)?.[1];
      expect(ldJson('package/jp.html')).toBeUndefined();
      expect(JSON.parse(ldJson('package/de.html')!)).toMatchObject({ '@type': 'Product', offers: { '@type': 'AggregateOffer' } });
      // Its cards say the price comes soon; no checkout file exists for its plans, so /checkout?plan= says it is not available.
      const cardPrices = (page: string) =>
        [...readFileSync(join(outDir, page), 'utf8').matchAll(/data-plan-price="true">([^<]*)</g)].map((m) => m[1]);
      expect(new Set(cardPrices('package/jp.html'))).toEqual(new Set([en.package.priceSoon]));
      expect(cardPrices('package/de.html')).not.toContain(en.package.priceSoon);
      expect(readFileSync(join(outDir, 'package/jp.html'), 'utf8')).not.toContain(en.package.vatIncluded);
      expect(existsSync(join(outDir, 'plans/jp-1gb-7d.json'))).toBe(false);
      expect(JSON.parse(readFileSync(join(outDir, 'plans/de-1gb-7d.json'), 'utf8'))).toMatchObject({
        id: 'de-1gb-7d',
        price: { currency: 'EUR' },
      });
      // The store row has no 'from' price.
      const storeRow = (code: string) =>
        readFileSync(join(outDir, 'store.html'), 'utf8').match(new RegExp(`href="/package/${code}".*?</a>`))![0];
      const from = en.store.fromPrice.replace('{{price}}', '');
      expect(storeRow('jp')).not.toContain(from);
      expect(storeRow('de')).toContain(from);
    } finally {
      await api.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { CURRENCIES, CURRENCY_RULES } from '../../src/config/currencies.ts';
import { pricingFor, retailPrice } from '../../src/pricing/pricing.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import type { CataloguePackage, EsimPartner, PartnerCatalogue } from '../../src/server/partner/partner.types.ts';
import { generateSnapshot } from './catalogue-snapshot.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';

// The generator's core against the eSIM Access stand-in over HTTP, through the real adapter.
const credentials = { accessCode: 'snapshot-test', secretKey: 'snapshot-secret' };
let standIn: EsimAccessStandIn;
let partner: EsimPartner;
beforeAll(async () => {
  standIn = await startEsimAccessStandIn(credentials);
  partner = createEsimAccessPartner({ ...credentials, baseUrl: standIn.url });
});
afterAll(() => standIn.close());

/** A partner that sells what `edit` makes of the stand-in's catalogue. */
const edited = (edit: (packages: CataloguePackage[]) => CataloguePackage[]): PartnerCatalogue => ({
  name: 'edited',
  listPackages: async () => edit(await partner.listPackages()),
});

/** The committed snapshot's rates: regenerating on them gives the same prices. */
const { exchangeRates } = embeddedSnapshot();
const generate = (from: PartnerCatalogue) => generateSnapshot(from, exchangeRates);

describe('the catalogue snapshot', () => {
  it('regenerates identically from the stand-in (run npm run catalogue:generate after changing either)', async () => {
    const { snapshot, unmatched } = await generate(partner);
    expect(unmatched).toEqual([]);
    expect(snapshot).toEqual(embeddedSnapshot());
  });

  it('prices every package in every currency from its wholesale price, never a larger plan below a smaller one', () => {
    const snapshot = embeddedSnapshot();
    for (const currency of CURRENCIES) {
      const config = pricingFor(currency, snapshot.exchangeRates.applied);
      const { endings, endingEvery } = CURRENCY_RULES[currency];
      for (const pkg of snapshot.packages) {
        const amount = pkg.prices[currency];
        expect(amount, `${pkg.id} in ${currency}`).toBeGreaterThanOrEqual(retailPrice(pkg.wholesaleUsdE4, config).amountMinor);
        expect(endings, `${pkg.id} in ${currency}`).toContain(amount % endingEvery);
        const smaller = snapshot.packages.filter(
          (p) =>
            p.destination === pkg.destination &&
            p.validity === pkg.validity &&
            p.facts.data.kind === pkg.facts.data.kind &&
            p.metadata.dataAmount.value < pkg.metadata.dataAmount.value,
        );
        for (const p of smaller) expect(amount, `${pkg.id} vs ${p.id} in ${currency}`).toBeGreaterThanOrEqual(p.prices[currency]);
      }
    }
    expect(snapshot.exchangeRates).toMatchObject({
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      published: { USD: expect.any(Number) },
    });
  });

  it('maps a package to our country or the region of exactly its countries, and leaves out the rest', async () => {
    const { snapshot, unmatched } = await generate(
      edited((packages) => [
        ...packages,
        { ...packages.find((p) => p.slug === 'DE_1_7')!, partnerCode: 'DACH', slug: 'DACH_1_7', countries: ['AT', 'CH', 'DE'] },
        { ...packages.find((p) => p.slug === 'DE_1_7')!, partnerCode: 'ZZ', slug: 'ZZ_1_7', countries: ['ZZ'] },
      ]),
    );
    expect(unmatched).toEqual(['DACH_1_7', 'ZZ_1_7']);
    expect(snapshot.packages.map((p) => p.partnerCode)).not.toContain('DACH');
  });

  it('sells the cheaper of two packages of one plan, under the same id', async () => {
    const { snapshot } = await generate(
      edited((packages) => {
        const german = packages.find((p) => p.slug === 'DE_1_7')!;
        return [...packages, { ...german, partnerCode: 'CHEAPER', slug: 'DE_1_7_B', wholesaleUsdE4: german.wholesaleUsdE4 - 1000 }];
      }),
    );
    expect(snapshot.packages.filter((p) => p.id === 'de-1gb-7d').map((p) => p.partnerCode)).toEqual(['CHEAPER']);
  });

  it('carries the plan facts into the snapshot, and sells daily and unlimited plans under ids of their own', async () => {
    const { snapshot } = await generate(partner);
    const germany = snapshot.packages.filter((p) => p.destination === 'DE');
    expect(germany.map((p) => p.id)).toEqual(expect.arrayContaining(['de-1gb-7d', 'de-1gb-daily-7d', 'de-unlimited-3gb-7d']));
    const daily = germany.find((p) => p.id === 'de-1gb-daily-7d')!;
    expect(daily.facts.data).toEqual({ kind: 'daily', after: { slowedToKbps: 512 } });
    expect(daily.facts.networks).toEqual([
      {
        country: 'DE',
        operators: [
          { name: 'Telekom', networkType: '5G' },
          { name: 'Vodafone', networkType: '5G' },
          { name: 'O2', networkType: '4G' },
        ],
      },
    ]);
    expect(germany.find((p) => p.id === 'de-unlimited-3gb-7d')!.facts.data).toEqual({ kind: 'unlimited', after: { slowedToKbps: 1000 } });
    // Priced by the one pricing function from their own wholesale price.
    expect(daily.prices.EUR).toBeGreaterThanOrEqual(
      retailPrice(daily.wholesaleUsdE4, pricingFor('EUR', exchangeRates.applied)).amountMinor,
    );
  });

  it('refuses a plan without networks or with an unknown data kind, naming it', async () => {
    const breakGerman = (edit: (pkg: CataloguePackage) => CataloguePackage) =>
      edited((packages) => packages.map((p) => (p.slug === 'DE_1_7' ? edit(p) : p)));
    await expect(generate(breakGerman((p) => ({ ...p, facts: { ...p.facts, networks: [] } })))).rejects.toThrow(
      /packages\[\d+\]\.facts\.networks \(id de-1gb-7d\): must list the networks of at least one country/,
    );
    await expect(generate(breakGerman((p) => ({ ...p, facts: { ...p.facts, data: { kind: 'weekly' } as never } })))).rejects.toThrow(
      /facts\.data\.kind \(id de-1gb-weekly-7d\): must be a data kind/,
    );
  });

  it('refuses a partner catalogue that leaves one of our destinations without a plan', async () => {
    await expect(generate(edited((packages) => packages.filter((p) => !p.slug.startsWith('FR_'))))).rejects.toThrow(
      /countries\[\d+\] \(code FR\): FR has no packages/,
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/catalogue/schema.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { CURRENCIES, CURRENCY_RULES } from '../../src/config/currencies.ts';
import { pricingFor, retailPrice } from '../../src/pricing/pricing.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import { createEsimGoPartner } from '../../src/server/partner/esim-go/adapter.ts';
import type { CataloguePackage, EsimPartner, PartnerCatalogue } from '../../src/server/partner/partner.types.ts';
import { ESIM_ACCESS } from '../../src/server/partner/registry.ts';
import { ESIM_GO } from '../../src/server/partner/esim-go/config.ts';
import { generateSnapshot } from './catalogue-snapshot.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { startEsimGoStandIn, type EsimGoStandIn } from '../../stand-ins/esim-go/server.ts';

// The generator's core against both partners' stand-ins over HTTP, through the real adapters.
const credentials = { accessCode: 'snapshot-test', secretKey: 'snapshot-secret' };
let standIn: EsimAccessStandIn;
let partner: EsimPartner;
let goStandIn: EsimGoStandIn;
let esimGo: EsimPartner;
beforeAll(async () => {
  standIn = await startEsimAccessStandIn(credentials);
  partner = createEsimAccessPartner({ ...credentials, baseUrl: standIn.url });
  // Its 10 requests a second are not what this file tests: each listing takes three.
  goStandIn = await startEsimGoStandIn({ apiKey: 'snapshot-test', rateLimit: { requests: 1000, perMs: 1000 } });
  esimGo = createEsimGoPartner({ apiKey: 'snapshot-test', baseUrl: goStandIn.url });
});
afterAll(() => Promise.all([standIn.close(), goStandIn.close()]));

/** A partner that sells what `edit` makes of a stand-in's catalogue (eSIM Access's unless `from`). */
const edited = (edit: (packages: CataloguePackage[]) => CataloguePackage[], from?: () => PartnerCatalogue): PartnerCatalogue => ({
  name: 'edited',
  listPackages: async () => edit(await (from?.() ?? partner).listPackages()),
});

/** The committed snapshot's rates: regenerating on them gives the same prices. */
const { exchangeRates } = embeddedSnapshot();
/** eSIM Access alone (the catalogue before issue 48), or with eSIM Go (`go`) after it. */
const generate = (from: PartnerCatalogue, go?: PartnerCatalogue) =>
  generateSnapshot([{ id: ESIM_ACCESS, catalogue: from }, ...(go ? [{ id: ESIM_GO, catalogue: go }] : [])], exchangeRates);
/** eSIM Go's stand-in catalogue as `edit` makes it. */
const editedGo = (edit: (packages: CataloguePackage[]) => CataloguePackage[]) => edited(edit, () => esimGo);
const euros = (retail: number) => retailPrice(retail, pricingFor('EUR', exchangeRates.applied)).amountMinor;

describe('the catalogue snapshot', () => {
  it('regenerates identically from both stand-ins (run npm run catalogue:generate after changing either)', async () => {
    const { snapshot, unmatched } = await generate(partner, esimGo);
    expect(unmatched).toEqual({ [ESIM_ACCESS]: [], [ESIM_GO]: [] });
    expect(snapshot).toEqual(embeddedSnapshot());
    expect(snapshot.sources).toMatchObject({ 'partner:esim-access': 'eSIM Access', 'partner:esim-go': 'eSIM Go' });
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
            // As fast once a day's volume is used: a plan slowed to 512 kbps may cost more than a bigger one slowed to 1 Mbps.
            JSON.stringify(p.facts.data) === JSON.stringify(pkg.facts.data) &&
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
    expect(unmatched).toEqual({ [ESIM_ACCESS]: ['DACH_1_7', 'ZZ_1_7'] });
    expect(snapshot.packages.map((p) => p.partnerCode)).not.toContain('DACH');
  });

  it('sells the cheaper of two packages of one plan, under the same id', async () => {
    const { snapshot } = await generate(
      edited((packages) => {
        const german = packages.find((p) => p.slug === 'DE_1_7')!;
        return [...packages, { ...german, partnerCode: 'CHEAPER', slug: 'DE_1_7_B', wholesaleUsdE4: german.wholesaleUsdE4 - 1000 }];
      }),
    );
    const plans = snapshot.packages.filter((p) => p.id === 'de-1gb-7d');
    expect(plans.map((p) => p.partnerCode)).toEqual(['CHEAPER']);
    expect(plans[0]!.offers).toEqual([{ partner: ESIM_ACCESS, partnerCode: 'CHEAPER', wholesaleUsdE4: plans[0]!.wholesaleUsdE4 }]);
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
    expect(daily.prices.EUR).toBeGreaterThanOrEqual(euros(daily.wholesaleUsdE4));
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

describe('one catalogue from both partners (issue 48)', () => {
  const plan = (snapshot: { packages: Snapshot['packages'] }, id: string) => snapshot.packages.find((p) => p.id === id)!;
  /** eSIM Go's stand-in catalogue with its German 1 GB for 7 days at `usdE4`. */
  const goGermany1gb = (usdE4: number) =>
    editedGo((packages) => packages.map((p) => (p.partnerCode === 'esim_1GB_7D_DE_V2' ? { ...p, wholesaleUsdE4: usdE4 } : p)));

  it('sells a shape both partners sell as one plan with two offers, the reference’s first, priced from it', async () => {
    const { snapshot: alone } = await generate(partner);
    for (const [go, dearer] of [
      [esimGo, true],
      [goGermany1gb(1000), false],
    ] as const) {
      const { snapshot } = await generate(partner, go);
      const german = plan(snapshot, 'de-1gb-7d');
      const before = plan(alone, 'de-1gb-7d');
      expect(snapshot.packages.filter((p) => p.offers.some((o) => o.partnerCode === 'esim_1GB_7D_DE_V2'))).toEqual([german]);
      expect(german.offers).toEqual([
        { partner: ESIM_ACCESS, partnerCode: before.partnerCode, wholesaleUsdE4: before.wholesaleUsdE4 },
        { partner: ESIM_GO, partnerCode: 'esim_1GB_7D_DE_V2', wholesaleUsdE4: dearer ? 11_000 : 1000 },
      ]);
      expect(german).toMatchObject({ partnerCode: before.partnerCode, wholesaleUsdE4: before.wholesaleUsdE4, facts: before.facts });
      expect(german.prices).toEqual(before.prices);
    }
  });

  it('sells a shape only eSIM Go sells, priced from its package and with its facts', async () => {
    const { snapshot } = await generate(partner, esimGo);
    const german = plan(snapshot, 'de-3gb-30d');
    expect(german.offers).toEqual([{ partner: ESIM_GO, partnerCode: 'esim_3GB_30D_DE_V2', wholesaleUsdE4: 37_400 }]);
    expect(german).toMatchObject({ partnerCode: 'esim_3GB_30D_DE_V2', wholesaleUsdE4: 37_400, supportedCountries: ['DE'] });
    // The smallest of Germany's 30-day plans: its price is its own, not raised by a smaller one's.
    expect(german.prices.EUR).toBe(euros(37_400));
    expect(german.facts).toMatchObject({ installWithinDays: 180, trafficExit: null, data: { kind: 'total' } });
  });

  it('prices a plan no reference sells from the dearest offer, so every partner’s margin holds', async () => {
    const third = editedGo((packages) =>
      packages.filter((p) => p.partnerCode === 'esim_3GB_30D_DE_V2').map((p) => ({ ...p, partnerCode: 'THIRD', wholesaleUsdE4: 30_000 })),
    );
    const { snapshot } = await generateSnapshot(
      [
        { id: ESIM_ACCESS, catalogue: partner },
        { id: 'third', catalogue: third },
        { id: ESIM_GO, catalogue: esimGo },
      ],
      exchangeRates,
    );
    const german = plan(snapshot, 'de-3gb-30d');
    expect(german.offers.map((o) => o.partner)).toEqual([ESIM_GO, 'third']);
    expect(german.wholesaleUsdE4).toBe(37_400);
    expect(german.prices.EUR).toBe(euros(37_400));
  });

  it('keeps the price of every plan the reference prices whatever the other partner charges for it', async () => {
    const shared = new Set(
      embeddedSnapshot()
        .packages.filter((p) => p.offers.length > 1)
        .flatMap((p) => p.offers.map((o) => o.partnerCode)),
    );
    expect(shared.has('esim_1GB_7D_DE_V2')).toBe(true);
    const priced = (factor: number) =>
      generate(
        partner,
        editedGo((packages) =>
          packages.map((p) => (shared.has(p.partnerCode) ? { ...p, wholesaleUsdE4: Math.round(p.wholesaleUsdE4 * factor) } : p)),
        ),
      );
    const [cheap, dear] = await Promise.all([priced(0.25), priced(4)]);
    expect(plan(cheap.snapshot, 'de-1gb-7d').offers[1]!.wholesaleUsdE4).toBeLessThan(
      plan(dear.snapshot, 'de-1gb-7d').offers[1]!.wholesaleUsdE4,
    );
    const prices = (snapshot: Snapshot) => snapshot.packages.map((p) => [p.id, p.offers[0]!.partner, p.prices]);
    expect(prices(cheap.snapshot)).toEqual(prices(dear.snapshot));
    expect(prices(cheap.snapshot)).toEqual(prices(embeddedSnapshot()));
  });

  it('takes the cheaper of two packages of one shape from the other partner too', async () => {
    const { snapshot } = await generate(
      partner,
      editedGo((packages) => {
        const german = packages.find((p) => p.partnerCode === 'esim_1GB_7D_DE_V2')!;
        return [...packages, { ...german, partnerCode: 'esim_1GB_7D_DE_V3', slug: 'esim_1GB_7D_DE_V3', wholesaleUsdE4: 10_500 }];
      }),
    );
    expect(plan(snapshot, 'de-1gb-7d').offers.map((o) => [o.partner, o.partnerCode])).toEqual([
      [ESIM_ACCESS, plan(embeddedSnapshot(), 'de-1gb-7d').partnerCode],
      [ESIM_GO, 'esim_1GB_7D_DE_V3'],
    ]);
  });

  it('keeps daily plans slowed to different speeds apart, and joins those slowed alike', async () => {
    const daily = (slowedToKbps: number, partnerCode: string) => (p: CataloguePackage) => ({
      ...p,
      partnerCode,
      slug: partnerCode,
      facts: { ...p.facts, data: { kind: 'daily' as const, after: { slowedToKbps } } },
    });
    const { snapshot } = await generate(
      partner,
      editedGo((packages) => {
        const german = packages.find((p) => p.partnerCode === 'esim_1GB_7D_DE_V2')!;
        return [...packages, daily(512, 'GO_DAILY_512')(german), daily(1000, 'GO_DAILY_1M')(german)];
      }),
    );
    const germanDaily = snapshot.packages.filter((p) => p.destination === 'DE' && p.facts.data.kind === 'daily' && p.validity === 7);
    // The plan sold before keeps its id; the new speed is named in its own.
    expect(germanDaily.map((p) => [p.id, p.facts.data, p.offers.map((o) => o.partnerCode)])).toEqual([
      [
        'de-1gb-daily-7d',
        { kind: 'daily', after: { slowedToKbps: 512 } },
        [plan(embeddedSnapshot(), 'de-1gb-daily-7d').partnerCode, 'GO_DAILY_512'],
      ],
      ['de-1gb-daily-7d-1000kbps', { kind: 'daily', after: { slowedToKbps: 1000 } }, ['GO_DAILY_1M']],
    ]);
    expect(plan(snapshot, 'de-1gb-daily-7d').prices).toEqual(plan(embeddedSnapshot(), 'de-1gb-daily-7d').prices);
  });
});

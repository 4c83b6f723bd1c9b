import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { retailPrice } from '../../src/pricing/pricing.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import type { EsimPartner, PartnerCatalogue, PartnerPackage } from '../../src/server/partner/partner.ts';
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
const edited = (edit: (packages: PartnerPackage[]) => PartnerPackage[]): PartnerCatalogue => ({
  name: 'edited',
  listPackages: async () => edit(await partner.listPackages()),
});

describe('the catalogue snapshot', () => {
  it('regenerates identically from the stand-in (run npm run catalogue:generate after changing either)', async () => {
    const { snapshot, unmatched } = await generateSnapshot(partner);
    expect(unmatched).toEqual([]);
    expect(snapshot).toEqual(embeddedSnapshot());
  });

  it('prices every package from its wholesale price, never a larger plan below a smaller one', () => {
    const snapshot = embeddedSnapshot();
    for (const pkg of snapshot.packages) {
      expect(pkg.price.amountMinor, pkg.id).toBeGreaterThanOrEqual(retailPrice(pkg.wholesaleUsdE4).amountMinor);
      const smaller = snapshot.packages.filter(
        (p) =>
          p.destination === pkg.destination && p.validity === pkg.validity && p.metadata.dataAmount.value < pkg.metadata.dataAmount.value,
      );
      for (const p of smaller) expect(pkg.price.amountMinor, `${pkg.id} vs ${p.id}`).toBeGreaterThanOrEqual(p.price.amountMinor);
    }
    expect(snapshot.packages.find((p) => p.id === 'de-1gb-7d')).toMatchObject({
      partnerCode: expect.any(String),
      price: { currency: 'EUR' },
    });
  });

  it('maps a package to our country or the region of exactly its countries, and leaves out the rest', async () => {
    const { snapshot, unmatched } = await generateSnapshot(
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
    const { snapshot } = await generateSnapshot(
      edited((packages) => {
        const german = packages.find((p) => p.slug === 'DE_1_7')!;
        return [...packages, { ...german, partnerCode: 'CHEAPER', slug: 'DE_1_7_B', wholesaleUsdE4: german.wholesaleUsdE4 - 1000 }];
      }),
    );
    expect(snapshot.packages.filter((p) => p.id === 'de-1gb-7d').map((p) => p.partnerCode)).toEqual(['CHEAPER']);
  });

  it('refuses a partner catalogue that leaves one of our destinations without a plan', async () => {
    await expect(generateSnapshot(edited((packages) => packages.filter((p) => !p.slug.startsWith('FR_'))))).rejects.toThrow(
      /countries\[\d+\] \(code FR\): FR has no packages/,
    );
  });
});

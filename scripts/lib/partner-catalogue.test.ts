import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import type { DataKind, Package } from '../../src/catalogue/schema.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import { listPartnerCatalogue, planKey } from './partner-catalogue.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';

// The partner's catalogue through the real adapter and the stand-in, joined to the snapshot.
let standIn: EsimAccessStandIn;
beforeAll(async () => {
  standIn = await startEsimAccessStandIn({ accessCode: 'code', secretKey: 'secret' });
});
afterAll(() => standIn.close());

describe('listPartnerCatalogue', () => {
  it('lists every location in one call, in a stable order, and joins every snapshot plan it offers by planKey', async () => {
    const partner = createEsimAccessPartner({ baseUrl: standIn.url, accessCode: 'code', secretKey: 'secret' });
    const catalogue = await listPartnerCatalogue(partner);
    expect(standIn.requests).toHaveLength(1);
    expect(catalogue.map((p) => p.slug)).toEqual(catalogue.map((p) => p.slug).sort((a, b) => a.localeCompare(b, 'en')));

    const byKey = new Map(catalogue.map((p) => [planKey(p), p]));
    expect(byKey.size).toBe(catalogue.length);
    const offered = snapshot.packages.flatMap((pkg) =>
      pkg.offers.filter((o) => o.partner === 'esim-access').map((offer) => ({ pkg, offer })),
    );
    expect(offered.length).toBeGreaterThan(1000);
    for (const { pkg, offer } of offered) {
      const key = planKey({
        countries: pkg.supportedCountries,
        dataAmount: pkg.metadata.dataAmount as Package['metadata']['dataAmount'],
        validity: pkg.validity,
        validityUnit: pkg.validityUnit as Package['validityUnit'],
        facts: pkg.facts as Package['facts'],
      });
      expect(byKey.get(key), pkg.id).toMatchObject({ partnerCode: offer.partnerCode, wholesaleUsdE4: offer.wholesaleUsdE4 });
    }
  });

  it('keys MB and GB alike and ignores the order of countries', () => {
    const key = (countries: string[], value: number, unit: 'MB' | 'GB') =>
      planKey({ countries, dataAmount: { value, unit }, validity: 7, validityUnit: 'day', facts: { data: { kind: 'total' } } });
    expect(key(['FR', 'DE'], 1, 'GB')).toBe(key(['DE', 'FR'], 1024, 'MB'));
    expect(key(['DE'], 1, 'GB')).not.toBe(key(['DE'], 3, 'GB'));
    // 1 GB a day is another plan than 1 GB in all.
    const daily = planKey({
      countries: ['DE'],
      dataAmount: { value: 1, unit: 'GB' },
      validity: 7,
      validityUnit: 'day',
      facts: { data: { kind: 'daily', after: { slowedToKbps: 512 } } },
    });
    expect(daily).not.toBe(key(['DE'], 1, 'GB'));
  });

  it('keys a daily or unlimited plan by what follows its volume: slowed to 512 kbps, to 1 Mbps, or cut off', () => {
    const key = (data: DataKind) =>
      planKey({ countries: ['DE'], dataAmount: { value: 1, unit: 'GB' }, validity: 7, validityUnit: 'day', facts: { data } });
    const keys = [
      key({ kind: 'daily', after: { slowedToKbps: 512 } }),
      key({ kind: 'daily', after: { slowedToKbps: 1000 } }),
      key({ kind: 'daily', after: 'cut' }),
      key({ kind: 'unlimited', after: { slowedToKbps: 512 } }),
      key({ kind: 'unlimited', after: { slowedToKbps: 1000 } }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(key({ kind: 'daily', after: { slowedToKbps: 512 } })).toBe(keys[0]);
  });
});

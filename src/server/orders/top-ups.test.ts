import { priceOnSnapshotRates } from '../../../tests/support/prices.ts';
import { describe, expect, it } from 'vitest';
import type { PartnerPackage } from '../partner/partner.types.ts';
import { isTopUpId, topUpId, topUpOffers } from './top-ups.ts';
import { embeddedSnapshot } from '../../catalogue/snapshot.ts';

const RATES = embeddedSnapshot().exchangeRates.applied;

const GIB = 2 ** 30;
const topUp = (partnerCode: string, gigabytes: number, days: number, wholesaleUsdE4: number): PartnerPackage => ({
  partnerCode,
  slug: partnerCode,
  name: `Germany ${gigabytes}GB ${days}Days`,
  countries: ['DE'],
  dataAmount: gigabytes >= 1 ? { value: gigabytes, unit: 'GB' } : { value: Math.round(gigabytes * 1024), unit: 'MB' },
  dataBytes: Math.round(gigabytes * GIB),
  validity: days,
  validityUnit: 'day',
  wholesaleUsdE4,
  topUp: true,
});

describe("the shop's top-ups", () => {
  it('are named by data and days, like the catalogue without a destination, never like a plan', () => {
    expect(topUpId(topUp('TOPUP_A', 2, 15, 1))).toBe('topup-2gb-15d');
    expect(topUpId(topUp('TOPUP_B', 0.5, 7, 1))).toBe('topup-512mb-7d');
    expect(topUpId({ dataAmount: { value: 1.5, unit: 'GB' }, validity: 1, validityUnit: 'month' })).toBe('topup-1536mb-1m');
    expect(isTopUpId('topup-2gb-15d')).toBe(true);
    expect(isTopUpId('de-2gb-15d')).toBe(false);
  });

  it('are priced from their own wholesale price, one per id (the cheaper package), cheapest first', () => {
    const offers = topUpOffers(
      [
        topUp('TOPUP_BIG', 10, 30, 60_000),
        topUp('TOPUP_ONE', 1, 7, 6_600),
        topUp('TOPUP_TWO', 2, 15, 14_000),
        topUp('TOPUP_TWO_DEAR', 2, 15, 19_000),
      ],
      'EUR',
      RATES,
    );
    expect(offers.map((o) => [o.id, o.pkg.partnerCode, o.price])).toEqual([
      ['topup-1gb-7d', 'TOPUP_ONE', priceOnSnapshotRates(6_600)],
      ['topup-2gb-15d', 'TOPUP_TWO', priceOnSnapshotRates(14_000)],
      ['topup-10gb-30d', 'TOPUP_BIG', priceOnSnapshotRates(60_000)],
    ]);
    expect(topUpOffers([], 'EUR', RATES)).toEqual([]);
  });

  it("are priced in the currency asked for, each currency's own way", () => {
    const [offer] = topUpOffers([topUp('TOPUP_ONE', 1, 7, 6_600)], 'JPY', RATES);
    expect(offer!.price).toEqual(priceOnSnapshotRates(6_600, 'JPY'));
    expect(offer!.price.amountMinor % 10).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { testFacts } from '../../src/catalogue/test-facts.ts';
import type { CataloguePackage } from '../../src/server/partner/partner.types.ts';
import { addPackage, mergePlan, type ShapePackages } from './plan-offers.ts';

/** Germany's 1 GB for 7 days as a partner sells it under `partnerCode` at `wholesaleUsdE4`. */
const german = (partnerCode: string, wholesaleUsdE4: number): CataloguePackage => ({
  partnerCode,
  slug: partnerCode,
  name: partnerCode,
  countries: ['DE'],
  dataAmount: { value: 1, unit: 'GB' },
  dataBytes: 1024 ** 3,
  validity: 7,
  validityUnit: 'day',
  wholesaleUsdE4,
  topUp: true,
  facts: testFacts(['DE'], { installWithinDays: wholesaleUsdE4 }),
});

const shapeOf = (...packages: [partner: string, pkg: CataloguePackage][]): ShapePackages => {
  const shape: ShapePackages = new Map();
  for (const [partner, pkg] of packages) addPackage(shape, partner, pkg);
  return shape;
};
const offer = (partner: string, partnerCode: string, wholesaleUsdE4: number) => ({ partner, partnerCode, wholesaleUsdE4 });

describe('mergePlan', () => {
  it('prices a plan the reference sells from its package, whether it is the cheaper or the dearer, and lists it first', () => {
    for (const go of [5000, 20_000]) {
      const { partner, pkg, offers } = mergePlan(
        shapeOf(['esim-go', german('GO', go)], ['esim-access', german('EA', 10_000)]),
        'esim-access',
      );
      expect([partner, pkg.partnerCode, pkg.facts.installWithinDays]).toEqual(['esim-access', 'EA', 10_000]);
      expect(offers).toEqual([offer('esim-access', 'EA', 10_000), offer('esim-go', 'GO', go)]);
    }
  });

  it('lists the other offers by ascending wholesale price', () => {
    const { offers } = mergePlan(
      shapeOf(['c', german('C', 9000)], ['a', german('A', 12_000)], ['b', german('B', 7000)], ['esim-access', german('EA', 10_000)]),
      'esim-access',
    );
    expect(offers.map((o) => o.partner)).toEqual(['esim-access', 'b', 'c', 'a']);
  });

  it('prices a plan the reference does not sell from the dearest offer, then the rest by ascending price', () => {
    const { partner, pkg, offers } = mergePlan(
      shapeOf(['b', german('B', 7000)], ['a', german('A', 12_000)], ['c', german('C', 9000)]),
      'esim-access',
    );
    expect([partner, pkg.partnerCode]).toEqual(['a', 'A']);
    expect(offers.map((o) => o.partner)).toEqual(['a', 'b', 'c']);
  });

  it('sells one partner’s package alone as a plan of one offer', () => {
    expect(mergePlan(shapeOf(['esim-go', german('GO', 8000)]), 'esim-access').offers).toEqual([offer('esim-go', 'GO', 8000)]);
  });
});

describe('addPackage', () => {
  it('keeps a partner’s cheaper package of a shape, the first listed on a tie', () => {
    const shape = shapeOf(
      ['esim-go', german('GO_A', 9000)],
      ['esim-go', german('GO_B', 8000)],
      ['esim-go', german('GO_C', 8000)],
      ['esim-go', german('GO_D', 8500)],
    );
    expect([...shape].map(([partner, pkg]) => [partner, pkg.partnerCode])).toEqual([['esim-go', 'GO_B']]);
  });
});

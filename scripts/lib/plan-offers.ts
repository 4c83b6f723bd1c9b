import type { PartnerOffer } from '../../src/catalogue/schema.ts';
import type { CataloguePackage } from '../../src/server/partner/partner.types.ts';

/**
 * One plan from every partner's packages of its shape (issue 48): which package it is priced from
 * and each partner's offer of it. The snapshot generator finds the shapes (catalogue-snapshot.ts).
 */

/** One plan shape's packages by partner id: each partner's cheaper package of that shape. */
export type ShapePackages = Map<string, CataloguePackage>;

/** Adds a partner's package to its shape: of two of one partner, its cheaper (the first listed on a tie). */
export function addPackage(shape: ShapePackages, partner: string, pkg: CataloguePackage): void {
  const other = shape.get(partner);
  if (!other || pkg.wholesaleUsdE4 < other.wholesaleUsdE4) shape.set(partner, pkg);
}

export interface MergedPlan {
  /** The partner whose package the plan is priced from. */
  partner: string;
  /** That package: its price makes the retail price, its facts are the plan's. */
  pkg: CataloguePackage;
  /** One per partner selling the plan: the pricing one first, then by ascending wholesale price. */
  offers: PartnerOffer[];
}

/**
 * The plan of a shape. Priced from the reference partner's package when it sells the plan, so its
 * retail price does not move when another partner gets cheaper or dearer; else from the dearest
 * package, so every partner's margin holds at that price.
 */
export function mergePlan(shape: ShapePackages, reference: string): MergedPlan {
  // Stable sort: on a tie, partners stay in their listed order.
  const byPrice = [...shape].sort(([, a], [, b]) => a.wholesaleUsdE4 - b.wholesaleUsdE4);
  if (byPrice.length === 0) throw new Error('A plan needs at least one partner’s package');
  const pricing =
    byPrice.find(([partner]) => partner === reference) ??
    byPrice.reduce((dearest, entry) => (entry[1].wholesaleUsdE4 > dearest[1].wholesaleUsdE4 ? entry : dearest));
  const offers = [pricing, ...byPrice.filter((entry) => entry !== pricing)].map(([partner, pkg]) => ({
    partner,
    partnerCode: pkg.partnerCode,
    wholesaleUsdE4: pkg.wholesaleUsdE4,
  }));
  return { partner: pricing[0], pkg: pricing[1], offers };
}

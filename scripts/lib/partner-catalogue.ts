import type { DataAmount, DataKind, Package } from '../../src/catalogue/schema.ts';
import type { CataloguePackage, PartnerCatalogue } from '../../src/server/partner/partner.types.ts';

/**
 * The partner's whole catalogue in our terms, for the snapshot generator: every location in one
 * listing, in a stable order (so the generated snapshot only changes when the catalogue does).
 */
export async function listPartnerCatalogue(partner: PartnerCatalogue): Promise<CataloguePackage[]> {
  const packages = await partner.listPackages();
  return packages.sort((a, b) => a.slug.localeCompare(b.slug, 'en') || a.partnerCode.localeCompare(b.partnerCode, 'en'));
}

/**
 * The join key of a plan: its countries, data amount, how that amount is counted (1 GB in all is
 * not 1 GB a day) and what happens after a daily or fair-use volume (slowed to 512 kbps is not
 * slowed to 1 Mbps, nor cut off), and validity. A snapshot package (`countries` =
 * supportedCountries, `dataAmount` = metadata.dataAmount) and every partner's package selling the
 * same plan get the same key.
 */
export function planKey(plan: {
  countries: readonly string[];
  dataAmount: DataAmount;
  validity: number;
  validityUnit: Package['validityUnit'];
  facts: { data: DataKind };
}): string {
  const megabytes = plan.dataAmount.unit === 'GB' ? plan.dataAmount.value * 1024 : plan.dataAmount.value;
  const after = afterVolume(plan.facts.data);
  const data = `${megabytes}MB ${plan.facts.data.kind}${after === undefined ? '' : after === 'cut' ? ' then cut' : ` then ${after}kbps`}`;
  return `${[...plan.countries].sort().join(',')}|${data}|${plan.validity} ${plan.validityUnit}`;
}

/** What a daily or unlimited plan does after its volume: slowed to so many kbit/s, or cut off; undefined for a fixed volume. */
export function afterVolume(data: DataKind): number | 'cut' | undefined {
  // Read defensively: an unknown kind still gets a key and an id, so the snapshot's schema can name the plan it refuses.
  const after = 'after' in data ? data.after : undefined;
  return after === undefined || after === 'cut' ? after : after.slowedToKbps;
}

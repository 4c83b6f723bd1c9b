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
 * not 1 GB a day) and validity. A snapshot package (`countries` = supportedCountries, `dataAmount`
 * = metadata.dataAmount) and the partner package selling the same plan get the same key.
 */
export function planKey(plan: {
  countries: readonly string[];
  dataAmount: DataAmount;
  validity: number;
  validityUnit: Package['validityUnit'];
  facts: { data: Pick<DataKind, 'kind'> };
}): string {
  const megabytes = plan.dataAmount.unit === 'GB' ? plan.dataAmount.value * 1024 : plan.dataAmount.value;
  return `${[...plan.countries].sort().join(',')}|${megabytes}MB ${plan.facts.data.kind}|${plan.validity} ${plan.validityUnit}`;
}

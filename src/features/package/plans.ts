import type { Package } from '../../catalogue/schema.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { T } from '../../i18n/t.ts';

/** A plan card's text, formatted on the server so the island ships no Intl or i18n code. */
export interface PlanView {
  id: string;
  data: string;
  validity: string;
  countries: string;
  /** Formatted price, or undefined while the catalogue has none (DESIGN 2). */
  price: string | undefined;
}

const UNIT = { MB: 'megabyte', GB: 'gigabyte' } as const;

export function formatDataAmount(amount: Package['metadata']['dataAmount'], locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit: UNIT[amount.unit], maximumFractionDigits: 1 }).format(amount.value);
}

/** '7 days', '7 dni', '7 أيام': Intl spells the unit with the language's own plural rules. */
export function formatValidity(validity: number, unit: Package['validityUnit'], locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(validity);
}

/** A price in the currency's major units: 1999 EUR cents -> 19.99, 1999 JPY -> 1999 (ISO 4217 minor units, from Intl). */
export function majorUnits(price: NonNullable<Package['price']>): number {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: price.currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return price.amountMinor / 10 ** digits;
}

export function formatPrice(price: NonNullable<Package['price']>, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: price.currency }).format(majorUnits(price));
}

export function planView(pkg: Package, locale: Locale, t: T): PlanView {
  return {
    id: pkg.id,
    data: formatDataAmount(pkg.metadata.dataAmount, locale),
    validity: formatValidity(pkg.validity, pkg.validityUnit, locale),
    countries: t('store.countriesCount', { count: pkg.supportedCountries.length }),
    price: pkg.price && formatPrice(pkg.price, locale),
  };
}

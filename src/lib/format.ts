import type { Package, Price } from '../catalogue/schema.ts';
import type { Locale } from '../i18n/locales.ts';

/**
 * Numbers, money and dates as each language writes them, with Intl: shared by the pages, the
 * islands and the shop API's e-mails. Nothing here depends on a page or on the server.
 */

const UNIT = { MB: 'megabyte', GB: 'gigabyte' } as const;

// Making a formatter costs far more than using one (a tenth of a millisecond, on every order the
// API opens): each is made once per language and options.
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function formatter<F extends Intl.NumberFormat | Intl.DateTimeFormat>(
  make: new (locale: string, options: object) => F,
  locale: string,
  options: object,
): F {
  const key = `${make.name} ${locale} ${JSON.stringify(options)}`;
  let made = formatters.get(key) as F | undefined;
  if (!made) formatters.set(key, (made = new make(locale, options)));
  return made;
}
const numberFormat = (locale: string, options: Intl.NumberFormatOptions) => formatter(Intl.NumberFormat, locale, options);
const dateTimeFormat = (locale: string, options: Intl.DateTimeFormatOptions) => formatter(Intl.DateTimeFormat, locale, options);

export function formatDataAmount(amount: Package['metadata']['dataAmount'], locale: Locale): string {
  return numberFormat(locale, { style: 'unit', unit: UNIT[amount.unit], maximumFractionDigits: 1 }).format(amount.value);
}

/** A speed as the language writes it, in Mbit/s from 1000 kbit/s on ('512 kb/s', '1 Mb/s', '1,5 Mbit/s'). */
export function formatSpeed(kbps: number, locale: Locale): string {
  const [value, unit] = kbps >= 1000 ? [kbps / 1000, 'megabit-per-second'] : [kbps, 'kilobit-per-second'];
  return numberFormat(locale, { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}

/** '7 days', '7 dni', '7 أيام': Intl spells the unit with the language's own plural rules. */
export function formatValidity(validity: number, unit: Package['validityUnit'], locale: Locale): string {
  return numberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(validity);
}

/** A price in the currency's major units: 1999 EUR cents -> 19.99, 1999 JPY -> 1999 (ISO 4217 minor units, from Intl). */
export function majorUnits(price: Price): number {
  const digits = numberFormat('en', { style: 'currency', currency: price.currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return price.amountMinor / 10 ** digits;
}

/** A final price, VAT included, as the language writes money: '4,99 €' in German, '€4.99' in English. */
export function formatPrice(price: Price, locale: Locale): string {
  return numberFormat(locale, { style: 'currency', currency: price.currency }).format(majorUnits(price));
}

const UTC_TIME = { hour: 'numeric', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' } as const;

/** A moment (an order's, a consent's) with the time zone spelled out: where the reader lives is unknown. */
export function formatDateTime(date: Date, locale: Locale): string {
  return dateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', ...UTC_TIME }).format(date);
}

/** The same, short enough for a notification: 'Nov 25, 2:05 PM UTC'. */
export function formatShortDateTime(date: Date, locale: Locale): string {
  return dateTimeFormat(locale, { month: 'short', day: 'numeric', ...UTC_TIME }).format(date);
}

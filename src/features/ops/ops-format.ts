import type { Locale } from '../../i18n/locales.ts';
import { formatPrice } from '../../lib/format.ts';

/** Money in minor units, as the back office shows it: the language's way, a minus for a negative margin. */
export function formatMoney(money: { amountMinor: number; currency: string }, locale: Locale): string {
  return formatPrice(money, locale);
}

/** The partner's prices and balance, in US dollars (not minor units): '$12.3456' kept to 4 decimals as eSIM Access bills. */
export function formatUsd(amount: number, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(
    amount,
  );
}

/** A moment in the back office: short, to the second, in Berlin time (where the provider works), the zone spelled out. */
export function formatMoment(iso: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: 'short',
    timeStyle: 'medium',
    timeZone: 'Europe/Berlin',
  }).format(new Date(iso));
}

const minorDigits = (currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/**
 * An amount typed by the operator in major units ('12.50', '12,50', '12') as minor units of the
 * currency (1250; JPY '500' -> 500), or undefined when it is not a positive amount with at most
 * the currency's decimals. Thousands separators are refused rather than guessed ('1.250' in
 * German is 1250, in English 1.25).
 */
export function parseMajorAmount(text: string, currency: string): number | undefined {
  const digits = minorDigits(currency);
  const match = text.trim().match(/^(\d+)(?:[.,](\d+))?$/);
  if (!match) return undefined;
  const [, whole, fraction = ''] = match;
  if (fraction.length > digits) return undefined;
  const minor = Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  return Number.isSafeInteger(minor) && minor > 0 ? minor : undefined;
}

/** Minor units as the operator types them back ('12.50' for 1250 EUR): the refund field's starting value. */
export function majorText(amountMinor: number, currency: string): string {
  const digits = minorDigits(currency);
  return digits === 0 ? String(amountMinor) : (amountMinor / 10 ** digits).toFixed(digits);
}

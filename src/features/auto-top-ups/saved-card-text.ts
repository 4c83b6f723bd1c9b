import type { SavedCardView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';

/** Stripe's card brands (PaymentMethod card.brand: 'visa') as the card networks write them; any other as Stripe names it. */
const BRAND_NAMES: Partial<Record<string, string>> = {
  amex: 'American Express',
  cartes_bancaires: 'Cartes Bancaires',
  diners: 'Diners Club',
  discover: 'Discover',
  eftpos_au: 'eftpos',
  interac: 'Interac',
  jcb: 'JCB',
  mastercard: 'Mastercard',
  unionpay: 'UnionPay',
  visa: 'Visa',
};

/** 'Saved card: Visa ending in 4242' (autoTopUp.card). */
export function savedCardText(template: string, card: SavedCardView): string {
  return fill(template, { brand: BRAND_NAMES[card.brand ?? ''] ?? card.brand ?? '', last4: card.last4 ?? '' });
}

/** The card's expiry as printed on it, month and year in the language's way ('12/2034', '2034/12'); none when Stripe did not say. */
export function cardExpiry(card: SavedCardView, locale: Locale): string | undefined {
  if (!card.expMonth || !card.expYear) return undefined;
  return new Intl.DateTimeFormat(locale, { month: '2-digit', year: 'numeric', timeZone: 'UTC' }).format(
    Date.UTC(card.expYear, card.expMonth - 1),
  );
}

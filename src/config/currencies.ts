import type { Locale } from '../i18n/locales.ts';

/**
 * The currencies the shop prices and charges in (issue 34), each a price list of its own, in one
 * place. Every one is a Stripe presentment currency a German account can charge cards in, with
 * Stripe's minimum charge (docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). BRL is
 * listed, CNY is not: BRL is in Stripe's minimum-charge table and CNY is not, so charging CNY cards
 * from a German account could not be confirmed.
 */
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'PLN', 'JPY', 'CAD', 'AUD', 'BRL'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** What the Stripe account settles in and the ECB's rates are quoted against. */
export const BASE_CURRENCY = 'EUR' satisfies Currency;

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && (CURRENCIES as readonly string[]).includes(value);
}

export interface CurrencyRules {
  /** ISO 4217 minor-unit digits: amounts are in cents (2) or in whole yen (0). */
  minorDigits: 0 | 2;
  /** Allowed endings of a price in minor units, repeating every `endingEvery`: 49 and 99 of 100 make 4.49 and 4.99. */
  endings: readonly number[];
  endingEvery: number;
  /** Stripe's smallest charge in the currency, in its minor units (yen have none: ¥50 is 50). */
  stripeMinimumMinor: number;
}

const CENTS: Omit<CurrencyRules, 'stripeMinimumMinor'> = { minorDigits: 2, endings: [49, 99], endingEvery: 100 };

export const CURRENCY_RULES: Record<Currency, CurrencyRules> = {
  EUR: { ...CENTS, stripeMinimumMinor: 50 },
  USD: { ...CENTS, stripeMinimumMinor: 50 },
  GBP: { ...CENTS, stripeMinimumMinor: 30 },
  CHF: { ...CENTS, stripeMinimumMinor: 50 },
  PLN: { ...CENTS, stripeMinimumMinor: 200 },
  // Zero-decimal: whole yen, rounded up to tens (¥1,230).
  JPY: { minorDigits: 0, endings: [0], endingEvery: 10, stripeMinimumMinor: 50 },
  CAD: { ...CENTS, stripeMinimumMinor: 50 },
  AUD: { ...CENTS, stripeMinimumMinor: 50 },
  BRL: { ...CENTS, stripeMinimumMinor: 50 },
};

/**
 * The currency a page is rendered in, before any script runs (what search engines and a visitor
 * without JavaScript read). Japanese and Polish are spoken in one currency's country; the six
 * languages of euro countries read euros. The others:
 * - `pt`: euros, as the site's Portuguese is Portugal's (pt_PT); a Brazilian browser (pt-BR) guesses reais;
 * - `ar`: US dollars, the currency the Gulf's currencies are pegged to and what travellers from the
 *   Arab world usually compare in; none of their own is listed;
 * - `zh`: US dollars: CNY is not listed (above), and Hong Kong, Taiwan and Singapore use dollars;
 * - `ru`: euros: roubles are not among ours, and Russian speakers travelling from the EU are the likely buyers.
 */
export const LOCALE_CURRENCY: Record<Locale, Currency> = {
  en: 'EUR',
  es: 'EUR',
  fr: 'EUR',
  de: 'EUR',
  it: 'EUR',
  nl: 'EUR',
  pt: 'EUR',
  ru: 'EUR',
  pl: 'PLN',
  ja: 'JPY',
  ar: 'USD',
  zh: 'USD',
};

/** A browser region's currency, where we list it: the euro area (Bulgaria since 2026) and the others' own. */
export const REGION_CURRENCY: Readonly<Record<string, Currency>> = {
  ...Object.fromEntries(
    ['AT', 'BE', 'BG', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK'].map(
      (region) => [region, 'EUR' as const],
    ),
  ),
  US: 'USD',
  GB: 'GBP',
  CH: 'CHF',
  LI: 'CHF',
  PL: 'PLN',
  JP: 'JPY',
  CA: 'CAD',
  AU: 'AUD',
  BR: 'BRL',
};

/** A language without a region that is spoken in one listed currency's country ('ja' → JPY). */
export const LANGUAGE_CURRENCY: Readonly<Record<string, Currency>> = { ja: 'JPY', pl: 'PLN' };

/**
 * How far the ECB's rate may move from the rate our prices use before they follow it (the band,
 * pricing/rate-band.ts): 3 %, about a month's usual move of the dollar against the euro. Within it a
 * page does not show a new price every day; the margin floor is checked at the band's worst edge.
 */
export const RATE_BAND = 0.03;

/** The build refuses exchange rates older than this: the ECB publishes every working day, and its longest gap (Easter) is 4 days. */
export const MAX_RATE_AGE_DAYS = 14;

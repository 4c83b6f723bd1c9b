import type { BrowserContext, Page } from '@playwright/test';
import type { Price } from '../../src/catalogue/schema.ts';
import { STORAGE_KEYS } from '../../src/config/constants.ts';
import { CURRENCY_RULES, LOCALE_CURRENCY, type Currency } from '../../src/config/currencies.ts';
import type { Locale } from '../../src/i18n/locales.ts';

/**
 * Prices in the visitor's currency in the browser tests (issue 34). A test's browser speaks the
 * page's language alone (support.ts: speak), so without a pick a page shows its language's currency.
 */

/** The currency a page in `lang` shows a visitor whose browser speaks only that language and who picked none. */
export const currencyOf = (lang: Locale): Currency => LOCALE_CURRENCY[lang];

/** A snapshot plan's price in `currency` (minor units; whole yen). */
export const priceOf = (plan: { prices: Record<Currency, number> }, currency: Currency): Price => ({
  amountMinor: plan.prices[currency],
  currency,
});

/** Money as a page in `lang` writes it: '£11.49', '11,49 £', '¥2,130'. */
export function money(lang: string, price: Price): string {
  const digits = CURRENCY_RULES[price.currency as Currency].minorDigits;
  return new Intl.NumberFormat(lang, { style: 'currency', currency: price.currency }).format(price.amountMinor / 10 ** digits);
}

/** How a page in `lang` writes the currency's sign: '£', '€', 'US$'. */
export function currencySymbol(lang: string, currency: Currency): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).formatToParts(1).find((part) => part.type === 'currency')!.value;
}

/** The currency picked on this device before any page loads (what the currency picker stores). */
export async function pickCurrency(target: Page | BrowserContext, currency: Currency): Promise<void> {
  await target.addInitScript(
    ([key, value]) => {
      try {
        localStorage.setItem(key, value);
      } catch {
        // A page without storage of its own (about:blank): nothing to pick there.
      }
    },
    [STORAGE_KEYS.currency, currency] as const,
  );
}

import { persistentAtom } from '@nanostores/persistent';
import { STORAGE_KEYS } from '../../config/constants.ts';
import { isCurrency, LANGUAGE_CURRENCY, LOCALE_CURRENCY, REGION_CURRENCY, type Currency } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';

/**
 * Which currency a visitor sees (issue 34): the one they picked, remembered on the device; else a
 * first guess from the browser's languages; else the page language's (what the HTML was rendered
 * in, for search engines and without JavaScript). Browser-safe and small: every page loads it.
 */

/** The picked currency, shared by every island and tab; undefined until the visitor picks one. */
export const $pickedCurrency = persistentAtom<Currency | undefined>(STORAGE_KEYS.currency, undefined, {
  encode: (currency) => currency ?? '',
  decode: (stored) => (isCurrency(stored) ? stored : undefined),
});

/**
 * The browser's guess from its language list, in order: the first tag whose region has a listed
 * currency ('en-US' → USD, 'de-CH' → CHF), else the first language spoken in one listed currency's
 * country only ('ja' → JPY); undefined when nothing says ('en', 'de').
 */
export function guessCurrency(languages: readonly string[]): Currency | undefined {
  for (const tag of languages) {
    const region = tag
      .split(/[-_]/)
      .find((part, i) => i > 0 && /^[A-Za-z]{2}$/.test(part))
      ?.toUpperCase();
    const currency = region && REGION_CURRENCY[region];
    if (currency) return currency;
  }
  for (const tag of languages) {
    const currency = LANGUAGE_CURRENCY[tag.split(/[-_]/)[0]!.toLowerCase()];
    if (currency) return currency;
  }
  return undefined;
}

/** The currency a page in `locale` shows this visitor. */
export function visitorCurrency(
  locale: Locale,
  picked = $pickedCurrency.get(),
  languages: readonly string[] = browserLanguages(),
): Currency {
  return picked ?? guessCurrency(languages) ?? LOCALE_CURRENCY[locale];
}

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);
}

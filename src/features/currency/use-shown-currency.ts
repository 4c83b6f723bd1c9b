import { useEffect, useState } from 'react';
import { LOCALE_CURRENCY, type Currency } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';
import { $pickedCurrency, visitorCurrency } from './currency.ts';

/**
 * The currency an island whose prices are in the server's HTML (plan cards, the bottom bar) shows
 * (issue 34): the page language's while hydrating, as the HTML was rendered (no hydration
 * mismatch), then the visitor's, following the picker in this tab or another. For what is shown
 * only after loading, use-visitor-currency.ts.
 */
export function useShownCurrency(locale: Locale): Currency {
  const [currency, setCurrency] = useState(LOCALE_CURRENCY[locale]);
  useEffect(() => $pickedCurrency.subscribe((picked) => setCurrency(visitorCurrency(locale, picked))), [locale]);
  return currency;
}

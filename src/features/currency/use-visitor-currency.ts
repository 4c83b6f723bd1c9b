import { useStore } from '@nanostores/react';
import type { Currency } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';
import { $pickedCurrency, visitorCurrency } from './currency.ts';

/**
 * The currency of what is shown only after loading (checkout, the cart, top-ups; issue 34): the
 * visitor's from the first render, following the picker in this tab or another. For prices in the
 * server's HTML, use-shown-currency.ts.
 */
export function useVisitorCurrency(locale: Locale): Currency {
  return visitorCurrency(locale, useStore($pickedCurrency));
}

import { useStore } from '@nanostores/react';
import type { Currency } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';
import { $pickedCurrency, visitorCurrency } from '../currency/currency.ts';

/**
 * The currency this visitor sees and pays in on a page in `locale` (issue 34): the one picked,
 * else the browser's guess, else the page language's; it follows a pick made in any island or tab.
 * Only for what is shown after loading (checkout, cart, top-ups): the server HTML knows no pick.
 */
export function useVisitorCurrency(locale: Locale): Currency {
  return visitorCurrency(locale, useStore($pickedCurrency));
}

import type { Price, Prices } from '../catalogue/schema.ts';
import type { Currency } from '../config/currencies.ts';

/**
 * A plan's price in one currency from its prices by currency (issue 34): the server's order, the
 * checkout and the cart read it alike. Undefined only where the list may lack the currency.
 */
export function priceIn(prices: Prices, currency: Currency): Price;
export function priceIn(prices: Partial<Prices>, currency: Currency): Price | undefined;
export function priceIn(prices: Partial<Prices>, currency: Currency): Price | undefined {
  const amountMinor = prices[currency];
  return amountMinor === undefined ? undefined : { amountMinor, currency };
}

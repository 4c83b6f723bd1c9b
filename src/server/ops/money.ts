import { CURRENCY_RULES, isCurrency, type Currency } from '../../config/currencies.ts';
import { perEuro, type PerEuro } from '../../pricing/exchange-rates.ts';

/**
 * The back office's conversions between currencies (issue 34), in one place, so every figure it
 * shows can be traced to the rate it was made at: Stripe's own, where Stripe told us what it
 * settled a charge at (its balance transaction), else the catalogue's applied rate (the ECB's
 * rate the prices use, `exchangeRates.applied` of the snapshot the API serves).
 */

/** An amount in minor units of its currency. */
export interface Money {
  amountMinor: number;
  currency: string;
}

/** A currency the shop charges in; a code it does not know is an error in the data, not a figure to guess at. */
export function currencyOf(code: string): Currency {
  if (!isCurrency(code)) throw new Error(`Not a currency the shop charges in: ${code}`);
  return code;
}

/** `amountMinor` of `from` in minor units of `to` at the applied rates (units per euro), not rounded. */
export function convertAtRates(amountMinor: number, from: Currency, to: Currency, rates: PerEuro): number {
  if (from === to) return amountMinor;
  const euros = amountMinor / 10 ** CURRENCY_RULES[from].minorDigits / perEuro(rates, from);
  return euros * perEuro(rates, to) * 10 ** CURRENCY_RULES[to].minorDigits;
}

/**
 * One charge as Stripe booked it: what was charged (the order's share of it) and what Stripe
 * settled of that share into the balance, null when Stripe has not told us.
 */
export interface Charge {
  charged: Money;
  settled: Money | null;
}

/** How a converted figure was converted: not at all, at Stripe's rate for the charge, or at the catalogue's applied rate. */
export type ConvertedAt = 'same' | 'stripe' | 'applied';

/**
 * An amount of the charge's currency in `to`, or of the settlement's currency in the charge's: at
 * the rate Stripe settled the charge at (settled ÷ charged) where it told us, else at the applied
 * rate. Not rounded; `at` says which rate it was.
 */
export function convert(amount: Money, to: Currency, charge: Charge | undefined, rates: PerEuro): { amountMinor: number; at: ConvertedAt } {
  if (amount.currency === to) return { amountMinor: amount.amountMinor, at: 'same' };
  const settled = charge?.settled;
  if (charge && settled && settled.amountMinor > 0 && charge.charged.amountMinor > 0) {
    if (amount.currency === charge.charged.currency && to === settled.currency) {
      return { amountMinor: (amount.amountMinor * settled.amountMinor) / charge.charged.amountMinor, at: 'stripe' };
    }
    if (amount.currency === settled.currency && to === charge.charged.currency) {
      return { amountMinor: (amount.amountMinor * charge.charged.amountMinor) / settled.amountMinor, at: 'stripe' };
    }
  }
  return { amountMinor: convertAtRates(amount.amountMinor, currencyOf(amount.currency), to, rates), at: 'applied' };
}

/**
 * An order's part of a figure of its payment's charge. A cart's payment is one charge recorded on
 * each of its orders with that order's share (migration 0029), and the charge's facts (Stripe's fee,
 * what it settled) on each of them whole; an order's part is in proportion to its share.
 */
export function shareOf(chargeFigureMinor: number, orderShareMinor: number, chargeTotalMinor: number): number {
  if (chargeTotalMinor <= 0 || orderShareMinor === chargeTotalMinor) return chargeFigureMinor;
  return Math.round((chargeFigureMinor * orderShareMinor) / chargeTotalMinor);
}

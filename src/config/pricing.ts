import { BASE_CURRENCY, type Currency } from './currencies.ts';

/**
 * Every number that turns the partner's wholesale price (US dollars) into our retail prices
 * (DESIGN 6), in one place; each currency's rounding and minimum is in currencies.ts and the
 * exchange rates come dated from the ECB with the snapshot. src/pricing/pricing.ts applies them:
 * the snapshot generator at build time and the shop API again at order time.
 */
export const PRICING_RULES = {
  /** What we keep after VAT and the payment fee, as a multiple of the wholesale cost (≥ 1). */
  markup: 2,
  /**
   * The floor of that multiple for one order (issue 48): a plan is priced from one partner's
   * package, and an order goes to another partner only while its price still leaves this much.
   */
  minimumMarkup: 1.5,
  // German VAT. Under the EU one-stop shop the buyer's country's rate applies; with a higher
  // one (up to 27 %) the margin is thinner but the markup keeps it well above cost.
  vatRate: 0.19,
  /**
   * Stripe's fee per successful charge (stripe.com/de/pricing), a share of the gross plus a fixed
   * amount in euros: an EEA card in euros 1.5 % + €0.25; in any other currency the dearer case, an
   * international card (3.25 %) plus the 2 % conversion into our euro balance.
   */
  paymentFee: { base: { rate: 0.015, fixedEur: 0.25 }, other: { rate: 0.0525, fixedEur: 0.25 } },
} as const;

/** The pricing of one currency, resolved from the rules, the currency's rounding and the exchange rates. */
export interface PricingConfig {
  /** The retail currency (ISO 4217); amounts are in its minor units. */
  currency: Currency;
  /** Retail currency units per US dollar. */
  usdToRetail: number;
  markup: number;
  /** The payment fee per successful charge: a share of the gross price plus a fixed amount in minor units. */
  paymentFee: { rate: number; fixedMinor: number };
  vatRate: number;
  /** Allowed endings of a price in minor units, repeating every `endingEvery` (49 and 99 of 100: 4.49, 4.99). */
  priceEndings: readonly number[];
  endingEvery: number;
  /** No price below the payment provider's minimum charge. */
  minimumMinor: number;
}

/** Which payment fee a currency pays. */
export const paymentFeeOf = (currency: Currency) =>
  currency === BASE_CURRENCY ? PRICING_RULES.paymentFee.base : PRICING_RULES.paymentFee.other;

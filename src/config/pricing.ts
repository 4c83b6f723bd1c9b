/**
 * Every number that turns the partner's wholesale price into our retail price (DESIGN 6), in
 * one place. src/pricing/pricing.ts applies them; the snapshot uses them at build time and the
 * shop API again at order time.
 */
export interface PricingConfig {
  /** The retail currency (ISO 4217); amounts are in its minor units. */
  currency: string;
  /** Retail currency units per US dollar. */
  usdToRetail: number;
  /** What we keep after VAT and the payment fee, as a multiple of the wholesale cost (≥ 1). */
  markup: number;
  /** The payment provider's fee per successful charge: a share of the gross price plus a fixed amount. */
  paymentFee: { rate: number; fixedMinor: number };
  /** VAT included in every retail price. */
  vatRate: number;
  /** Allowed last two digits of a price in minor units: 49 and 99 make €4.49, €4.99. */
  priceEndings: readonly number[];
}

export const PRICING: PricingConfig = {
  currency: 'EUR',
  // Set by hand from the ECB reference rate; review it monthly and when the dollar moves by more
  // than a few per cent (a stronger dollar raises our cost).
  usdToRetail: 0.86,
  markup: 2,
  // Stripe's standard fee for cards issued in the EEA.
  paymentFee: { rate: 0.015, fixedMinor: 25 },
  // German VAT. Under the EU one-stop shop the buyer's country's rate applies; with a higher
  // one (up to 27 %) the margin is thinner but the markup keeps it well above cost.
  vatRate: 0.19,
  priceEndings: [49, 99],
};

import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import type { Currency } from '../../src/config/currencies.ts';
import { pricingFor, retailPrice } from '../../src/pricing/pricing.ts';

/** A wholesale price as the shop prices it in `currency` on the committed snapshot's rates (euros by default). */
export function priceOnSnapshotRates(wholesaleUsdE4: number, currency: Currency = 'EUR') {
  return retailPrice(wholesaleUsdE4, pricingFor(currency, embeddedSnapshot().exchangeRates.applied));
}

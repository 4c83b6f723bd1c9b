import type { TopUpPlans } from '../../contract/shop-api.ts';
import type { TopUpOffer } from './top-ups.ts';

/**
 * The answer of GET /esims/{id}/top-ups: the eSIM's top-ups (topUpsOf's offers, in their order) as
 * plans, with its destination. An eSIM that gets none is refused as POST /orders refuses its top-up
 * (refusals.ts, by why).
 */
export function topUpPlans(destination: TopUpPlans['destination'], offers: readonly TopUpOffer[]): TopUpPlans {
  return {
    destination,
    plans: offers.map(({ id, pkg, price }) => ({
      id,
      dataAmount: pkg.dataAmount,
      validity: pkg.validity,
      validityUnit: pkg.validityUnit,
      supportedCountries: pkg.countries,
      price,
    })),
  };
}

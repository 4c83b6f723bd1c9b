import type { PartnerOffer, Price } from '../../catalogue/schema.ts';
import { PARTNER_BUSY_AFTER_SECONDS } from '../../config/constants.ts';
import type { Currency } from '../../config/currencies.ts';
import type { PerEuro } from '../../pricing/exchange-rates.ts';
import { marginHolds, pricingFor } from '../../pricing/pricing.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { SellablePlan } from './plans.ts';
import type { OrderRow } from './store.types.ts';

/**
 * The partner an order of a plan goes to (issue 48 items 4 and 6): of the plan's offers from
 * partners this shop runs with, the cheapest whose margin holds at the price the buyer pays
 * (pricing.ts marginHolds) and whose circuit breaker is not open; one whose breaker is open only
 * when no other can take it (its delivery then waits for it to answer again); undefined when none
 * can. In a rush, while the cheapest one's deliveries under way take longer than
 * PARTNER_BUSY_AFTER_SECONDS at its budget's rate (Partners.backlogSeconds), the one whose take
 * least (so both partners' budgets are used, not one's).
 * `skip`: partners that cannot take it (paused for want of balance, or already tried).
 */
export function choosePartner(
  offers: readonly PartnerOffer[],
  price: Price,
  partners: Pick<Partners, 'ids' | 'breaker' | 'backlogSeconds'>,
  rates: PerEuro,
  skip: readonly string[] = [],
): PartnerOffer | undefined {
  const pricing = pricingFor(price.currency as Currency, rates);
  const candidates = offers
    .filter((offer) => partners.ids.includes(offer.partner) && !skip.includes(offer.partner))
    .filter((offer) => marginHolds(price.amountMinor, offer.wholesaleUsdE4, pricing))
    .sort((a, b) => a.wholesaleUsdE4 - b.wholesaleUsdE4);
  const healthy = candidates.filter((offer) => partners.breaker(offer.partner).state !== 'open');
  const [cheapest] = healthy;
  if (!cheapest) return candidates[0];
  if (partners.backlogSeconds(cheapest.partner) <= PARTNER_BUSY_AFTER_SECONDS) return cheapest;
  const backlog = (offer: PartnerOffer) => partners.backlogSeconds(offer.partner);
  return healthy.reduce((best, offer) => (backlog(offer) < backlog(best) ? offer : best));
}

/**
 * The next partner for a paid eSIM order its partner refused or cannot take now
 * (FulfilmentOptions.nextPartner): the plan's offers as the catalogue lists them now, at the price
 * the buyer paid. None for a top-up (only its eSIM's partner can apply it) or a replacement at our
 * cost (nothing paid to weigh it by). `skip`: partners tried, paused, or the order's own.
 */
export function nextPartnerFrom(
  plans: ReadonlyMap<string, SellablePlan>,
  partners: Pick<Partners, 'ids' | 'breaker' | 'backlogSeconds'>,
  rates: PerEuro,
) {
  return (order: Pick<OrderRow, 'kind' | 'plan_id' | 'amount_minor' | 'currency'>, skip: readonly string[]) => {
    const plan = plans.get(order.plan_id);
    if (!plan || order.kind !== 'esim' || order.amount_minor === 0) return undefined;
    return choosePartner(plan.pkg.offers, { amountMinor: order.amount_minor, currency: order.currency }, partners, rates, skip);
  };
}

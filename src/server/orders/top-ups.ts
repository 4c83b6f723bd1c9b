import type { Price } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import type { PerEuro } from '../../pricing/exchange-rates.ts';
import { enforceMonotonicPrices, pricingFor, retailPrice } from '../../pricing/pricing.ts';
import type { OwnedEsim } from '../esims/store.types.ts';
import type { SoldPlan } from './store.types.ts';
import { canTopUp, esimStatus, topUpSupported } from '../esims/view.ts';
import { forAWaitingBuyer } from '../partner/partner.ts';
import type { PartnerPackage } from '../partner/partner.types.ts';
import type { Partners } from '../partner/registry.types.ts';

/**
 * Top-ups as the shop sells them (issue 24 item 2): the partner's own top-up packages of one eSIM
 * (EsimPartner.listTopUps), each priced by the one pricing function from its own wholesale price,
 * as the catalogue's plans are (no larger top-up cheaper than a smaller one of the same days).
 *
 * A top-up's id is `topup-<data>-<validity>` ('topup-2gb-15d', 'topup-500mb-7d'), like the
 * catalogue's plan ids without a destination: readable in a checkout link, stable while the partner
 * sells the same step, and free of the partner's code (which the shop keeps to itself, as it does
 * the plans'). It is unique among one eSIM's top-ups; of two packages of the same step the cheaper
 * is sold. The order keeps the package's own code, which is what the partner is sent.
 */
export interface TopUpOffer {
  id: string;
  pkg: PartnerPackage;
  price: Price;
}

export const TOP_UP_ID_PREFIX = 'topup-';

export const isTopUpId = (id: string) => id.startsWith(TOP_UP_ID_PREFIX);

/** As the catalogue's ids are made (scripts/lib/catalogue-snapshot.ts): whole gigabytes, else megabytes. */
export function topUpId({
  dataAmount: { value, unit },
  validity,
  validityUnit,
}: Pick<PartnerPackage, 'dataAmount' | 'validity' | 'validityUnit'>): string {
  const amount = unit === 'GB' && Number.isInteger(value) ? `${value}gb` : `${Math.round(unit === 'GB' ? value * 1024 : value)}mb`;
  return `${TOP_UP_ID_PREFIX}${amount}-${validity}${validityUnit[0]}`;
}

/** The partner's top-ups of an eSIM as the shop offers them: priced in `currency` on the snapshot's rates, one per id, cheapest first. */
export function topUpOffers(packages: readonly PartnerPackage[], currency: Currency, rates: PerEuro): TopUpOffer[] {
  const config = pricingFor(currency, rates);
  const byId = new Map<string, PartnerPackage>();
  for (const pkg of packages) {
    const id = topUpId(pkg);
    const other = byId.get(id);
    if (!other || pkg.wholesaleUsdE4 < other.wholesaleUsdE4) byId.set(id, pkg);
  }
  const priced = enforceMonotonicPrices(
    [...byId].map(([id, pkg]) => ({
      id,
      pkg,
      metadata: { dataAmount: pkg.dataAmount },
      validity: pkg.validity,
      validityUnit: pkg.validityUnit,
      price: retailPrice(pkg.wholesaleUsdE4, config),
    })),
    config,
  );
  return priced
    .sort((a, b) => a.price.amountMinor - b.price.amountMinor || a.pkg.dataBytes - b.pkg.dataBytes || a.id.localeCompare(b.id, 'en'))
    .map(({ id, pkg, price }) => ({ id, pkg, price }));
}

/** A top-up as its order keeps it (SoldPlan): its id, data, days and countries. */
export const soldTopUp = ({ id, pkg }: TopUpOffer): SoldPlan => ({
  id,
  metadata: { dataAmount: pkg.dataAmount },
  validity: pkg.validity,
  validityUnit: pkg.validityUnit,
  supportedCountries: pkg.countries,
});

/** Why an eSIM gets no top-ups now. */
export type NoTopUps = 'plan_cannot_top_up' | 'esim_cannot_top_up' | 'partner_unavailable';

/**
 * Which top-ups this eSIM gets (GET /esims/{id}/top-ups shows them, POST /orders sells one of
 * them): none for a plan the partner said cannot be topped up, or an eSIM not on a phone or no
 * longer valid, known from what we store at no cost to the partner; else the partner's top-ups of
 * it as it lists them now, priced. `beforeAsking` runs just before the partner is asked (a per-user
 * limit, the caller's own check): what it answers is handed back and the partner is not asked.
 */
export async function topUpsOf<Held>(
  owned: OwnedEsim,
  /** The partners: the eSIM's own lists its top-ups. */
  partners: Partners,
  /** The currency to price them in (the visitor's, issue 34) and the snapshot's applied rates. */
  pricing: { currency: Currency; rates: PerEuro },
  beforeAsking: () => Promise<Held | undefined> = async () => undefined,
  now = new Date(),
): Promise<{ offers: TopUpOffer[] } | { none: NoTopUps } | { held: Held }> {
  if (!topUpSupported(owned.order)) return { none: 'plan_cannot_top_up' };
  if (!owned.esim || !canTopUp(esimStatus(owned.order, owned.esim, now))) return { none: 'esim_cannot_top_up' };
  const held = await beforeAsking();
  if (held !== undefined) return { held };
  try {
    return {
      offers: topUpOffers(
        await partners.of(owned.esim.partner).listTopUps(owned.esim.iccid, forAWaitingBuyer()),
        pricing.currency,
        pricing.rates,
      ),
    };
  } catch (error) {
    console.error('top-ups: not listed', error instanceof Error ? error.message : error);
    return { none: 'partner_unavailable' };
  }
}

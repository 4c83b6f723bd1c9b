import { describe, expect, it } from 'vitest';
import type { PartnerOffer } from '../../catalogue/schema.ts';
import { PARTNER_BUSY_AFTER_SECONDS } from '../../config/constants.ts';
import { pricingFor, retailPrice } from '../../pricing/pricing.ts';
import { choosePartner } from './partner-choice.ts';

const RATES = { USD: 1.1628, GBP: 0.878, CHF: 0.931, PLN: 4.235, JPY: 181.2, CAD: 1.625, AUD: 1.785, BRL: 6.21 };
const closed = () => ({ state: 'closed' as const, failures: 0 });
const idle = () => 0;
const both = { ids: ['esim-access', 'esim-go'], breaker: closed, backlogSeconds: idle };
const access = (wholesaleUsdE4: number): PartnerOffer => ({ partner: 'esim-access', partnerCode: 'P-DE-1', wholesaleUsdE4 });
const go = (wholesaleUsdE4: number): PartnerOffer => ({ partner: 'esim-go', partnerCode: 'esim_1GB_7D_DE_V2', wholesaleUsdE4 });
/** The plan's price as the catalogue makes it: from the first offer, in euros. */
const priceFrom = (offer: PartnerOffer) => retailPrice(offer.wholesaleUsdE4, pricingFor('EUR', RATES));

describe('the partner an order goes to', () => {
  it('is the cheapest of the partners this shop runs with', () => {
    const offers = [access(18_000), go(12_000)];
    expect(choosePartner(offers, priceFrom(offers[0]!), both, RATES)?.partner).toBe('esim-go');
    // eSIM Go cheaper, but not in this shop.
    expect(
      choosePartner(offers, priceFrom(offers[0]!), { ids: ['esim-access'], breaker: closed, backlogSeconds: idle }, RATES)?.partner,
    ).toBe('esim-access');
    const dearer = [access(12_000), go(18_000)];
    expect(choosePartner(dearer, priceFrom(dearer[0]!), both, RATES)).toEqual(access(12_000));
  });

  it('is one whose margin holds at the price the buyer pays, else none', () => {
    // Priced from eSIM Access's 1.20 USD: eSIM Go at 1.50 still leaves the minimum markup, at 2.00 it does not.
    const price = priceFrom(access(12_000));
    expect(choosePartner([access(12_000), go(15_000)], price, both, RATES, ['esim-access'])?.partner).toBe('esim-go');
    expect(choosePartner([access(12_000), go(20_000)], price, both, RATES, ['esim-access'])).toBeUndefined();
    // A price in another currency is checked in that currency.
    const yen = retailPrice(12_000, pricingFor('JPY', RATES));
    expect(choosePartner([go(15_000)], yen, both, RATES)?.partner).toBe('esim-go');
    expect(choosePartner([go(20_000)], yen, both, RATES)).toBeUndefined();
  });

  it('skips the partners already tried', () => {
    const offers = [access(12_000), go(11_000)];
    expect(choosePartner(offers, priceFrom(offers[0]!), both, RATES, ['esim-go'])?.partner).toBe('esim-access');
    expect(choosePartner(offers, priceFrom(offers[0]!), both, RATES, ['esim-go', 'esim-access'])).toBeUndefined();
  });

  it('passes over a partner whose circuit breaker is open while another can take the order, else still chooses it', () => {
    const offers = [access(12_000), go(11_000)];
    const goDown = {
      ...both,
      breaker: (id: string) => ({ state: id === 'esim-go' ? ('open' as const) : ('closed' as const), failures: 5 }),
    };
    expect(choosePartner(offers, priceFrom(offers[0]!), goDown, RATES)?.partner).toBe('esim-access');
    // Half open: its next call decides, so it may take an order again.
    const goChecked = {
      ...both,
      breaker: (id: string) => ({ state: id === 'esim-go' ? ('half_open' as const) : ('closed' as const), failures: 5 }),
    };
    expect(choosePartner(offers, priceFrom(offers[0]!), goChecked, RATES)?.partner).toBe('esim-go');
    // eSIM Access paused: eSIM Go is the only one left, breaker or not (the delivery waits for it).
    expect(choosePartner(offers, priceFrom(offers[0]!), goDown, RATES, ['esim-access'])?.partner).toBe('esim-go');
  });

  it("goes to a dearer partner in a rush: while the cheaper one's requests wait too long, to the one whose requests wait least", () => {
    const offers = [access(12_000), go(14_000)];
    const price = priceFrom(offers[0]!);
    const waiting = (seconds: Record<string, number>) => ({ ...both, backlogSeconds: (id: string) => seconds[id] ?? 0 });
    // A short queue at the cheaper one: still the cheaper one.
    expect(choosePartner(offers, price, waiting({ 'esim-access': PARTNER_BUSY_AFTER_SECONDS }), RATES)?.partner).toBe('esim-access');
    // Longer: the one whose requests wait less, even a little less.
    expect(choosePartner(offers, price, waiting({ 'esim-access': 3, 'esim-go': 0 }), RATES)?.partner).toBe('esim-go');
    expect(choosePartner(offers, price, waiting({ 'esim-access': 3, 'esim-go': 2.9 }), RATES)?.partner).toBe('esim-go');
    // Both as busy: the cheaper one.
    expect(choosePartner(offers, price, waiting({ 'esim-access': 3, 'esim-go': 3 }), RATES)?.partner).toBe('esim-access');
    // Never one whose margin does not hold, nor one whose breaker is open, however idle.
    expect(choosePartner([access(12_000), go(20_000)], price, waiting({ 'esim-access': 9 }), RATES)?.partner).toBe('esim-access');
    const goDown = {
      ...waiting({ 'esim-access': 9 }),
      breaker: (id: string) => ({ state: id === 'esim-go' ? ('open' as const) : ('closed' as const), failures: 5 }),
    };
    expect(choosePartner(offers, price, goDown, RATES)?.partner).toBe('esim-access');
  });
});

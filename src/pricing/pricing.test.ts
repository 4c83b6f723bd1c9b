import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CURRENCIES, CURRENCY_RULES, RATE_BAND } from '../config/currencies.ts';
import type { PricingConfig } from '../config/pricing.ts';
import type { PerEuro } from './exchange-rates.ts';
import {
  enforceMonotonicPrices,
  netRevenueMinor,
  pricesInEveryCurrency,
  pricingFor,
  retailPrice,
  roundUpToEnding,
  wholesaleCostMinor,
  type PricedPlan,
} from './pricing.ts';

/** The ECB's rates of the fixture (tests/fixtures/ecb/eurofxref-daily.xml), per euro. */
const RATES: PerEuro = { USD: 1.1628, GBP: 0.878, CHF: 0.931, PLN: 4.235, JPY: 181.2, CAD: 1.625, AUD: 1.785, BRL: 6.21 };
const PRICING = pricingFor('EUR', RATES);

const usd = (dollars: number) => Math.round(dollars * 10_000);

describe('retailPrice', () => {
  it('turns a wholesale dollar price into a VAT-inclusive euro price ending in .49 or .99', () => {
    // $1.00 → €0.86 cost; ×2 + €0.25 fee = €1.97 net; ÷ (1/1.19 − 1.5 %) = €2.39 gross → €2.49.
    expect(retailPrice(usd(1), PRICING)).toEqual({ amountMinor: 249, currency: 'EUR' });
    expect(retailPrice(usd(25.73), PRICING)).toEqual({ amountMinor: 5399, currency: 'EUR' });
  });

  it('prices a typical 1 GB, 7-day plan (USD 0.70-2.50 wholesale) like a travel eSIM shop', () => {
    expect(retailPrice(usd(0.7), PRICING).amountMinor).toBe(199);
    expect(retailPrice(usd(2.5), PRICING).amountMinor).toBe(599);
  });

  it('charges the fixed payment fee even on a free package, and never less than Stripe takes', () => {
    // €0.25 fee ÷ 0.825 = €0.31, below Stripe's €0.50 minimum: €0.99, the first ending above it.
    expect(retailPrice(0, PRICING).amountMinor).toBe(99);
    expect(retailPrice(0, pricingFor('GBP', RATES)).amountMinor).toBe(49);
  });

  it('refuses a wholesale price that is not a whole, non-negative number of USD/10,000', () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => retailPrice(bad, PRICING)).toThrow(RangeError);
  });

  it('refuses a configuration that would sell below cost', () => {
    expect(() => retailPrice(10_000, { ...PRICING, markup: 0.9 })).toThrow(/markup must be at least 1/);
    expect(() => retailPrice(10_000, { ...PRICING, priceEndings: [] })).toThrow(/priceEndings/);
  });
});

const wholesale = fc.integer({ min: 0, max: 5_000_000 }); // up to USD 500
const config: fc.Arbitrary<PricingConfig> = fc.record({
  currency: fc.constantFrom('EUR', 'USD', 'GBP', 'PLN'),
  usdToRetail: fc.double({ min: 0.5, max: 5, noNaN: true }),
  markup: fc.double({ min: 1, max: 4, noNaN: true }),
  paymentFee: fc.record({ rate: fc.double({ min: 0, max: 0.06, noNaN: true }), fixedMinor: fc.integer({ min: 0, max: 100 }) }),
  vatRate: fc.double({ min: 0, max: 0.27, noNaN: true }),
  priceEndings: fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 4 }),
  endingEvery: fc.constant(100),
  minimumMinor: fc.integer({ min: 0, max: 200 }),
});

describe('retailPrice properties', () => {
  it('never sells below cost plus the payment fee, net of VAT', () => {
    fc.assert(
      fc.property(wholesale, config, (w, c) => {
        const { amountMinor } = retailPrice(w, c);
        expect(netRevenueMinor(amountMinor, c)).toBeGreaterThanOrEqual(wholesaleCostMinor(w, c) - 1e-9);
      }),
    );
  });

  it('gives whole minor units with an allowed ending, in the configured currency', () => {
    fc.assert(
      fc.property(wholesale, config, (w, c) => {
        const price = retailPrice(w, c);
        expect(Number.isInteger(price.amountMinor)).toBe(true);
        expect(c.priceEndings).toContain(price.amountMinor % 100);
        expect(price.currency).toBe(c.currency);
      }),
    );
  });

  it('never charges less for a dearer wholesale price', () => {
    fc.assert(
      fc.property(wholesale, wholesale, config, (a, b, c) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(retailPrice(low, c).amountMinor).toBeLessThanOrEqual(retailPrice(high, c).amountMinor);
      }),
    );
  });
});

describe('roundUpToEnding', () => {
  it('goes up to the next allowed ending, staying put on one', () => {
    expect(roundUpToEnding(201, [49, 99])).toBe(249);
    expect(roundUpToEnding(250, [49, 99])).toBe(299);
    expect(roundUpToEnding(299, [49, 99])).toBe(299);
    expect(roundUpToEnding(300, [49, 99])).toBe(349);
    expect(roundUpToEnding(0, [0])).toBe(0);
  });
});

const plan = (gb: number, days: number, amountMinor: number): PricedPlan => ({
  metadata: { dataAmount: { value: gb, unit: 'GB' } },
  validity: days,
  validityUnit: 'day',
  wholesaleUsdE4: 0,
  price: { amountMinor, currency: 'EUR' },
});
const amounts = (plans: PricedPlan[]) => plans.map((p) => p.price.amountMinor);

describe('enforceMonotonicPrices', () => {
  it('raises a larger plan that is cheaper than a smaller one of the same validity', () => {
    const plans = [plan(5, 30, 999), plan(10, 30, 949), plan(20, 30, 1999)];
    expect(amounts(enforceMonotonicPrices(plans, PRICING))).toEqual([999, 999, 1999]);
    expect(amounts(plans)).toEqual([999, 949, 1999]);
  });

  it('compares only plans of the same validity, and MB with GB', () => {
    const week = plan(3, 7, 499);
    const month = plan(5, 30, 449);
    const small: PricedPlan = { ...plan(0, 30, 549), metadata: { dataAmount: { value: 500, unit: 'MB' } } };
    expect(amounts(enforceMonotonicPrices([week, month, small], PRICING))).toEqual([499, 549, 549]);
  });

  it('compares a daily or unlimited plan only with plans counted alike: 1 GB a day is not a larger 1 GB plan', () => {
    const daily = (gb: number, amountMinor: number, kind: 'daily' | 'unlimited' = 'daily'): PricedPlan => ({
      ...plan(gb, 7, amountMinor),
      facts: { data: { kind } },
    });
    // A fixed 3 GB plan dearer than a 1 GB-a-day plan raises nothing; a 2 GB-a-day one below 1 GB a day is raised.
    const plans = [plan(3, 7, 999), daily(1, 449), daily(2, 399), daily(3, 349, 'unlimited')];
    expect(amounts(enforceMonotonicPrices(plans, PRICING))).toEqual([999, 449, 449, 349]);
  });

  it('leaves plans of the same size alone, and keeps their order', () => {
    const plans = [plan(10, 30, 1499), plan(1, 30, 299), plan(10, 30, 1399)];
    expect(enforceMonotonicPrices(plans, PRICING)).toEqual(plans);
  });

  const gigabytes = fc.constantFrom(1, 3, 5, 10, 20, 50);
  const validity = fc.constantFrom(7, 15, 30);
  const price = fc.integer({ min: 0, max: 200 }).map((n) => n * 50 + 49);
  const destination = fc.array(
    fc.tuple(gigabytes, validity, price).map(([g, d, p]) => plan(g, d, p)),
    { maxLength: 12 },
  );

  it('leaves no larger plan cheaper than a smaller one of the same validity, lowers nothing, and is stable', () => {
    fc.assert(
      fc.property(destination, (plans) => {
        const result = enforceMonotonicPrices(plans, PRICING);
        result.forEach((after, i) => {
          expect(after.price.amountMinor).toBeGreaterThanOrEqual(plans[i]!.price.amountMinor);
          expect([49, 99]).toContain(after.price.amountMinor % 100);
          for (const other of result) {
            const larger = after.metadata.dataAmount.value > other.metadata.dataAmount.value && after.validity === other.validity;
            if (larger) expect(after.price.amountMinor).toBeGreaterThanOrEqual(other.price.amountMinor);
          }
        });
        expect(enforceMonotonicPrices(result, PRICING)).toEqual(result);
      }),
    );
  });

  it('refuses plans priced in two currencies', () => {
    const dollars: PricedPlan = { ...plan(3, 30, 999), price: { amountMinor: 999, currency: 'USD' } };
    expect(() => enforceMonotonicPrices([plan(1, 30, 499), dollars], PRICING)).toThrow('priced in EUR and USD');
  });
});

describe('every currency its own price list (issue 34)', () => {
  const wholesales = fc.integer({ min: 0, max: 2_000_000 });

  it('holds the margin floor in every currency, even at the edge of the rate band', () => {
    fc.assert(
      fc.property(
        wholesales,
        fc.constantFrom(...CURRENCIES),
        fc.double({ min: -RATE_BAND, max: RATE_BAND, noNaN: true }),
        (w, currency, move) => {
          const config = pricingFor(currency, RATES);
          const { amountMinor } = retailPrice(w, config);
          // The dollar as dear as the band lets it get before the prices follow it.
          const cost = wholesaleCostMinor(w, { ...config, usdToRetail: config.usdToRetail * (1 + Math.abs(move)) });
          expect(netRevenueMinor(amountMinor, config)).toBeGreaterThanOrEqual(cost);
        },
      ),
    );
  });

  it("rounds each currency its own way and never below Stripe's minimum", () => {
    fc.assert(
      fc.property(wholesales, fc.constantFrom(...CURRENCIES), (w, currency) => {
        const { amountMinor } = retailPrice(w, pricingFor(currency, RATES));
        const rules = CURRENCY_RULES[currency];
        expect(rules.endings).toContain(amountMinor % rules.endingEvery);
        expect(amountMinor).toBeGreaterThanOrEqual(rules.stripeMinimumMinor);
      }),
    );
  });

  it('prices one plan in every currency: yen in whole tens, the others ending .49 or .99', () => {
    // $2.00 wholesale. In euros: €1.72 cost × 2 + €0.25 = €3.69 net ÷ 0.825 = €4.47 → €4.49. In yen, with
    // the dearer fee outside the euro: ¥311.7 × 2 + ¥46 = ¥669.3 ÷ (1/1.19 − 5.25 %) = ¥849.6 → ¥850.
    const [prices] = pricesInEveryCurrency([{ ...plan(1, 7, 0), wholesaleUsdE4: usd(2) }], RATES);
    expect(prices).toEqual({ EUR: 449, USD: 549, GBP: 449, CHF: 449, PLN: 1999, JPY: 850, CAD: 799, AUD: 849, BRL: 2949 });
  });

  it('keeps a larger plan at least as dear as a smaller one in every currency', () => {
    const plans = [
      { ...plan(1, 30, 0), wholesaleUsdE4: usd(2) },
      { ...plan(3, 30, 0), wholesaleUsdE4: usd(1.9) },
      { ...plan(5, 30, 0), wholesaleUsdE4: usd(4) },
    ];
    for (const prices of [pricesInEveryCurrency(plans, RATES)]) {
      for (const currency of CURRENCIES) {
        expect(prices[1]![currency]).toBeGreaterThanOrEqual(prices[0]![currency]);
        expect(prices[2]![currency]).toBeGreaterThanOrEqual(prices[1]![currency]);
      }
    }
  });

  it("follows the exchange rate: a dearer dollar raises the other currencies' prices", () => {
    const cheap = pricesInEveryCurrency([{ ...plan(5, 30, 0), wholesaleUsdE4: usd(10) }], RATES)[0]!;
    const dear = pricesInEveryCurrency([{ ...plan(5, 30, 0), wholesaleUsdE4: usd(10) }], { ...RATES, USD: 1.05 })[0]!;
    for (const currency of CURRENCIES) if (currency !== 'USD') expect(dear[currency]).toBeGreaterThan(cheap[currency]);
  });
});

import { describe, expect, it } from 'vitest';
import { convert, convertAtRates, currencyOf, shareOf } from './money.ts';

const RATES = { USD: 1.1628, GBP: 0.878, CHF: 0.931, PLN: 4.235, JPY: 181.2, CAD: 1.625, AUD: 1.785, BRL: 6.21 };

describe("the back office's conversions", () => {
  it('converts at the applied rates, minor units respected (yen have none)', () => {
    expect(convertAtRates(1000, 'EUR', 'EUR', RATES)).toBe(1000);
    expect(convertAtRates(1163, 'USD', 'EUR', RATES)).toBeCloseTo(1000.17, 2);
    expect(convertAtRates(1000, 'EUR', 'JPY', RATES)).toBeCloseTo(1812, 6);
    expect(convertAtRates(1812, 'JPY', 'USD', RATES)).toBeCloseTo(1162.8, 6);
  });

  it("converts at Stripe's rate for the charge where Stripe told what it settled, both ways, else at the applied rate", () => {
    const charge = { charged: { amountMinor: 1449, currency: 'USD' }, settled: { amountMinor: 1230, currency: 'EUR' } };
    expect(convert({ amountMinor: 1449, currency: 'USD' }, 'EUR', charge, RATES)).toEqual({ amountMinor: 1230, at: 'stripe' });
    expect(convert({ amountMinor: 123, currency: 'EUR' }, 'USD', charge, RATES)).toEqual({ amountMinor: 144.9, at: 'stripe' });
    expect(convert({ amountMinor: 90, currency: 'EUR' }, 'EUR', charge, RATES)).toEqual({ amountMinor: 90, at: 'same' });
    expect(convert({ amountMinor: 1449, currency: 'USD' }, 'EUR', { ...charge, settled: null }, RATES).at).toBe('applied');
    // Another currency than the charge's: Stripe's rate says nothing of it.
    expect(convert({ amountMinor: 100, currency: 'GBP' }, 'EUR', charge, RATES).at).toBe('applied');
  });

  it("gives an order its share of a cart's charge figures, and refuses a currency the shop does not charge in", () => {
    expect(shareOf(90, 1449, 1449)).toBe(90);
    expect(shareOf(100, 1000, 3000)).toBe(33);
    expect(shareOf(100, 1000, 0)).toBe(100);
    expect(currencyOf('USD')).toBe('USD');
    expect(() => currencyOf('XXX')).toThrow(/XXX/);
  });
});

import { describe, expect, it } from 'vitest';
import { applyRateBand, staleRates, type PerEuro } from './exchange-rates.ts';

const RATES: PerEuro = { USD: 1.1628, GBP: 0.878, CHF: 0.931, PLN: 4.235, JPY: 181.2, CAD: 1.625, AUD: 1.785, BRL: 6.21 };

describe('applyRateBand', () => {
  it('keeps the rate the prices use while the published one stays within 3 %, and follows a larger move', () => {
    const published = { ...RATES, USD: 1.1628 * 1.029, JPY: 181.2 * 0.96 };
    const applied = applyRateBand(published, RATES);
    expect(applied.USD).toBe(1.1628);
    expect(applied.JPY).toBe(published.JPY);
    expect(applied.GBP).toBe(0.878);
  });

  it('takes the published rates when there is nothing earlier', () => {
    expect(applyRateBand(RATES, undefined)).toEqual(RATES);
  });
});

describe('staleRates', () => {
  const now = new Date('2026-11-29T10:00:00Z');
  it("accepts last Friday's rates on a Sunday", () => {
    expect(staleRates({ date: '2026-11-27' }, now)).toBeUndefined();
  });
  it('refuses rates older than the set age, naming their date and how to renew them', () => {
    expect(staleRates({ date: '2026-11-01' }, now)).toMatch(/2026-11-01, 28 days old .*catalogue:generate/);
  });
  it('refuses rates dated in the future', () => {
    expect(staleRates({ date: '2026-12-05' }, now)).toMatch(/in the future/);
  });
});

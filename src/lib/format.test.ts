import { describe, expect, it } from 'vitest';
import { formatDataAmount, formatDateTime, formatPrice, formatValidity, majorUnits } from './format.ts';

describe('data and validity', () => {
  it('formats data with the language’s unit (Intl, not hand-typed strings)', () => {
    expect(formatDataAmount({ value: 10, unit: 'GB' }, 'fr')).toBe(
      new Intl.NumberFormat('fr', { style: 'unit', unit: 'gigabyte' }).format(10),
    );
    expect(formatDataAmount({ value: 500, unit: 'MB' }, 'en')).toMatch(/500\sMB/);
  });

  it('pluralises the validity per language: Polish and Arabic forms differ by number', () => {
    const polish = [1, 2, 5].map((n) => formatValidity(n, 'day', 'pl'));
    expect(new Set(polish).size).toBe(3);
    expect(polish[0]).toMatch(/^1\s/);
    const arabic = [1, 2, 3, 11].map((n) => formatValidity(n, 'day', 'ar'));
    expect(new Set(arabic).size).toBe(4);
  });
});

describe('money', () => {
  const euro = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });

  it('writes money as each language does (Intl), minor units per currency', () => {
    for (const locale of ['en', 'de', 'ar', 'ja', 'fr', 'ru'] as const) {
      expect(formatPrice(euro(499), locale)).toBe(new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(4.99));
    }
    expect(formatPrice({ amountMinor: 1500, currency: 'JPY' }, 'ja')).toBe(
      new Intl.NumberFormat('ja', { style: 'currency', currency: 'JPY' }).format(1500),
    );
    // Kuwaiti dinar: three minor digits.
    expect(formatPrice({ amountMinor: 1250, currency: 'KWD' }, 'ar')).toBe(
      new Intl.NumberFormat('ar', { style: 'currency', currency: 'KWD' }).format(1.25),
    );
  });

  it('turns minor units into major ones by the currency’s digits', () => {
    expect(majorUnits(euro(1999))).toBe(19.99);
    expect(majorUnits({ amountMinor: 1999, currency: 'JPY' })).toBe(1999);
    expect(majorUnits({ amountMinor: 1250, currency: 'KWD' })).toBe(1.25);
  });
});

describe('date and time', () => {
  it('writes the moment in the language, in UTC, with the time zone named', () => {
    const moment = new Date('2026-11-20T09:30:00Z');
    expect(formatDateTime(moment, 'en')).toContain('November 20, 2026');
    expect(formatDateTime(moment, 'en')).toMatch(/9:30\sAM UTC$/);
    expect(formatDateTime(moment, 'de')).toContain('20. November 2026');
    expect(formatDateTime(moment, 'ar')).toContain('نوفمبر');
  });
});

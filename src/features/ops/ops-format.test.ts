import { describe, expect, it } from 'vitest';
import { formatMoney, formatUsd, majorText, parseMajorAmount } from './ops-format.ts';

describe('back office money', () => {
  it('writes minor units as the language writes money', () => {
    expect(formatMoney({ amountMinor: 1999, currency: 'EUR' }, 'de')).toBe('19,99\u00a0€');
    expect(formatMoney({ amountMinor: 1999, currency: 'EUR' }, 'en')).toBe('€19.99');
    expect(formatMoney({ amountMinor: 500, currency: 'JPY' }, 'en')).toBe('¥500');
    expect(formatMoney({ amountMinor: -250, currency: 'EUR' }, 'en')).toBe('-€2.50');
  });

  it('keeps the partner’s dollar prices to four decimals', () => {
    expect(formatUsd(1.2345, 'en')).toBe('$1.2345');
    expect(formatUsd(12, 'de')).toBe('12,00\u00a0$');
  });

  it('reads an amount typed in major units, in either decimal mark', () => {
    expect(parseMajorAmount('12.50', 'EUR')).toBe(1250);
    expect(parseMajorAmount(' 12,5 ', 'EUR')).toBe(1250);
    expect(parseMajorAmount('12', 'EUR')).toBe(1200);
    expect(parseMajorAmount('0.01', 'EUR')).toBe(1);
    expect(parseMajorAmount('500', 'JPY')).toBe(500);
  });

  it('refuses what is not a positive amount of the currency', () => {
    for (const text of ['', '0', '0,00', '-1', '1.234', '1,2,3', '1e3', 'abc', '12.', '.5', '1 000', '5.5'])
      expect(parseMajorAmount(text, text === '5.5' ? 'JPY' : 'EUR'), text).toBeUndefined();
  });

  it('writes minor units back as the field takes them', () => {
    expect(majorText(1250, 'EUR')).toBe('12.50');
    expect(majorText(500, 'JPY')).toBe('500');
    expect(parseMajorAmount(majorText(999, 'USD'), 'USD')).toBe(999);
  });
});

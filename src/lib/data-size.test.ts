import { describe, expect, it } from 'vitest';
import { formatBytes, usedShare } from './data-size.ts';

const GB = 2 ** 30;
const MB = 2 ** 20;

describe('formatBytes', () => {
  it('writes gigabytes with one decimal in the language of the page', () => {
    expect(formatBytes(1.2 * GB, 'en')).toBe('1.2 GB');
    expect(formatBytes(1.8 * GB, 'de').replace(/\s/u, ' ')).toBe('1,8 GB');
    expect(formatBytes(3 * GB, 'en')).toBe('3 GB');
  });

  it('writes less than a gigabyte in megabytes, small amounts with a decimal', () => {
    expect(formatBytes(850 * MB, 'en')).toBe('850 MB');
    expect(formatBytes(2.5 * MB, 'fr')).toMatch(/^2,5\s?Mo$/);
    expect(formatBytes(0, 'en')).toBe('0 MB');
  });

  it('never shows 1,024 MB: just under a gigabyte is 1 GB', () => {
    expect(formatBytes(GB - 1000, 'en')).toBe('1 GB');
  });

  it('treats nonsense as nothing used', () => {
    expect(formatBytes(-5, 'en')).toBe('0 MB');
    expect(formatBytes(Number.NaN, 'en')).toBe('0 MB');
  });

  it('uses the language digits and unit names (Arabic)', () => {
    expect(formatBytes(3 * GB, 'ar')).toBe(new Intl.NumberFormat('ar', { style: 'unit', unit: 'gigabyte' }).format(3));
  });
});

describe('usedShare', () => {
  it('is the share used, kept between 0 and 1', () => {
    expect(usedShare(GB, 4 * GB)).toBe(0.25);
    expect(usedShare(5 * GB, 4 * GB)).toBe(1);
    expect(usedShare(0, 0)).toBe(0);
    expect(usedShare(10, 0)).toBe(1);
  });
});

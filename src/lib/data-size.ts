import type { Locale } from '../i18n/locales.ts';

/**
 * Bytes as a traveller reads data: '850 MB', '1.2 GB', in the page's language. The partner counts
 * in binary units (a 1 GB plan is 2^30 bytes), so the plan's '3 GB' and the bar's '3 GB' agree.
 */
const MB = 2 ** 20;
const GB = 2 ** 30;

export function formatBytes(bytes: number, locale: Locale): string {
  const safe = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  const megabytes = safe / MB;
  // 1023.97 MB would round to '1,024 MB': from there on it is a gigabyte.
  if (safe >= GB || Math.round(megabytes) >= 1024) return format(safe / GB, 'gigabyte', 1, locale);
  return format(megabytes, 'megabyte', megabytes < 10 ? 1 : 0, locale);
}

const format = (value: number, unit: 'megabyte' | 'gigabyte', fractionDigits: number, locale: Locale) =>
  new Intl.NumberFormat(locale, { style: 'unit', unit, maximumFractionDigits: fractionDigits }).format(value);

/** The share used, 0 to 1: a plan with no data (or more used than it holds) reads as empty or full, never beyond. */
export function usedShare(usedBytes: number, totalBytes: number): number {
  if (!(totalBytes > 0)) return usedBytes > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, usedBytes / totalBytes));
}

import { DEFAULT_LOCALE, matchLocale, type Locale } from './locales.ts';

/**
 * Which language an unprefixed (English) page should switch to, per DESIGN 2:
 * a language the visitor picked earlier wins; else the first browser language among ours;
 * else English stays. Returns undefined when the page should stay as it is.
 */
export function detectLocale(picked: Locale | undefined, browserLanguages: readonly string[]): Locale | undefined {
  const preferred = picked ?? browserLanguages.map(matchLocale).find((l) => l !== undefined) ?? DEFAULT_LOCALE;
  return preferred === DEFAULT_LOCALE ? undefined : preferred;
}

import { DEFAULT_LOCALE, LOCALE_CODES } from './locales.ts';
import { localizePath } from './paths.ts';

export interface Alternate {
  hreflang: string;
  href: string;
}

/** The absolute URL of a route in a language. */
export function absoluteUrl(site: string, path: string): string {
  return new URL(path, site).href;
}

/**
 * hreflang alternates of a route: one per language plus x-default (the English page,
 * which auto-detects the visitor's language).
 */
export function alternatesFor(site: string, route: string): Alternate[] {
  const perLocale = LOCALE_CODES.map((locale) => ({
    hreflang: locale,
    href: absoluteUrl(site, localizePath(locale, route)),
  }));
  return [...perLocale, { hreflang: 'x-default', href: absoluteUrl(site, localizePath(DEFAULT_LOCALE, route)) }];
}

import { DEFAULT_LOCALE, LOCALE_CODES, isLocale, type Locale } from './locales.ts';

/**
 * URL shape (DESIGN 2): English at the spec's routes ('/', '/store'), every other language
 * under a prefix ('/de/', '/de/store'). A language's home keeps its trailing slash.
 * `path` below is always the locale-neutral route: '/' or '/store'.
 */
export function localizePath(locale: Locale, path: string): string {
  const route = normalizeRoute(path);
  if (locale === DEFAULT_LOCALE) return route;
  return route === '/' ? `/${locale}/` : `/${locale}${route}`;
}

/** Splits a pathname into its language and its locale-neutral route. */
export function splitLocale(pathname: string): { locale: Locale; route: string } {
  const [, first, ...rest] = pathname.split('/');
  if (isLocale(first) && first !== DEFAULT_LOCALE) {
    return { locale: first, route: normalizeRoute('/' + rest.join('/')) };
  }
  return { locale: DEFAULT_LOCALE, route: normalizeRoute(pathname) };
}

function normalizeRoute(path: string): string {
  const trimmed = path
    .replace(/\/+$/, '')
    .replace(/\.html$/, '')
    .replace(/(^|\/)index$/, '');
  const route = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  return route.replace(/\/+$/, '') || '/';
}

/** The `lang` route parameter for a locale: undefined for English, so its pages are unprefixed. */
export function langParam(locale: Locale): string | undefined {
  return locale === DEFAULT_LOCALE ? undefined : locale;
}

export function localeFromParam(param: string | undefined): Locale {
  if (param === undefined) return DEFAULT_LOCALE;
  if (!isLocale(param) || param === DEFAULT_LOCALE) throw new Error(`Unknown locale segment "${param}"`);
  return param;
}

/** getStaticPaths for a page that exists once per language. */
export function localeStaticPaths() {
  return LOCALE_CODES.map((locale) => ({ params: { lang: langParam(locale) }, props: { locale } }));
}

/** The canonical form of a pathname ('/de' -> '/de/', '/store.html' -> '/store'). */
export function canonicalPath(pathname: string): string {
  const { locale, route } = splitLocale(pathname);
  return localizePath(locale, route);
}

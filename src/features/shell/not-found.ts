import { localizePath, splitLocale } from '../../i18n/paths.ts';

/**
 * The not-found pages that fit a missing path, nearest first, in the path's language:
 * /de/package/xx -> ['/de/package/404' ('Region or country not found'), '/de/404'].
 */
export function notFoundPages(pathname: string): string[] {
  const { locale, route } = splitLocale(pathname);
  const segments = route.split('/').filter(Boolean).slice(0, -1);
  const nested = segments.map((_, index) => localizePath(locale, `/${segments.slice(0, segments.length - index).join('/')}/404`));
  return [...nested, localizePath(locale, '/404')];
}

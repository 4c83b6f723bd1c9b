import { splitLocale } from '../../i18n/paths.ts';

/** Never the way back: a signed-in visitor arriving there is sent on again, in a loop. */
const AUTH_ROUTES = new Set(['/login', '/signup']);

/**
 * Where to go after login or sign-up: back to the guarded page that sent the visitor (?next=).
 * Decided on the URL the browser builds from it (its parser drops tabs and line breaks and
 * reads '\' as '/', so '/\t/evil.example' means '//evil.example'): only this origin passes,
 * never login or sign-up themselves, and the answer is that absolute URL, so the browser
 * goes exactly where was checked.
 */
export function safeNext(location: Pick<Location, 'search' | 'origin'>, fallback: string): string {
  const next = new URLSearchParams(location.search).get('next');
  if (!next) return fallback;
  let url: URL;
  try {
    url = new URL(next, location.origin);
  } catch {
    return fallback;
  }
  if (url.origin !== location.origin || isAuthPage(url.pathname)) return fallback;
  return url.href;
}

/** '/login', '/de/signup/', '/ar/login.html', '/%6Cogin', in any case and with doubled slashes. */
function isAuthPage(pathname: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // A stray '%' is just a character of the path.
  }
  return AUTH_ROUTES.has(splitLocale(path.toLowerCase().replace(/\/{2,}/g, '/')).route);
}

/** The login URL that brings the visitor back to `here` afterwards. */
export function loginUrl(loginPath: string, here: string): string {
  return `${loginPath}?next=${encodeURIComponent(here)}`;
}

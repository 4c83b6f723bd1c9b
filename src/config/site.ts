/**
 * Where the site lives and what it is called. The public URL comes from the environment
 * (PUBLIC_SITE_URL) so that canonical, hreflang and sitemap URLs are absolute and right
 * for each deployment; the default is a reserved example domain for local builds.
 */
export const SITE_NAME = 'Travel eSIM';

/** The brand colour: logo background, browser theme colour, app splash screen. */
export const BRAND_COLOR = '#6d28d9';

/** Pages behind the login guard (spec 2, DESIGN 2): a crawler only ever sees their loading state. */
export const GUARDED_ROUTES: readonly string[] = ['/profile', '/cart', '/checkout', '/payment-success', '/my-esim', '/history'];

/**
 * Pages that sign in through Google's or Apple's popup: login, sign-up, and the profile, which
 * re-authenticates that way before deleting an account. Only they load Google's popup helper.
 */
export const SIGN_IN_ROUTES: readonly string[] = ['/login', '/signup', '/profile'];

/** Shown by the service worker in place of a page that was never saved on the device. */
export const OFFLINE_ROUTE = '/offline';

/** The alert e-mails' unsubscribe link (issue 23): one person's token, nothing for a search engine. */
export const UNSUBSCRIBE_ROUTE = '/unsubscribe';

/** An automatic top-up's e-mail links (issue 49): pay a refused one, or turn them off; one person's token. */
export const AUTO_TOP_UP_ROUTE = '/auto-top-up';

/** A traveller's eSIM page (issue 33): one person's private link, nothing for a search engine. */
export const TRAVELLER_ROUTE = '/traveller';

/**
 * The back office (issue 30, DESIGN 8): for the provider's staff only, so never linked, indexed,
 * in the sitemap or kept by the service worker; in English and German (the provider is in Berlin).
 */
export const OPS_ROUTE = '/ops';
export const OPS_LOCALES = ['en', 'de'] as const;

/**
 * Routes that say something is missing, or serve one visitor only: kept out of search engines
 * (noindex, no canonical or hreflang) and out of the sitemap.
 */
export const NOINDEX_ROUTES: readonly string[] = [
  '/404',
  '/package',
  '/package/404',
  OFFLINE_ROUTE,
  UNSUBSCRIBE_ROUTE,
  AUTO_TOP_UP_ROUTE,
  TRAVELLER_ROUTE,
  ...GUARDED_ROUTES,
  OPS_ROUTE,
];

/**
 * Pages saved for reading offline in a language as soon as one page of that language has been
 * visited (issue 6); every other page is saved once it has been visited (My eSIMs too, whose
 * install codes link to the install guide: issue 15 item 8).
 */
export const OFFLINE_READING_ROUTES: readonly string[] = [
  '/',
  '/store',
  '/faq',
  '/install-esim',
  '/terms-conditions',
  '/privacy-policy',
  '/legal-notice',
];

export const DEFAULT_SITE_URL = 'https://esim.example.com';

export function siteUrl(env: Record<string, string | undefined> = process.env): string {
  const raw = env.PUBLIC_SITE_URL?.trim() || DEFAULT_SITE_URL;
  const url = new URL(raw);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`PUBLIC_SITE_URL must be an origin without a path, got "${raw}"`);
  }
  return url.origin;
}

/**
 * Where the site lives and what it is called. The public URL comes from the environment
 * (PUBLIC_SITE_URL) so that canonical, hreflang and sitemap URLs are absolute and right
 * for each deployment; the default is a reserved example domain for local builds.
 */
export const SITE_NAME = 'Travel eSIM';

/**
 * Routes that exist to say something is missing: kept out of search engines (noindex,
 * no canonical or hreflang) and out of the sitemap.
 */
/** Pages behind the login guard (spec 2, DESIGN 2): a crawler only ever sees their loading state. */
export const GUARDED_ROUTES: readonly string[] = ['/profile', '/checkout', '/payment-success', '/my-esim', '/history'];

export const NOINDEX_ROUTES: readonly string[] = ['/404', '/package', '/package/404', ...GUARDED_ROUTES];

export const DEFAULT_SITE_URL = 'https://esim.example.com';

export function siteUrl(env: Record<string, string | undefined> = process.env): string {
  const raw = env.PUBLIC_SITE_URL?.trim() || DEFAULT_SITE_URL;
  const url = new URL(raw);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`PUBLIC_SITE_URL must be an origin without a path, got "${raw}"`);
  }
  return url.origin;
}

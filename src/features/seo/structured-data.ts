import type { Package } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import { majorUnits } from '../../lib/format.ts';
import { PROVIDER } from '../../config/provider.ts';
import { SITE_NAME } from '../../config/site.ts';
import { LOCALE_CODES } from '../../i18n/locales.ts';

/** schema.org data serialised for a <script type="application/ld+json">: '<' is escaped so no text can close the element. */
export function jsonLd(data: Record<string, unknown>): string {
  return JSON.stringify({ '@context': 'https://schema.org', ...data }).replace(/</g, '\\u003c');
}

/** Who sells: the home page's Organization (logo and contact for search results). */
export function organizationData(site: string): Record<string, unknown> {
  return {
    '@type': 'Organization',
    name: SITE_NAME,
    url: new URL('/', site).href,
    logo: new URL('/icons/icon-512.png', site).href,
    contactPoint: {
      '@type': 'ContactPoint',
      contactType: 'customer support',
      email: PROVIDER.supportEmail,
      availableLanguage: [...LOCALE_CODES],
    },
  };
}

interface ProductInput {
  name: string;
  description: string;
  /** Absolute URLs. */
  url: string;
  image: string;
  packages: readonly Package[];
  /** The currency the page shows without a script (its language's, LOCALE_CURRENCY): the offers are in it. */
  currency: Currency;
}

/**
 * A destination's data plans as one Product with an AggregateOffer over its priced plans (the
 * form Google's product snippets accept: price range, currency, count, availability, URL), or
 * undefined when no plan has a price: a Product without an offer says nothing true and is not
 * eligible for rich results (DESIGN 2).
 */
export function productData({ name, description, url, image, packages, currency }: ProductInput): Record<string, unknown> | undefined {
  // One range, one currency: the page's, from each plan's price list in it.
  const amounts = packages.flatMap((pkg) => (pkg.price && pkg.prices ? [majorUnits({ amountMinor: pkg.prices[currency], currency })] : []));
  if (amounts.length === 0) return undefined;
  return {
    '@type': 'Product',
    name,
    description,
    url,
    image,
    brand: { '@type': 'Brand', name: SITE_NAME },
    offers: {
      '@type': 'AggregateOffer',
      priceCurrency: currency,
      lowPrice: Math.min(...amounts),
      highPrice: Math.max(...amounts),
      offerCount: amounts.length,
      availability: 'https://schema.org/InStock',
      url,
    },
  };
}

import type { Package } from '../../catalogue/schema.ts';
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
}

/**
 * A destination's data plans as one Product with an AggregateOffer over its priced plans (the
 * form Google's product snippets accept: price range, currency, count, availability, URL), or
 * undefined when no plan has a price: a Product without an offer says nothing true and is not
 * eligible for rich results (DESIGN 2).
 */
export function productData({ name, description, url, image, packages }: ProductInput): Record<string, unknown> | undefined {
  const priced = packages.flatMap((pkg) => (pkg.price ? [pkg.price] : []));
  const currency = priced[0]?.currency;
  if (!currency) return undefined;
  // One range, one currency: plans priced in another are left out of it.
  const amounts = priced.filter((price) => price.currency === currency).map(majorUnits);
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

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { LOCALE_CURRENCY } from '../../src/config/currencies.ts';
import { LOCALE_CODES, localeInfo } from '../../src/i18n/locales.ts';
import { majorUnits } from '../../src/lib/format.ts';
import { splitLocale } from '../../src/i18n/paths.ts';
import { type BuiltPage, DIST, SITE, builtPages, isIndexable } from '../support/dist.ts';

/** What a search engine or a link preview reads from a page (hreflang and canonical: head.test.ts). */
const pages = builtPages();
/** The build reads the committed snapshot when CATALOGUE_API_URL is not set, as in these tests. */
const catalogue = embeddedSnapshot();
const indexable = pages.filter(isIndexable);
const byPath = new Map(pages.map((p) => [p.path, p]));

const meta = (page: BuiltPage, selector: string) => page.doc.querySelector(selector)?.getAttribute('content');
const description = (page: BuiltPage) => meta(page, 'meta[name="description"]');
const structuredData = (page: BuiltPage) =>
  page.doc.querySelectorAll('script[type="application/ld+json"]').map((s) => JSON.parse(s.text) as Record<string, unknown>);

describe('titles and descriptions', () => {
  it.each(LOCALE_CODES)('%s: every indexable page has a description of its own', (locale) => {
    const descriptions = indexable.filter((p) => splitLocale(p.path).locale === locale).map((p) => description(p)!);
    // Long enough to say something (CJK says it in fewer characters), short enough not to be cut.
    for (const text of descriptions) expect(text.length, text).toBeGreaterThanOrEqual(locale === 'zh' || locale === 'ja' ? 12 : 40);
    for (const text of descriptions) expect(text.length, text).toBeLessThanOrEqual(200);
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('translates the description of every page', () => {
    for (const page of indexable.filter((p) => splitLocale(p.path).locale !== 'en')) {
      const english = byPath.get(splitLocale(page.path).route)!;
      expect(description(page), page.path).not.toBe(description(english));
    }
  });
});

describe('Open Graph', () => {
  it.each(pages.map((p) => [p.path, p] as const))('%s: title, description, language, image', (_, page) => {
    const { locale } = splitLocale(page.path);
    expect(meta(page, 'meta[property="og:title"]')).toBe(page.doc.querySelector('title')!.text);
    expect(meta(page, 'meta[property="og:description"]')).toBe(description(page));
    expect(meta(page, 'meta[property="og:locale"]')).toBe(localeInfo(locale).ogLocale);
    expect(page.doc.querySelectorAll('meta[property="og:locale:alternate"]')).toHaveLength(LOCALE_CODES.length - 1);
    const image = new URL(meta(page, 'meta[property="og:image"]')!);
    expect(image.origin).toBe(SITE);
    expect(existsSync(join(DIST, image.pathname))).toBe(true);
    if (isIndexable(page))
      expect(meta(page, 'meta[property="og:url"]')).toBe(page.doc.querySelector('link[rel="canonical"]')!.getAttribute('href'));
  });
});

describe('structured data (JSON-LD)', () => {
  it.each(LOCALE_CODES)('%s: Organization on the home page, FAQPage on the FAQ', (locale) => {
    const home = byPath.get(locale === 'en' ? '/' : `/${locale}/`)!;
    expect(structuredData(home)).toEqual([
      expect.objectContaining({ '@context': 'https://schema.org', '@type': 'Organization', url: `${SITE}/` }),
    ]);

    const faq = byPath.get(locale === 'en' ? '/faq' : `/${locale}/faq`)!;
    const [data] = structuredData(faq) as [{ '@type': string; mainEntity: { name: string; acceptedAnswer: { text: string } }[] }];
    expect(data['@type']).toBe('FAQPage');
    // The questions search engines are told about are the ones on the page.
    const questions = faq.doc.querySelectorAll('[data-accordion] button').map((b) => b.text.trim());
    expect(data.mainEntity.map((q) => q.name)).toEqual(questions);
    expect(data.mainEntity.every((q) => q.acceptedAnswer.text.length > 0)).toBe(true);
  });

  const packages = pages.filter((p) => /^\/package\/[^/]+$/.test(splitLocale(p.path).route) && isIndexable(p));
  it.each(packages.map((p) => [p.path, p] as const))('%s: a Product with offers if a plan is priced, none otherwise', (_, page) => {
    const { locale, route } = splitLocale(page.path);
    const code = route.split('/').pop()!;
    const plans = catalogue.packages.filter((p) => p.destination.toLowerCase() === code);
    // In the currency the page is written in without a script: yen on /ja/, złoty on /pl/, dollars on /ar/ and /zh/.
    const currency = LOCALE_CURRENCY[locale];
    const prices = plans.flatMap((p) => (p.prices ? [majorUnits({ amountMinor: p.prices[currency], currency })] : []));
    const data = structuredData(page);
    if (prices.length === 0) {
      expect(data).toEqual([]);
      return;
    }
    const [product] = data;
    expect(product).toMatchObject({
      '@type': 'Product',
      name: page.doc.querySelector('title')!.text.split(' · ')[0],
      url: `${SITE}${page.path}`,
    });
    // What Google's product snippets need: a price range in a currency, in stock, at this page.
    expect(product!.offers).toEqual({
      '@type': 'AggregateOffer',
      priceCurrency: currency,
      lowPrice: Math.min(...prices),
      highPrice: Math.max(...prices),
      offerCount: prices.length,
      availability: 'https://schema.org/InStock',
      url: `${SITE}${page.path}`,
    });
    expect(existsSync(join(DIST, new URL(product!.image as string).pathname))).toBe(true);
  });

  it('finds a priced plan on every package page of the committed snapshot', () => {
    expect(packages.length).toBeGreaterThan(0);
    expect(packages.every((page) => structuredData(page).length === 1)).toBe(true);
  });

  it('puts no structured data on other pages', () => {
    const others = pages.filter(
      (p) => !['/', '/faq'].includes(splitLocale(p.path).route) && !/^\/package\/[^/]+$/.test(splitLocale(p.path).route),
    );
    for (const page of others) expect(structuredData(page), page.path).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { LOCALE_CODES, localeInfo } from '../../src/i18n/locales.ts';
import { splitLocale } from '../../src/i18n/paths.ts';
import { NOINDEX_ROUTES, OPS_LOCALES, OPS_ROUTE } from '../../src/config/site.ts';
import { SITE, builtPages, fileForUrl, isIndexable } from '../support/dist.ts';

const pages = builtPages();
const indexable = pages.filter(isIndexable);

describe('head of every page', () => {
  it('builds every page in all 12 languages', () => {
    const perLocale = new Map<string, number>();
    // The back office is in its two languages only (OPS_LOCALES): every other page is in all 12.
    for (const p of pages.filter((page) => splitLocale(page.path).route !== OPS_ROUTE))
      perLocale.set(splitLocale(p.path).locale, (perLocale.get(splitLocale(p.path).locale) ?? 0) + 1);
    expect([...perLocale.keys()].sort()).toEqual([...LOCALE_CODES].sort());
    expect(new Set(perLocale.values()).size).toBe(1);
  });

  it.each(pages.map((p) => [p.path, p] as const))('%s: lang, dir and a title in its language', (_, page) => {
    const { locale } = splitLocale(page.path);
    const html = page.doc.querySelector('html')!;
    expect(html.getAttribute('lang')).toBe(locale);
    expect(html.getAttribute('dir')).toBe(localeInfo(locale).dir);
    expect(page.doc.querySelector('title')?.text.trim()).toBeTruthy();
  });

  it.each(indexable.map((p) => [p.path, p] as const))('%s: canonical and 13 hreflang alternates that exist', (_, page) => {
    const canonical = page.doc.querySelector('link[rel="canonical"]')?.getAttribute('href');
    expect(canonical).toBe(new URL(page.path, SITE).href);

    const alternates = page.doc
      .querySelectorAll('link[rel="alternate"][hreflang]')
      .map((l) => ({ hreflang: l.getAttribute('hreflang')!, href: l.getAttribute('href')! }));
    expect(alternates.map((a) => a.hreflang)).toEqual([...LOCALE_CODES, 'x-default']);
    for (const { hreflang, href } of alternates) {
      expect(href, hreflang).toMatch(/^https?:\/\//);
      expect(fileForUrl(href), `${hreflang} -> ${href}`).toBeDefined();
    }
    // The set names this page itself under its own language.
    expect(alternates.find((a) => a.hreflang === splitLocale(page.path).locale)?.href).toBe(canonical);
  });

  it.each(LOCALE_CODES)('%s: every page has its own title', (locale) => {
    const titles = indexable.filter((p) => splitLocale(p.path).locale === locale).map((p) => p.doc.querySelector('title')!.text);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('keeps the pages that say something is missing out of the index', () => {
    const missing = pages.filter((p) => !isIndexable(p));
    // Every such route in every language, but the back office only in its two (OPS_LOCALES).
    const ops = NOINDEX_ROUTES.includes(OPS_ROUTE) ? 1 : 0;
    expect(missing).toHaveLength((NOINDEX_ROUTES.length - ops) * LOCALE_CODES.length + ops * OPS_LOCALES.length);
    for (const page of missing) {
      expect(page.doc.querySelector('meta[name="robots"]')?.getAttribute('content')).toBe('noindex');
      expect(page.doc.querySelector('link[rel="canonical"]')).toBeNull();
    }
  });
});

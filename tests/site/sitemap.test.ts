import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';
import { DIST, SITE, builtPages, fileForUrl, isIndexable } from '../support/dist.ts';

const xml = (file: string) => parse(readFileSync(join(DIST, file), 'utf8'));

describe('sitemap and robots.txt', () => {
  const index = xml('sitemap-index.xml');
  const sitemapFiles = index.querySelectorAll('sitemap loc').map((loc) => new URL(loc.text).pathname.slice(1));
  const urls = sitemapFiles.flatMap((file) => xml(file).querySelectorAll('url'));
  const entries = new Map(
    urls.map((url) => [
      url.querySelector('loc')!.text,
      url.querySelectorAll('xhtml\\:link').map((l) => [l.getAttribute('hreflang'), l.getAttribute('href')] as const),
    ]),
  );

  it('robots.txt points at the sitemap', () => {
    expect(readFileSync(join(DIST, 'robots.txt'), 'utf8')).toContain(`Sitemap: ${SITE}/sitemap-index.xml`);
  });

  it('lists every indexable page once, and no page that says something is missing', () => {
    const expected = builtPages()
      .filter(isIndexable)
      .map((p) => new URL(p.path, SITE).href)
      .sort();
    expect([...entries.keys()].sort()).toEqual(expected);
  });

  it('gives every URL its 12 language alternates plus x-default, each an existing page', () => {
    for (const [loc, links] of entries) {
      expect(links.map(([lang]) => lang).sort(), loc).toEqual([...LOCALE_CODES, 'x-default'].sort());
      for (const [lang, href] of links) expect(fileForUrl(href!), `${loc} ${lang}`).toBeDefined();
    }
  });
});

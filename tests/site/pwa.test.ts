import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGETS } from '../../scripts/lib/page-weight.ts';
import { precache } from '../../scripts/lib/precache.ts';
import { LOCALE_CODES, localeInfo } from '../../src/i18n/locales.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { OFFLINE_ROUTE } from '../../src/config/site.ts';
import { DIST, builtPages, fileForUrl, SITE } from '../support/dist.ts';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): string {
  const png = readFileSync(file);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  return `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;
}

interface Manifest {
  id: string;
  name: string;
  short_name: string;
  lang: string;
  dir: string;
  start_url: string;
  scope: string;
  display: string;
  theme_color: string;
  background_color: string;
  icons: { src: string; sizes: string; type: string; purpose: string }[];
  shortcuts: { name: string; url: string }[];
}

describe('web app manifest', () => {
  const manifests = new Map(
    LOCALE_CODES.map((locale) => [
      locale,
      JSON.parse(readFileSync(join(DIST, localizePath(locale, '/manifest.webmanifest')), 'utf8')) as Manifest,
    ]),
  );

  it.each(LOCALE_CODES)('%s: an installable app that opens on the home page of its language', (locale) => {
    const manifest = manifests.get(locale)!;
    expect(manifest).toMatchObject({ id: '/', scope: '/', display: 'standalone', lang: locale, dir: localeInfo(locale).dir });
    expect(manifest.name.length).toBeGreaterThan(0);
    expect(manifest.short_name.length).toBeLessThanOrEqual(12);
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.start_url).toBe(localizePath(locale, '/'));
    for (const { url } of [{ url: manifest.start_url }, ...manifest.shortcuts])
      expect(fileForUrl(new URL(url, SITE).href), url).toBeDefined();
    if (locale !== 'en') expect(manifest.shortcuts.map((s) => s.name)).not.toEqual(manifests.get('en')!.shortcuts.map((s) => s.name));
  });

  it('has regular and maskable icons of the sizes it claims', () => {
    const { icons } = manifests.get('en')!;
    for (const icon of icons) expect(pngSize(join(DIST, icon.src)), icon.src).toBe(icon.sizes);
    expect(icons.filter((i) => i.purpose === 'any').map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(icons.some((i) => i.purpose === 'maskable' && i.sizes === '512x512')).toBe(true);
  });

  it('every page links the manifest of its own language', () => {
    for (const page of builtPages()) {
      const href = page.doc.querySelector('link[rel="manifest"]')?.getAttribute('href');
      expect(href, page.path).toBe(localizePath(page.doc.querySelector('html')!.getAttribute('lang') as 'en', '/manifest.webmanifest'));
    }
  });
});

describe('service worker precache', () => {
  const { urls, raw, missing } = precache(DIST);

  it('holds the offline page of every language and no other page', () => {
    expect(urls.filter((url) => url.endsWith('.html')).sort()).toEqual(
      LOCALE_CODES.map((locale) => `${localizePath(locale, OFFLINE_ROUTE).slice(1)}.html`).sort(),
    );
  });

  it(`stays within ${BUDGETS.precacheRaw / 1024 / 1024} MB, holding only files that exist and no Firebase code`, () => {
    expect(urls.length).toBeGreaterThan(LOCALE_CODES.length);
    expect(missing).toEqual([]);
    for (const url of urls.filter((u) => u.endsWith('.js'))) {
      expect(readFileSync(join(DIST, url), 'utf8'), url).not.toContain('identitytoolkit.googleapis.com');
    }
    expect(raw).toBeLessThanOrEqual(BUDGETS.precacheRaw);
  });
});

// @ts-check
import { defineConfig } from 'astro/config';
import react from '@astrojs/react';
import sitemap from '@astrojs/sitemap';
import tailwindcss from '@tailwindcss/vite';
import { LOCALE_CODES, DEFAULT_LOCALE } from './src/i18n/locales.ts';
import { NOINDEX_ROUTES, siteUrl } from './src/config/site.ts';
import { canonicalPath, splitLocale } from './src/i18n/paths.ts';

/** Sitemap URLs in the same canonical form as the pages' canonical and hreflang links. */
const canonical = (/** @type {string} */ url) => new URL(canonicalPath(new URL(url).pathname), url).href;

export default defineConfig({
  site: siteUrl(),
  output: 'static',
  // Tests that expect a build to fail point it elsewhere, so dist/ is never touched.
  outDir: process.env.ASTRO_OUT_DIR || './dist',
  // '/store' -> store.html and '/de/' -> de/index.html: the spec's routes, served by clean URLs.
  build: { format: 'preserve' },
  trailingSlash: 'ignore',
  i18n: {
    locales: [...LOCALE_CODES],
    defaultLocale: DEFAULT_LOCALE,
    routing: { prefixDefaultLocale: false },
  },
  integrations: [
    react(),
    sitemap({
      filter: (page) => !NOINDEX_ROUTES.includes(splitLocale(new URL(page).pathname).route),
      i18n: {
        defaultLocale: DEFAULT_LOCALE,
        locales: Object.fromEntries(LOCALE_CODES.map((code) => [code, code])),
      },
      serialize: (item) => {
        const links = (item.links ?? []).map((link) => ({ ...link, url: canonical(link.url) }));
        const english = links.find((link) => link.lang === DEFAULT_LOCALE);
        if (english) links.push({ lang: 'x-default', url: english.url });
        return { ...item, url: canonical(item.url), links };
      },
    }),
  ],
  vite: {
    plugins: [tailwindcss()],
    // Every script ships as a file, never inline, so the Content-Security-Policy needs no 'unsafe-inline'.
    build: { assetsInlineLimit: 0 },
  },
});

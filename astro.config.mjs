// @ts-check
import { defineConfig, envField } from 'astro/config';
import react from '@astrojs/react';
import sitemap from '@astrojs/sitemap';
import tailwindcss from '@tailwindcss/vite';
import AstroPWA from '@vite-pwa/astro';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadEnv } from 'vite';
import { LOCALE_CODES, DEFAULT_LOCALE } from './src/i18n/locales.ts';
import { DEFAULT_SITE_URL, NOINDEX_ROUTES, siteUrl } from './src/config/site.ts';
import { apiBaseUrl, checkBuildEnv, DEFAULT_AUTH_EMULATOR_URL } from './src/config/env.ts';
import { canonicalPath, splitLocale } from './src/i18n/paths.ts';

/** Sitemap URLs in the same canonical form as the pages' canonical and hreflang links. */
const canonical = (/** @type {string} */ url) => new URL(canonicalPath(new URL(url).pathname), url).href;

const outDir = process.env.ASTRO_OUT_DIR || './dist';
/** The environment as astro:env sees it: .env files, overridden by the process's variables. */
const env = loadEnv(process.env.NODE_ENV ?? 'production', process.cwd(), '');
/** A variable the browser reads; the Firebase ones are optional one by one, checkBuildEnv decides together. */
const publicOptional = () => envField.string({ context: 'client', access: 'public', optional: true });
/**
 * Firebase needs the network anyway: its code, and every chunk that imports it (the account
 * islands), is not precached, which saves hundreds of KB on a first visit over hotel Wi-Fi.
 * @type {(url: string, seen?: Set<string>) => boolean}
 */
const needsNetwork = (url, seen = new Set()) => {
  if (!url.endsWith('.js') || seen.has(url)) return false;
  seen.add(url);
  const code = readFileSync(join(outDir, url), 'utf8');
  if (code.includes('identitytoolkit.googleapis.com')) return true;
  return [...code.matchAll(/from\s*"\.\/([^"]+)"/g)].some(([, file]) => needsNetwork(`_astro/${file}`, seen));
};

export default defineConfig({
  site: siteUrl(env),
  // Every variable the site reads, in one place (docs/going-live.md: Configuration); the rules between them are checkBuildEnv's.
  env: {
    schema: {
      PUBLIC_SITE_URL: envField.string({ context: 'client', access: 'public', url: true, default: DEFAULT_SITE_URL }),
      PUBLIC_FIREBASE_API_KEY: publicOptional(),
      PUBLIC_FIREBASE_AUTH_DOMAIN: publicOptional(),
      PUBLIC_FIREBASE_PROJECT_ID: publicOptional(),
      PUBLIC_FIREBASE_APP_ID: publicOptional(),
      PUBLIC_FIREBASE_AUTH_EMULATOR_URL: envField.string({
        context: 'client',
        access: 'public',
        url: true,
        default: DEFAULT_AUTH_EMULATOR_URL,
      }),
      // Where the pages reach the shop API: /api behind Hosting's rewrite, the local API otherwise.
      PUBLIC_API_BASE_URL: envField.string({ context: 'client', access: 'public', default: apiBaseUrl(env) }),
      CATALOGUE_API_URL: envField.string({ context: 'server', access: 'public', url: true, optional: true }),
    },
  },
  output: 'static',
  // Tests that expect a build to fail point it elsewhere, so dist/ is never touched.
  outDir,
  // '/store' -> store.html and '/de/' -> de/index.html: the spec's routes, served by clean URLs.
  build: { format: 'preserve' },
  trailingSlash: 'ignore',
  i18n: {
    locales: [...LOCALE_CODES],
    defaultLocale: DEFAULT_LOCALE,
    routing: { prefixDefaultLocale: false },
  },
  integrations: [
    {
      // Only a build publishes: `astro dev` and `astro check` may run on any configuration.
      name: 'build-env',
      hooks: { 'astro:config:setup': ({ command }) => (command === 'build' ? checkBuildEnv(env) : undefined) },
    },
    react(),
    // The service worker (src/features/pwa/sw.ts). The manifests are pages of their own
    // (one per language) and registration is ours (ServiceWorkerRegistration.astro).
    AstroPWA({
      strategies: 'injectManifest',
      srcDir: 'src/features/pwa',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: false,
      // Explicit, or a build to ASTRO_OUT_DIR outside the project writes an empty worker elsewhere.
      outDir: resolve(outDir),
      mode: 'production',
      injectManifest: {
        // Code, styles, flags, icons and the offline page of every language: never the pages
        // themselves (they are saved as they are visited, DESIGN 3: precache <= 2 MB).
        minify: true,
        globPatterns: ['_astro/*.{js,css}', 'flags/*.svg', 'icons/icon-*.png', 'favicon.svg', '**/offline.html'],
        manifestTransforms: [
          async (entries) => {
            const manifest = entries.filter((entry) => !needsNetwork(entry.url));
            // Workbox only warns when the globs find nothing: a worker without offline pages must not ship.
            if (!manifest.some((entry) => entry.url.endsWith('offline.html')))
              throw new Error('The service worker precaches no offline page');
            return { manifest, warnings: [] };
          },
        ],
      },
    }),
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
    build: {
      assetsInlineLimit: 0,
      rolldownOptions: {
        output: {
          codeSplitting: {
            groups: [
              // React and its JSX runtime, which every island needs, as one file.
              { name: 'react', test: /\/node_modules\/react\/(index|jsx-runtime|cjs\/react(-jsx-runtime)?\.production)\.js$/, priority: 2 },
              // The form widgets the form islands share, as one file (as FormParts.tsx was before it was split):
              // a chunk each costs the sign-in page more bytes of imports than they weigh.
              {
                name: 'form-widgets',
                test: /\/src\/ui\/(Field|EmailField|PasswordField|ErrorBox|Notice|SubmitButton|use-hydrated)\.tsx?$/,
                priority: 1,
              },
            ],
          },
        },
      },
    },
  },
});

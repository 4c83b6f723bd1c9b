/// <reference lib="webworker" />
// The service worker (issue 6): the site's code, styles, flags and offline pages are precached;
// pages are network-first so a new deployment shows at once, and kept for reading offline.
import { clientsClaim } from 'workbox-core';
import type { WorkboxPlugin } from 'workbox-core/types.js';
import { ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { registerRoute, setCatchHandler } from 'workbox-routing';
import { NetworkFirst } from 'workbox-strategies';
import { OFFLINE_READING_ROUTES, OFFLINE_ROUTE } from '../../config/site.ts';
import { canonicalPath, localizePath, splitLocale } from '../../i18n/paths.ts';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

const PAGES_CACHE = 'pages';
/** Enough for a trip's worth of destinations, bounded so the device's storage is not filled. */
const MAX_SAVED_PAGES = 200;
/** On slow hotel Wi-Fi a saved copy after 5 s beats a blank screen; the copy refreshes next time. */
const NETWORK_TIMEOUT_SECONDS = 5;

// A new deployment takes over at once (no waiting for every tab to close), so nobody stays on stale code.
self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

/** One cache entry per page, whatever the URL form ('/de' and '/de/', '/store.html', '?next=...'). */
const pageKey = (url: string) => new URL(canonicalPath(new URL(url).pathname), self.location.origin).href;

const pages = new NetworkFirst({
  cacheName: PAGES_CACHE,
  networkTimeoutSeconds: NETWORK_TIMEOUT_SECONDS,
  plugins: [
    { cacheKeyWillBeUsed: async ({ request }) => pageKey(request.url) },
    // Workbox's own plugin, typed without exactOptionalPropertyTypes in mind.
    new ExpirationPlugin({ maxEntries: MAX_SAVED_PAGES }) as WorkboxPlugin,
  ],
});

registerRoute(
  ({ request, url }) => request.mode === 'navigate' && url.origin === self.location.origin,
  async (options) => {
    options.event.waitUntil(saveMissing(readingPages(options.url.href)));
    return pages.handle(options);
  },
);

// A page that was never saved: the offline page of its language instead of the browser's error.
setCatchHandler(async ({ request, url }) => {
  if (request.mode !== 'navigate') return Response.error();
  const offline = await matchPrecache(`${localizePath(splitLocale(url.pathname).locale, OFFLINE_ROUTE)}.html`);
  return offline ?? Response.error();
});

/** The pages a traveller reads offline in the language of a URL: home, store, FAQ, legal texts. */
const readingPages = (url: string) => {
  const { locale } = splitLocale(new URL(url).pathname);
  return OFFLINE_READING_ROUTES.map((route) => pageKey(new URL(localizePath(locale, route), self.location.origin).href));
};

/** Saves the pages not saved yet; saved ones are kept fresh by the network-first route. */
async function saveMissing(keys: Iterable<string>): Promise<void> {
  const cache = await caches.open(PAGES_CACHE);
  await Promise.all(
    [...new Set(keys)].map(async (key) => {
      if (await cache.match(key)) return;
      const response = await fetch(key).catch(() => undefined);
      if (response?.ok) await cache.put(key, response);
    }),
  );
}

/** Saved copies of the previous deployment reference its code: refresh them all, keep a copy if offline. */
async function refreshSavedPages(): Promise<void> {
  const cache = await caches.open(PAGES_CACHE);
  const keys = await cache.keys();
  await Promise.all(
    keys.map(async (request) => {
      const response = await fetch(request.url, { cache: 'no-cache' }).catch(() => undefined);
      if (response?.ok) await cache.put(request.url, response);
    }),
  );
}

// The first visit happens before the worker exists: save the pages open right now, and their languages.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      await refreshSavedPages();
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.map((client) => client.url).filter((url) => new URL(url).origin === self.location.origin);
      await saveMissing(open.flatMap((url) => [pageKey(url), ...readingPages(url)]));
    })(),
  );
});

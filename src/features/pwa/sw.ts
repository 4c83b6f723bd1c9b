/// <reference lib="webworker" />
// The service worker (issue 6): the site's code, styles, flags and offline pages are precached;
// pages are network-first so a new deployment shows at once, and kept for reading offline.
import { clientsClaim } from 'workbox-core';
import type { WorkboxPlugin } from 'workbox-core/types.js';
import { ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { registerRoute, setCatchHandler } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { OFFLINE_READING_ROUTES, OFFLINE_ROUTE, OPS_ROUTE } from '../../config/site.ts';
import { canonicalPath, localizePath, splitLocale } from '../../i18n/paths.ts';
import { mapLimited } from '../../lib/map-limited.ts';
import { listenForPush } from './push-notifications.ts';
import { SKIP_WAITING } from './update.ts';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

const PAGES_CACHE = 'pages';
/** The account pages' code (Firebase), which the precache leaves out (astro.config.mjs needsNetwork). */
const ACCOUNT_CODE_CACHE = 'account-code';
/** A few deployments' worth of the account islands' chunks. */
const MAX_ACCOUNT_CHUNKS = 80;
const ACCOUNT_CODE_MAX_AGE_SECONDS = 60 * 60 * 24 * 60;
/** Enough for a trip's worth of destinations, bounded so the device's storage is not filled. */
const MAX_SAVED_PAGES = 200;
/** On slow hotel Wi-Fi a saved copy after 5 s beats a blank screen; the copy refreshes next time. */
const NETWORK_TIMEOUT_SECONDS = 5;
/** Saving in the background: a few pages at a time, so the reader's own requests never queue behind 200. */
const SAVE_CONCURRENCY = 4;
const SAVE_TIMEOUT_MS = 10_000;
/** Saving started by the activation; navigations wait on it (waitUntil) so the worker lives until it ends. */
let saving: Promise<void> = Promise.resolve();

// The first worker takes control of the open page at once, so it reads offline after a first visit.
// A later one waits while pages run the previous deployment's code (its precache still serves their
// chunks) until the reader chooses 'Reload' (UpdateNotice.astro) or every tab has closed.
clientsClaim();
self.addEventListener('message', (event) => {
  if (event.data?.type === SKIP_WAITING) void self.skipWaiting();
});
// Alerts by Web Push (issue 23): the notification, and a click that opens My eSIMs or the top-up.
listenForPush(self);
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

// The account pages' code is kept once a guarded page has loaded it, so My eSIMs and its install
// codes open offline after a visit (issue 15 item 8). Hashed names never change: cache first.
registerRoute(
  ({ request, url }) => url.origin === self.location.origin && url.pathname.startsWith('/_astro/') && request.destination === 'script',
  new CacheFirst({
    cacheName: ACCOUNT_CODE_CACHE,
    plugins: [
      { cacheWillUpdate: async ({ response }) => (response.status === 200 ? response : null) },
      new ExpirationPlugin({ maxEntries: MAX_ACCOUNT_CHUNKS, maxAgeSeconds: ACCOUNT_CODE_MAX_AGE_SECONDS }) as WorkboxPlugin,
    ],
  }),
);

/** One cache entry per page, whatever the URL form ('/de' and '/de/', '/store.html', '?next=...'). */
const pageKey = (url: string) => new URL(canonicalPath(new URL(url).pathname), self.location.origin).href;

const pages = new NetworkFirst({
  cacheName: PAGES_CACHE,
  networkTimeoutSeconds: NETWORK_TIMEOUT_SECONDS,
  plugins: [
    { cacheKeyWillBeUsed: async ({ request }) => pageKey(request.url) },
    { cacheWillUpdate: async ({ response }) => (savable(response) ? response : null) },
    // Workbox's own plugin, typed without exactOptionalPropertyTypes in mind.
    new ExpirationPlugin({ maxEntries: MAX_SAVED_PAGES }) as WorkboxPlugin,
  ],
});

/** The back office (DESIGN 8) is never answered from a cache: its navigations go to the network, untouched. */
const isOps = (url: URL) => splitLocale(url.pathname).route === OPS_ROUTE;

registerRoute(
  ({ request, url }) => request.mode === 'navigate' && url.origin === self.location.origin && !isOps(url),
  async (options) => {
    // Also keeps the worker alive while it saves in the background after an activation.
    options.event.waitUntil(Promise.all([saving, saveMissing(readingPages(options.url.href))]));
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

/**
 * Only a page's own full answer is kept: offline, a saved error page or redirect would stand in
 * for the page (and a browser refuses a redirected response to a navigation). Workbox's default
 * would even keep an opaque redirect.
 */
const savable = (response: Response | undefined): response is Response =>
  response?.status === 200 && response.type === 'basic' && !response.redirected;

/** Fetches a page and saves it if savable; a failure or a timeout keeps what was saved before. */
async function save(cache: Cache, key: string, init: RequestInit = {}): Promise<void> {
  try {
    const response = await fetch(key, { ...init, signal: AbortSignal.timeout(SAVE_TIMEOUT_MS) });
    if (savable(response)) await cache.put(key, response);
  } catch {
    // Offline, slow or aborted mid-body: the page is saved on a later visit.
  }
}

/** Saves the pages not saved yet; saved ones are kept fresh by the network-first route. */
async function saveMissing(keys: Iterable<string>): Promise<void> {
  const cache = await caches.open(PAGES_CACHE);
  const missing = [];
  for (const key of new Set(keys)) if (!(await cache.match(key))) missing.push(key);
  await mapLimited(missing, SAVE_CONCURRENCY, (key) => save(cache, key));
}

/** Saved copies of the previous deployment reference its code: refresh them all, keep a copy if offline. */
async function refreshSavedPages(): Promise<void> {
  const cache = await caches.open(PAGES_CACHE);
  const keys = (await cache.keys()).map((request) => request.url);
  await mapLimited(keys, SAVE_CONCURRENCY, (key) => save(cache, key, { cache: 'no-cache' }));
}

// Beside the activation, not inside its waitUntil: requests wait for an activating worker, so
// refreshing up to 200 pages there would hold every request of the open pages meanwhile.
// The first visit happens before the worker exists: save the pages open right now, and their languages.
self.addEventListener('activate', () => {
  saving = (async () => {
    await refreshSavedPages();
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.map((client) => client.url).filter((url) => new URL(url).origin === self.location.origin && !isOps(new URL(url)));
    await saveMissing(open.flatMap((url) => [pageKey(url), ...readingPages(url)]));
  })();
});

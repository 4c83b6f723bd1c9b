import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { chromium, expect, test, type Page } from '@playwright/test';
import { parse } from 'node-html-parser';
import { createStaticServer, listen } from '../../scripts/lib/static-server.ts';
import { OFFLINE_READING_ROUTES } from '../../src/config/site.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { messages, speak } from './support.ts';

// The worker is what these tests are about (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const DIST = new URL('../../dist/', import.meta.url);
const builtTitle = (path: string) => {
  const file = path.endsWith('/') ? `${path}index.html` : `${path}.html`;
  return parse(readFileSync(new URL(`.${file}`, DIST), 'utf8')).querySelector('title')!.text;
};
const offlineText = (locale: string) => messages(locale, 'common').offline;

/**
 * The built site on a port of its own, so a test can cut the network (stop the server) or
 * publish a new deployment (serve changed files) while the browser keeps its worker.
 */
async function ownSite() {
  const files = createStaticServer(new URL(DIST).pathname);
  const deployed = new Map<string, { type: string; body: string }>();
  const server = createServer((req, res) => {
    const changed = deployed.get(new URL(req.url ?? '/', 'http://site').pathname);
    if (!changed) return void files.emit('request', req, res);
    res.writeHead(200, { 'Content-Type': changed.type, 'Cache-Control': 'no-cache' });
    res.end(changed.body);
  });
  const url = await listen(server, 0);
  return {
    url,
    deploy: (path: string, type: string, body: string) => deployed.set(path, { type, body }),
    goOffline: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Waits until the worker controls the page and has saved these pages for reading offline. */
async function waitUntilSaved(page: Page, paths: readonly string[]): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect
    .poll(() => page.evaluate(async (all) => (await Promise.all(all.map((p) => caches.match(p)))).filter((r) => !r).length, paths), {
      timeout: 30_000,
    })
    .toBe(0);
}

test('after a first visit, the language’s main pages and the visited page read offline; others show the offline page', async ({ page }) => {
  const site = await ownSite();
  await speak(page, 'de');
  const visited = '/de/package/jp';
  await page.goto(site.url + visited);
  const reading = OFFLINE_READING_ROUTES.map((route) => localizePath('de', route));
  await waitUntilSaved(page, [visited, ...reading]);

  await site.goOffline();
  for (const path of [...reading, visited]) {
    await page.goto(site.url + path);
    await expect(page, path).toHaveTitle(builtTitle(path));
  }
  // Saved pages keep their styles, scripts and flags (precached).
  await page.goto(site.url + '/de/store');
  await expect(page.locator('main img').first()).toHaveJSProperty('complete', true);
  expect(await page.locator('body').evaluate((body) => getComputedStyle(body).paddingBottom)).not.toBe('0px');

  // A page never visited: the offline page in the page's language, with a way on.
  await page.goto(site.url + '/de/package/fr');
  const text = offlineText('de');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(text.title);
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await page.getByRole('link', { name: 'Shop' }).first().click();
  await expect(page).toHaveTitle(builtTitle('/de/store'));
});

test('the offline page speaks the language of the page asked for, right-to-left in Arabic', async ({ page }) => {
  const site = await ownSite();
  await speak(page, 'ar');
  await page.goto(site.url + '/ar/faq');
  await waitUntilSaved(page, ['/ar/faq']);
  await site.goOffline();
  await page.goto(site.url + '/ar/package/jp');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(offlineText('ar').title);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByRole('button', { name: offlineText('ar').retry })).toBeVisible();
});

test('a new deployment replaces the worker and the saved pages, so nobody reads stale pages offline', async ({ page }) => {
  const site = await ownSite();
  await speak(page, 'en');
  await page.goto(site.url + '/faq');
  await waitUntilSaved(page, ['/faq', '/terms-conditions']);

  // Deployment 2: a changed worker and a changed legal page the visitor saved but did not reopen.
  const worker = readFileSync(new URL('sw.js', DIST), 'utf8');
  site.deploy('/sw.js', 'text/javascript', `${worker}\n// deployment 2\n`);
  const terms = readFileSync(new URL('terms-conditions.html', DIST), 'utf8');
  site.deploy('/terms-conditions', 'text/html; charset=utf-8', terms.replace(/<title>[^<]*<\/title>/, '<title>Terms, deployment 2</title>'));

  // The browser finds the changed worker on the next navigation; it takes over the open page at
  // once (no waiting for every tab to close) and refreshes the pages saved by the old one.
  const newWorker = page.context().waitForEvent('serviceworker');
  await page.reload();
  await newWorker;
  await expect.poll(() => page.evaluate(async () => (await (await caches.match('/terms-conditions'))?.text())?.includes('deployment 2'))).toBe(true);

  await site.goOffline();
  await page.goto(site.url + '/terms-conditions');
  await expect(page).toHaveTitle('Terms, deployment 2');
});

test('Chromium finds the site installable', async ({ baseURL }, testInfo) => {
  // Not in an incognito context (Playwright's default), where Chromium never offers installation.
  const context = await chromium.launchPersistentContext(testInfo.outputPath('profile'), { ...testInfo.project.use.launchOptions, baseURL: baseURL! });
  try {
    const page = await context.newPage();
    await page.goto('/');
    await page.evaluate(() => navigator.serviceWorker.ready);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    const { url, errors } = await cdp.send('Page.getAppManifest');
    expect(errors).toEqual([]);
    expect(new URL(url).pathname).toBe('/manifest.webmanifest');
  } finally {
    await context.close();
  }
});

test('the German page offers the German app', async ({ page }) => {
  await speak(page, 'de');
  await page.goto('/de/store');
  const cdp = await page.context().newCDPSession(page);
  const { data } = await cdp.send('Page.getAppManifest');
  expect(JSON.parse(data!)).toMatchObject({ lang: 'de', start_url: '/de/' });
});

test('a worker that cannot be registered is only logged; the page works on', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  // A worker served as plain text: the browser refuses to register it.
  const site = await ownSite();
  site.deploy('/sw.js', 'text/plain', 'not a worker');
  await speak(page, 'en');
  await page.goto(site.url + '/store');
  await expect.poll(() => errors.join('\n')).toContain('Service worker registration failed');
  await page.getByRole('searchbox').fill('japan');
  await expect(page.getByRole('link', { name: /Japan/ }).first()).toBeVisible();
});

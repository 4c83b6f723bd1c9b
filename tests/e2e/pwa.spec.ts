import { readFileSync } from 'node:fs';
import { chromium, expect, test } from '@playwright/test';
import { parse } from 'node-html-parser';
import { OFFLINE_READING_ROUTES } from '../../src/config/site.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { checkForUpdate, DIST, isSaved, ownSite, pathOf, reloadOntoUpdate, waitUntilSaved } from './own-site.ts';
import { messages, speak } from './support.ts';

// The worker is what these tests are about (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const builtTitle = (path: string) => {
  const file = path.endsWith('/') ? `${path}index.html` : `${path}.html`;
  return parse(readFileSync(new URL(`.${file}`, DIST), 'utf8')).querySelector('title')!.text;
};
const offlineText = (locale: string) => messages(locale, 'common').offline;

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
  site.deploy(
    '/terms-conditions',
    'text/html; charset=utf-8',
    terms.replace(/<title>[^<]*<\/title>/, '<title>Terms, deployment 2</title>'),
  );

  // The browser finds the changed worker; the reader's Reload lets it take over, and it refreshes
  // the pages saved by the old one.
  await checkForUpdate(page);
  await reloadOntoUpdate(page, 'en');
  await expect
    .poll(() => page.evaluate(async () => (await (await caches.match('/terms-conditions'))?.text())?.includes('deployment 2')))
    .toBe(true);

  await site.goOffline();
  await page.goto(site.url + '/terms-conditions');
  await expect(page).toHaveTitle('Terms, deployment 2');
});

test('only a page’s own answer is saved for offline: never a redirect or an error page', async ({ page }) => {
  const site = await ownSite();
  // Two of the pages saved after a first visit, and two pages visited, answer otherwise.
  const answers: Record<string, [number, Record<string, string>]> = {
    '/privacy-policy': [302, { Location: '/faq' }],
    '/legal-notice': [500, {}],
    '/package/jp': [301, { Location: '/package/de' }],
    '/package/fr': [500, {}],
  };
  site.use((req, res, next) => {
    const answer = answers[pathOf(req)];
    if (!answer) return next();
    res.writeHead(answer[0], { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', ...answer[1] });
    res.end('<!doctype html><title>Not the page</title>');
  });
  await speak(page, 'en');
  await page.goto(site.url + '/faq');
  await waitUntilSaved(page, ['/', '/store', '/faq', '/terms-conditions']);

  // Through the worker's network-first route.
  await page.goto(site.url + '/package/jp');
  await expect(page).toHaveURL(/\/package\/de$/);
  await page.goto(site.url + '/package/fr');
  await expect(page).toHaveTitle('Not the page');
  await waitUntilSaved(page, ['/package/de']);

  for (const path of Object.keys(answers)) expect(await isSaved(page, path), path).toBe(false);
});

test('Chromium finds the site installable', async ({ baseURL }, testInfo) => {
  // Not in an incognito context (Playwright's default), where Chromium never offers installation.
  const context = await chromium.launchPersistentContext(testInfo.outputPath('profile'), {
    ...testInfo.project.use.launchOptions,
    baseURL: baseURL!,
  });
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

import { expect, test } from '@playwright/test';
import { precache } from '../../scripts/lib/precache.ts';
import { OFFLINE_READING_ROUTES } from '../../src/config/site.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { checkForUpdate, DIST, ownSite, pathOf, reloadOntoUpdate, waitUntilSaved } from './own-site.ts';
import { hydrated, messages, speak } from './support.ts';

// A new deployment under open tabs: what the worker does about it (sw.ts, UpdateNotice.astro).
test.use({ serviceWorkers: 'allow' });

/** How long each saved page takes to answer while the new worker refreshes them. */
const SLOW_PAGE_MS = 3_000;

for (const locale of ['en', 'ar'] as const) {
  test(`a tab open across a deployment keeps its code, offers the new version (${locale}), and Reload moves it onto it`, async ({
    page,
  }) => {
    const site = await ownSite();
    const failed: string[] = [];
    page.on('response', (response) => response.status() >= 400 && failed.push(response.url()));
    await speak(page, locale);
    const path = localizePath(locale, '/package/jp');
    await page.goto(site.url + path);
    await waitUntilSaved(page, [path]);

    // A first visit on this origin: the cookie banner is open too.
    const text = messages(locale, 'common');
    const banner = page.getByRole('region', { name: text.consent.label });
    const bannerBefore = await banner.boundingBox();

    // The next build: new chunk names, the old ones gone from the server.
    site.deployNewBuild();
    await checkForUpdate(page);
    const notice = page.getByRole('status').filter({ hasText: text.update.ready });
    await expect(notice).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('dir', locale === 'ar' ? 'rtl' : 'ltr');
    // It appears above the banner without moving it.
    expect(bannerBefore).not.toBeNull();
    expect(await banner.boundingBox()).toEqual(bannerBefore);
    const noticeBox = (await notice.getByRole('button').boundingBox())!;
    expect(noticeBox.y + noticeBox.height).toBeLessThanOrEqual(bannerBefore!.y);

    // Meanwhile the open tab runs on: code it has not loaded yet (a client:visible island, a later
    // import) is still served by the previous worker's precache, not only by the browser's HTTP
    // cache (which a phone may have emptied: bypassed here).
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname));
    const notYetLoaded = precache(DIST.pathname).urls.find((url) => url.endsWith('.js') && !loaded.includes(`/${url}`))!;
    expect(await page.evaluate(async (url) => (await fetch(url, { cache: 'no-store' })).status, `/${notYetLoaded}`)).toBe(200);

    await reloadOntoUpdate(page, locale);
    await expect(notice).toBeHidden();
    const code = await page.evaluate(() =>
      [...document.querySelectorAll('script[src], astro-island')].flatMap((element) =>
        ['src', 'component-url', 'renderer-url'].map((name) => element.getAttribute(name) ?? '').filter(Boolean),
      ),
    );
    expect(code.length).toBeGreaterThan(2);
    for (const url of code) expect(url).toMatch(/v2\.js$/);
    await hydrated(page);
    const plans = page.getByRole('list', { name: text.package.plansLabel }).getByRole('button');
    await plans.first().click();
    await expect(plans.first()).toHaveAttribute('aria-pressed', 'true');
    expect(failed).toEqual([]);
  });
}

test('the new worker refreshes the saved pages after taking over, a few at a time: the reloaded page does not wait for them', async ({
  page,
}) => {
  const site = await ownSite();
  await speak(page, 'en');
  await page.goto(site.url + '/package/jp');
  const reading = OFFLINE_READING_ROUTES.map((route) => localizePath('en', route));
  await waitUntilSaved(page, ['/package/jp', ...reading]);

  // A new deployment on a slow server: every saved page but the open one takes seconds to answer.
  site.deployNewBuild();
  const events: string[] = [];
  let answering = 0;
  let most = 0;
  site.use((req, res, next) => {
    if (!reading.includes(pathOf(req))) return next();
    most = Math.max(most, ++answering);
    res.on('finish', () => {
      answering--;
      events.push(`saved page ${pathOf(req)} answered`);
    });
    setTimeout(next, SLOW_PAGE_MS);
  });
  await checkForUpdate(page);
  await reloadOntoUpdate(page, 'en');
  events.push('page reloaded');

  await expect.poll(() => events.length, { timeout: 30_000 }).toBe(reading.length + 1);
  expect(events[0]).toBe('page reloaded');
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(4);
  // The saved copies are the new deployment's, which reference its code.
  await expect
    .poll(() =>
      page.evaluate(
        async (paths) => Promise.all(paths.map(async (p) => (await (await caches.match(p))?.text())?.includes('v2.js'))),
        reading,
      ),
    )
    .toEqual(reading.map(() => true));
});

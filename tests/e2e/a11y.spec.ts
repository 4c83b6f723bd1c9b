import { expect, test } from '@playwright/test';
import { localizePath } from '../../src/i18n/paths.ts';
import { axeViolations, COLOUR_RULES, FIRST_VISIT, speak } from './support.ts';
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';

/** One route per page type; the not-found page is reached through a path that does not exist. */
const PAGE_TYPES = [
  '/',
  '/store',
  '/package/jp',
  '/package/europe',
  '/package/',
  '/package/atlantis',
  '/login',
  '/signup',
  '/support',
  '/faq',
  '/terms-conditions',
  '/privacy-policy',
  '/legal-notice',
  '/install-esim',
  '/chat',
  '/offline',
  '/unsubscribe',
  '/traveller',
  '/this-page-does-not-exist',
];

test.describe('every page type on a first visit, cookie banner shown', () => {
  test.use(FIRST_VISIT);
  for (const locale of ['en', 'ar'] as const) {
    for (const route of PAGE_TYPES) {
      const path = localizePath(locale, route);
      // Light, then dark as a visitor who chose it sees it on the next page load: one browser
      // context and one test's start-up less per page than a test per theme.
      test(`axe finds nothing on ${path} (light and dark)`, async ({ page }) => {
        // The store's 250 destinations: one scan took 33 s on a slow day, and this test makes two.
        if (route === '/store') test.slow();
        await speak(page, locale);
        await page.goto(path);
        await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
        expect(await axeViolations(page), 'light').toEqual([]);
        await page.evaluate(() => localStorage.setItem('theme', 'dark'));
        await page.reload();
        await expect(page.locator('html')).toHaveClass(/\bdark\b/);
        // The theme changes colours only (no element shows in one theme alone): its colour rules.
        expect(await axeViolations(page, { rules: COLOUR_RULES }), 'dark').toEqual([]);
      });
    }
  }
});

test('axe finds nothing in the open device dialog (ar)', async ({ page }) => {
  await speak(page, 'ar');
  await page.goto('/ar/');
  await page.locator('[data-device-open]').click();
  await expect(page.getByRole('dialog')).toBeVisible();
  expect(await axeViolations(page, { include: 'dialog' })).toEqual([]);
});

for (const locale of ['en', 'ar'] as const) {
  test(`axe finds nothing on the signed-in profile (${locale})`, async ({ page }) => {
    const email = uniqueEmail('axe');
    await createAccount(email, 'travel-safe-1');
    await storedSession(page.context(), email, 'travel-safe-1');
    await speak(page, locale);
    await page.goto(localizePath(locale, '/profile'));
    await expect(page.locator('[data-email]')).toHaveText(email);
    expect(await axeViolations(page)).toEqual([]);
  });
}

for (const locale of ['en', 'ar'] as const) {
  test(`axe finds nothing on the signed-in checkout, with a plan and with an unknown one (${locale})`, async ({ page }) => {
    const email = uniqueEmail('axe');
    await createAccount(email, 'travel-safe-1');
    await storedSession(page.context(), email, 'travel-safe-1');
    await speak(page, locale);
    await page.goto(`${localizePath(locale, '/checkout')}?plan=europe-5gb-30d`);
    await expect(page.locator('[data-total]')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${localizePath(locale, '/checkout')}?plan=atlantis`);
    await expect(page.locator('[data-plan-error]')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
  });
}

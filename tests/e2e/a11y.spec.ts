import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { localizePath } from '../../src/i18n/paths.ts';
import { speak } from './support.ts';

/** One route per page type; the not-found page is reached through a path that does not exist. */
const PAGE_TYPES = [
  '/',
  '/store',
  '/package/jp',
  '/package/europe',
  '/package/',
  '/package/atlantis',
  '/profile',
  '/support',
  '/faq',
  '/terms-conditions',
  '/privacy-policy',
  '/legal-notice',
  '/install-esim',
  '/chat',
  '/this-page-does-not-exist',
];

for (const locale of ['en', 'ar'] as const) {
  for (const theme of ['light', 'dark'] as const) {
    for (const route of PAGE_TYPES) {
      const path = localizePath(locale, route);
      test(`axe finds nothing on ${path} (${theme})`, async ({ page }) => {
        await speak(page, locale);
        if (theme === 'dark') await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
        await page.goto(path);
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
        expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      });
    }
  }
}

test('axe finds nothing in the open device dialog (ar)', async ({ page }) => {
  await speak(page, 'ar');
  await page.goto('/ar/');
  await page.locator('[data-device-open]').click();
  await expect(page.getByRole('dialog')).toBeVisible();
  const results = await new AxeBuilder({ page }).include('dialog').analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
});

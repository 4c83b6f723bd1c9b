import { expect, test, type Page } from '@playwright/test';
import en from '../../locales/en/common.json' with { type: 'json' };
import ar from '../../locales/ar/common.json' with { type: 'json' };
import ja from '../../locales/ja/common.json' with { type: 'json' };
import { hydrated, speak } from './support.ts';

const STRINGS = { en, ar, ja } as const;
type Lang = keyof typeof STRINGS;
const path = (lang: Lang, route: string) => (lang === 'en' ? route : `/${lang}${route}`);

async function open(page: Page, lang: Lang, route: string) {
  await speak(page, lang);
  const response = await page.goto(path(lang, route));
  await hydrated(page);
  return response;
}

for (const lang of ['en', 'ar', 'ja'] as const) {
  const t = STRINGS[lang].package;

  test.describe(`package page in ${lang}`, () => {
    test('shows the plans; one can be selected, and selecting it again deselects it', async ({ page }) => {
      await open(page, lang, '/package/jp');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(lang === 'ja' ? '日本' : lang === 'ar' ? 'اليابان' : 'Japan');
      const plans = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      const count = await plans.count();
      expect(count).toBeGreaterThanOrEqual(5);
      await expect(page.getByText(t.availablePackages.replace('{{number}}', String(count)))).toBeVisible();
      await expect(plans.first()).toContainText(t.priceSoon);

      const checkout = page.getByRole('button', { name: t.checkout });
      await expect(checkout).toBeDisabled();
      await expect(page.getByText(t.noSelection)).toBeVisible();

      await plans.nth(1).click();
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('[data-selected-plan]')).toBeVisible();
      await plans.nth(2).click();
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'false');
      await expect(plans.nth(2)).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('[aria-pressed="true"]')).toHaveCount(1);
      await plans.nth(2).click();
      await expect(page.locator('[aria-pressed="true"]')).toHaveCount(0);
      await expect(page.getByText(t.noSelection)).toBeVisible();
      // No price yet: Checkout stays disabled with a plan selected too.
      await plans.first().click();
      await expect(checkout).toBeDisabled();
      await expect(page.locator('[data-selected-plan]')).toContainText(/\d/);
    });

    test('plan cards work by keyboard', async ({ page }) => {
      await open(page, lang, '/package/de');
      const plans = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'false');
      await plans.first().focus();
      await page.keyboard.press('Enter');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'true');
      await page.keyboard.press('Tab');
      await expect(plans.nth(1)).toBeFocused();
      await page.keyboard.press('Space');
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'true');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'false');
      await page.keyboard.press('Space');
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'false');
    });

    test('a regional plan lists its countries', async ({ page }) => {
      await open(page, lang, '/package/europe');
      const coverage = page.locator('details').filter({ hasText: t.coverage });
      await coverage.locator('summary').click();
      const countries = coverage.locator('[data-covered-countries] li');
      expect(await countries.count()).toBeGreaterThan(40);
      await expect(countries.filter({ hasText: lang === 'ja' ? 'ドイツ' : lang === 'ar' ? 'ألمانيا' : 'Germany' })).toHaveCount(1);
    });

    test('/package/ without an id says so, with a way back to the store', async ({ page }) => {
      await open(page, lang, '/package/');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t.noId);
      await page.getByRole('link', { name: t.backToStore }).click();
      await expect(page).toHaveURL(path(lang, '/store'));
    });

    test('an unknown code says the destination is not found, with status 404', async ({ page }) => {
      const response = await open(page, lang, '/package/atlantis');
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t.notFound);
      await page.getByRole('link', { name: t.backToStore }).click();
      await expect(page).toHaveURL(path(lang, '/store'));
    });
  });
}

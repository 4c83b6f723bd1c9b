import { expect, test } from '@playwright/test';
import fr from '../../locales/fr/common.json' with { type: 'json' };
import enHelp from '../../locales/en/help.json' with { type: 'json' };

test.describe('language picker', () => {
  test('choosing Français on /store lands on /fr/store, and a later visit to / goes to /fr/', async ({ page }) => {
    await page.goto('/store');
    await page.locator('[data-language-picker] summary').click();
    await page.getByRole('link', { name: 'Français' }).click();
    await expect(page).toHaveURL('/fr/store');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(fr.store.title);
    expect(await page.evaluate(() => ({ ...localStorage }))).toMatchObject({
      preferred_language: 'fr',
      language_user_picked: 'true',
    });

    await page.goto('/');
    await expect(page).toHaveURL('/fr/');
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  });

  test('lists the 12 languages by native name and works by keyboard', async ({ page }) => {
    await page.goto('/');
    const summary = page.locator('[data-language-picker] summary');
    await summary.focus();
    await page.keyboard.press('Enter');
    const options = page.locator('[data-language-picker] a');
    await expect(options).toHaveText([
      'English',
      'Español',
      'Français',
      'Deutsch',
      'العربية',
      'Italiano',
      'Nederlands',
      'Polski',
      '中文',
      '日本語',
      'Português',
      'Русский',
    ]);
    await expect(options.first()).toHaveAttribute('aria-current', 'true');
    await page.keyboard.press('Escape');
    await expect(options.first()).toBeHidden();
    await expect(summary).toBeFocused();
  });

  test('picking English after a redirect keeps the visitor in English', async ({ browser }) => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/support');
    await expect(page).toHaveURL('/de/support');
    await page.locator('[data-language-picker] summary').click();
    await page.getByRole('link', { name: 'English' }).click();
    await expect(page).toHaveURL('/support');
    await page.waitForTimeout(600);
    await expect(page).toHaveURL('/support');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(enHelp.support.heading);
    await context.close();
  });
});

test.describe('language auto-detection on unprefixed pages', () => {
  // The browser's language is its context's locale (navigator.languages, Accept-Language).
  test.describe(() => {
    test.use({ locale: 'ja-JP' });

    test('follows the browser language when nothing was picked', async ({ page }) => {
      await page.goto('/store');
      await expect(page).toHaveURL('/ja/store');
    });

    test('a saved pick wins over the browser language', async ({ page }) => {
      await page.addInitScript(() => {
        localStorage.setItem('preferred_language', 'ru');
        localStorage.setItem('language_user_picked', 'true');
      });
      await page.goto('/support');
      await expect(page).toHaveURL('/ru/support');
    });

    test('never runs on a prefixed page: the URL decides', async ({ page }) => {
      await page.goto('/de/');
      await page.waitForTimeout(600);
      await expect(page).toHaveURL('/de/');
    });
  });

  test.describe(() => {
    test.use({ locale: 'ko-KR' });

    test('stays in English for a browser language we do not offer (no forced German)', async ({ page }) => {
      await page.goto('/');
      await page.waitForTimeout(600);
      await expect(page).toHaveURL('/');
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    });
  });
});

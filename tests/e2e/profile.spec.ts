import { expect, test, type Page } from '@playwright/test';
import { createAccount, failGoogleApis, recordNavigations, uniqueEmail } from './auth-support.ts';
import { messages, speak } from './support.ts';

const PASSWORD = 'travel-safe-1';
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

for (const lang of ['en', 'ar'] as const) {
  const m = messages(lang, 'auth');
  const p = (route: string) => (lang === 'en' ? route : `/${lang}${route === '/' ? '/' : route}`);

  async function logIn(page: Page, email: string): Promise<void> {
    await page.getByLabel(m.fields.email).fill(email);
    await page.getByLabel(m.fields.password, { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: m.login.submit, exact: true }).click();
    await expect(page).toHaveURL(p('/profile'));
  }

  async function openProfile(page: Page): Promise<void> {
    const email = uniqueEmail('profile');
    await createAccount(email, PASSWORD);
    await page.goto(p('/login'));
    await logIn(page, email);
    await expect(page.getByRole('button', { name: m.profile.logout })).toBeVisible();
  }

  test.describe(`profile in ${lang}`, () => {
    test.beforeEach(async ({ page }) => {
      await failGoogleApis(page.context());
      await speak(page, lang);
    });

    test('Log out goes to the home page once, never through login', async ({ page }) => {
      await openProfile(page);
      const navigations = recordNavigations(page);
      await page.getByRole('button', { name: m.profile.logout }).click();
      await expect(page).toHaveURL(p('/'));
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      expect(navigations.map(pathOf)).toEqual([p('/')]);
    });

    test('Delete account goes to the home page once, never through login', async ({ page }) => {
      await openProfile(page);
      const navigations = recordNavigations(page);
      await page.getByRole('button', { name: m.profile.deleteAccount }).click();
      await page.getByRole('dialog', { name: m.profile.deleteTitle }).getByRole('button', { name: m.profile.deleteConfirm }).click();
      await expect(page).toHaveURL(p('/'));
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      expect(navigations.map(pathOf)).toEqual([p('/')]);
    });
  });
}

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

  /** With storage blocked the cookie banner asks on every page; its answer closes it for the page. */
  async function answerCookieBanner(page: Page): Promise<void> {
    const consent = messages(lang, 'common').consent;
    await page.getByRole('region', { name: consent.label }).getByRole('button', { name: consent.accept }).click();
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

    test('blocked storage keeps the profile: default settings that say they cannot be saved', async ({ page }) => {
      await page.addInitScript(() =>
        Object.defineProperty(window, 'localStorage', {
          get() {
            throw new DOMException('blocked', 'SecurityError');
          },
        }),
      );
      const email = uniqueEmail('blocked');
      await createAccount(email, PASSWORD);
      await page.goto(p('/login'));
      await answerCookieBanner(page);
      await logIn(page, email);
      await answerCookieBanner(page);

      await expect(page.locator('[data-email]')).toHaveText(email);
      const settings = page.getByRole('region', { name: m.profile.settings });
      await expect(settings.getByRole('status')).toHaveText(m.profile.settingsNotSaved);
      await expect(settings.getByRole('switch', { name: m.profile.push })).toHaveAttribute('aria-checked', 'true');
      const dark = settings.getByRole('switch', { name: m.profile.darkMode });
      await expect(dark).toHaveAttribute('aria-checked', 'false');
      // Still applies to this page.
      await dark.click();
      await expect(dark).toHaveAttribute('aria-checked', 'true');
      await expect(page.locator('html')).toHaveClass(/\bdark\b/);
      await expect(page.getByRole('button', { name: m.profile.logout })).toBeVisible();
    });
  });
}

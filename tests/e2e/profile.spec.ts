import { expect, test, type Page } from '@playwright/test';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, failGoogleApis, recordNavigations, storedSession, uniqueEmail } from './auth-support.ts';
import { buy, payWith, PLAN } from './shop-support.ts';
import { messages, speak } from './support.ts';

const PASSWORD = 'travel-safe-1';
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
/** The shop API the build talks to (playwright.config.ts runs it on PostgreSQL). */
const ME = `${LOCAL_API_BASE_URL}/me`;

for (const lang of ['en', 'ar'] as const) {
  const m = messages(lang, 'auth');
  const { profile, history, alerts } = messages(lang, 'account');
  const { checkout: checkoutTexts, paymentSuccess } = messages(lang, 'checkout');
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
    await storedSession(page.context(), email, PASSWORD);
    await page.goto(p('/profile'));
    await expect(page.getByRole('button', { name: profile.logout })).toBeVisible();
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
      await page.getByRole('button', { name: profile.logout }).click();
      await expect(page).toHaveURL(p('/'));
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      expect(navigations.map(pathOf)).toEqual([p('/')]);
    });

    test('Delete account goes to the home page once, never through login', async ({ page }) => {
      await openProfile(page);
      const navigations = recordNavigations(page);
      await page.getByRole('button', { name: profile.deleteAccount }).click();
      const dialog = page.getByRole('dialog', { name: profile.deleteTitle });
      // What happens to the orders, before anyone confirms.
      await expect(dialog).toContainText(profile.deleteOrders);
      await dialog.getByRole('button', { name: profile.deleteConfirm }).click();
      await expect(page).toHaveURL(p('/'));
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      expect(navigations.map(pathOf)).toEqual([p('/')]);
    });

    test('Delete account after buying: the open order can no longer be paid, and a new account with the same address has no orders', async ({
      page,
    }) => {
      const email = uniqueEmail('delete-buyer');
      await createAccount(email, PASSWORD);
      const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;
      await page.goto(checkout);
      await page.getByLabel(m.fields.email).fill(email);
      await page.getByLabel(m.fields.password, { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: m.login.submit, exact: true }).click();
      await expect(page).toHaveURL(checkout);
      await buy(page, lang);
      await payWith(page, '4242 4242 4242 4242');
      await expect(page.getByText(paymentSuccess.ready)).toBeVisible({ timeout: 15_000 });
      await page.goto(checkout);
      await buy(page, lang); // Left open on the payment page.
      const openPaymentPage = page.url();

      await page.goto(p('/profile'));
      await page.getByRole('button', { name: profile.deleteAccount }).click();
      const settled = page.waitForResponse((response) => response.url() === ME && response.request().method() === 'DELETE');
      await page.getByRole('dialog', { name: profile.deleteTitle }).getByRole('button', { name: profile.deleteConfirm }).click();
      expect((await settled).status()).toBe(204);
      await expect(page).toHaveURL(p('/'));
      // The open order is cancelled: nobody can pay it any more.
      await page.goto(openPaymentPage);
      await expect(page.getByRole('status')).toHaveText('This payment page has expired.');

      // The same address, a new account: nothing of the old orders is linked to it.
      await createAccount(email, PASSWORD);
      await page.goto(p('/login'));
      await logIn(page, email);
      await page.goto(p('/history'));
      await expect(page.getByText(history.empty)).toBeVisible();
    });

    test('Delete account when the shop cannot settle the orders: the translated error, the account stays', async ({ page }) => {
      const email = uniqueEmail('delete-fails');
      await createAccount(email, PASSWORD);
      await page.goto(p('/login'));
      await logIn(page, email);
      await page.getByRole('button', { name: profile.deleteAccount }).click();
      const dialog = page.getByRole('dialog', { name: profile.deleteTitle });
      const confirm = dialog.getByRole('button', { name: profile.deleteConfirm });

      await page.route(ME, (route) => route.abort('internetdisconnected'));
      await confirm.click();
      await expect(dialog.getByRole('alert')).toHaveText(m.errors.network);
      await page.unroute(ME);
      await page.route(ME, (route) =>
        route.fulfill({
          status: 503,
          headers: { 'Access-Control-Allow-Origin': new URL(page.url()).origin },
          contentType: 'text/html',
          body: '<h1>Service Unavailable</h1>',
        }),
      );
      await confirm.click();
      await expect(dialog.getByRole('alert')).toHaveText(checkoutTexts.errors.server);
      await expect(page).toHaveURL(p('/profile'));

      // The account is still there: out, and in again.
      await dialog.getByRole('button', { name: profile.cancel }).click();
      await page.getByRole('button', { name: profile.logout }).click();
      await expect(page).toHaveURL(p('/'));
      await page.goto(p('/login'));
      await logIn(page, email);
      await expect(page.locator('[data-email]')).toHaveText(email);
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
      const settings = page.getByRole('region', { name: profile.settings });
      await expect(settings.getByRole('status')).toHaveText(profile.settingsNotSaved);
      // Push is no stored setting (issue 23): the device's switch, off until a click subscribes it.
      await expect(page.getByRole('switch', { name: alerts.thisDevice })).toHaveAttribute('aria-checked', 'false');
      const dark = settings.getByRole('switch', { name: profile.darkMode });
      await expect(dark).toHaveAttribute('aria-checked', 'false');
      // Still applies to this page.
      await dark.click();
      await expect(dark).toHaveAttribute('aria-checked', 'true');
      await expect(page.locator('html')).toHaveClass(/\bdark\b/);
      await expect(page.getByRole('button', { name: profile.logout })).toBeVisible();
    });
  });
}

import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { INSTALL_PROMPT_DELAY_MS, STORAGE_KEYS } from '../../src/config/constants.ts';
import { FIRST_VISIT, messages, speak } from './support.ts';

const common = (locale: string) => messages(locale, 'common');

test.describe('cookie banner', () => {
  test.use(FIRST_VISIT);
  for (const [answer, stored] of [
    ['accept', 'accepted'],
    ['reject', 'rejected'],
  ] as const) {
    test(`${answer} is stored and the banner stays hidden on every page after`, async ({ page }) => {
      await speak(page, 'de');
      const text = common('de').consent;
      await page.goto('/de/faq');
      const banner = page.getByRole('region', { name: text.label });
      await expect(banner).toBeVisible();
      await banner.getByRole('button', { name: text[answer] }).click();
      await expect(banner).toBeHidden();
      expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.cookieConsent)).toBe(stored);

      for (const path of ['/de/store', '/de/package/jp', '/ar/']) {
        await page.goto(path);
        await expect(page.locator('h1')).toBeVisible();
        await expect(page.locator('[data-cookie-banner]'), path).toBeHidden();
      }
    });
  }

  test('answers on a not-found page shown in its language in place of the hosting 404', async ({ page }) => {
    await speak(page, 'de');
    const text = common('de');
    await page.goto('/de/no-such-page');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(text.notFound.title);
    await page.getByRole('region', { name: text.consent.label }).getByRole('button', { name: text.consent.reject }).click();
    await expect(page.locator('[data-cookie-banner]')).toBeHidden();
    expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.cookieConsent)).toBe('rejected');
  });

  test('is keyboard reachable right after the header, and focus moves on once answered', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/');
    const text = common('en').consent;
    const reject = page.getByRole('button', { name: text.reject });
    await expect(reject).toBeVisible();
    await reject.focus();
    await page.keyboard.press('Enter');
    await expect(reject).toBeHidden();
    await expect(page.locator('#main')).toBeFocused();
  });

  test('loads no React: the banner is plain markup and a few lines of script', async ({ page }) => {
    const scripts: string[] = [];
    page.on('request', (request) => request.resourceType() === 'script' && scripts.push(request.url()));
    await speak(page, 'en');
    await page.goto('/faq');
    await expect(page.locator('[data-cookie-banner]')).toBeVisible();
    await page.waitForLoadState('networkidle');
    for (const url of scripts)
      expect(readFileSync(new URL(`../../dist${new URL(url).pathname}`, import.meta.url), 'utf8'), url).not.toContain(
        'react.transitional.element',
      );
  });
});

/** A Chromium-style beforeinstallprompt event, fired the way the browser does, recording what the page asks of it. */
async function offerInstall(page: Page): Promise<void> {
  await page.evaluate(() => {
    const event = new Event('beforeinstallprompt', { cancelable: true }) as Event & Record<string, unknown>;
    (window as unknown as { installCalls: string[] }).installCalls = [];
    event.prompt = async () => void (window as unknown as { installCalls: string[] }).installCalls.push('prompt');
    event.userChoice = Promise.resolve({ outcome: 'accepted', platform: 'web' });
    dispatchEvent(event);
  });
}
const installCalls = (page: Page) => page.evaluate(() => (window as unknown as { installCalls: string[] }).installCalls);

test.describe('install prompt', () => {
  test(`appears ${INSTALL_PROMPT_DELAY_MS / 1000} s after the browser offers installation; Install opens the browser's dialog and hides it`, async ({
    page,
  }) => {
    await speak(page, 'ja');
    await page.goto('/ja/store');
    const text = common('ja').installApp;
    const card = page.getByRole('region', { name: text.label });
    await offerInstall(page);
    const offeredAt = Date.now();
    await expect(card).toBeVisible({ timeout: INSTALL_PROMPT_DELAY_MS + 5_000 });
    expect(Date.now() - offeredAt).toBeGreaterThanOrEqual(INSTALL_PROMPT_DELAY_MS - 100);
    await card.getByRole('button', { name: text.install }).click();
    await expect(card).toBeHidden();
    expect(await installCalls(page)).toEqual(['prompt']);
  });

  test('Dismiss hides it without opening the dialog', async ({ page }) => {
    await speak(page, 'ar');
    await page.goto('/ar/');
    const text = common('ar').installApp;
    const card = page.getByRole('region', { name: text.label });
    await offerInstall(page);
    await card.getByRole('button', { name: text.dismiss }).click();
    await expect(card).toBeHidden();
    expect(await installCalls(page)).toEqual([]);
  });

  test('never appears when the app is already running standalone', async ({ page }) => {
    await page.addInitScript(() => {
      const original = window.matchMedia.bind(window);
      window.matchMedia = (query: string) =>
        query === '(display-mode: standalone)' ? ({ ...original(query), matches: true, media: query } as MediaQueryList) : original(query);
    });
    await speak(page, 'en');
    await page.goto('/');
    await offerInstall(page);
    await page.waitForTimeout(INSTALL_PROMPT_DELAY_MS + 1_000);
    await expect(page.locator('[data-install-prompt]')).toBeHidden();
  });

  test('never appears once the app has been installed', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/');
    await offerInstall(page);
    await page.evaluate(() => dispatchEvent(new Event('appinstalled')));
    await page.waitForTimeout(INSTALL_PROMPT_DELAY_MS + 1_000);
    await expect(page.locator('[data-install-prompt]')).toBeHidden();
  });
});

test.describe('install prompt on a first visit', () => {
  test.use(FIRST_VISIT);

  test('waits while the cookie banner asks, and follows the answer: two notices never stack', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/faq');
    const text = common('en');
    await offerInstall(page);
    await page.waitForTimeout(INSTALL_PROMPT_DELAY_MS + 1_000);
    await expect(page.getByRole('region', { name: text.installApp.label })).toBeHidden();
    await page.getByRole('button', { name: text.consent.accept }).click();
    await expect(page.getByRole('region', { name: text.installApp.label })).toBeVisible();
    await expect(page.getByRole('region', { name: text.consent.label })).toBeHidden();
  });
});

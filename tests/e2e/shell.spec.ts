import { expect, test } from '@playwright/test';
import en from '../../locales/en/common.json' with { type: 'json' };
import de from '../../locales/de/common.json' with { type: 'json' };
import ar from '../../locales/ar/common.json' with { type: 'json' };

test.describe('pages render in the language of their URL', () => {
  for (const [path, lang, dir, messages] of [
    ['/', 'en', 'ltr', en],
    ['/de/', 'de', 'ltr', de],
    ['/ar/', 'ar', 'rtl', ar],
  ] as const) {
    test(`${path} is ${lang}, ${dir}`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await expect(page.locator('html')).toHaveAttribute('dir', dir);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(messages.home.slogan);
      await expect(page.getByRole('navigation', { name: messages.a11y.mainNavigation })).toBeVisible();
      await expect(page).toHaveURL(path);
    });
  }
});

test('the bottom navigation marks the current page', async ({ page }) => {
  await page.goto('/de/store');
  const nav = page.getByRole('navigation', { name: de.a11y.mainNavigation });
  await expect(nav.getByRole('link', { name: de.nav.store })).toHaveAttribute('aria-current', 'page');
  for (const other of [de.nav.home, de.nav.profile, de.nav.support]) {
    await expect(nav.getByRole('link', { name: other })).not.toHaveAttribute('aria-current', /.*/);
  }
  await nav.getByRole('link', { name: de.nav.support }).click();
  await expect(page).toHaveURL('/de/support');
  await expect(nav.getByRole('link', { name: de.nav.support })).toHaveAttribute('aria-current', 'page');
  // The current item looks different, not only for screen readers.
  const color = (name: string) => nav.getByRole('link', { name }).evaluate((el) => getComputedStyle(el).color);
  expect(await color(de.nav.support)).not.toBe(await color(de.nav.home));
});

test('Arabic mirrors the layout: navigation runs right to left and arrows point the reading way', async ({ page }) => {
  await page.goto('/ar/');
  const nav = page.getByRole('navigation', { name: ar.a11y.mainNavigation });
  const home = await nav.getByRole('link', { name: ar.nav.home }).boundingBox();
  const support = await nav.getByRole('link', { name: ar.nav.support }).boundingBox();
  expect(home!.x).toBeGreaterThan(support!.x);
  // The language picker sits at the inline end: the left edge in Arabic.
  const picker = await page.locator('[data-language-picker] summary').boundingBox();
  const brand = await page.locator('header > a').boundingBox();
  expect(picker!.x).toBeLessThan(brand!.x);
  // Direction icons are flipped horizontally (Tailwind's rtl:-scale-x-100 sets the CSS `scale`).
  const horizontalScale = () =>
    page
      .locator('[data-direction-icon]')
      .first()
      .evaluate((el) => getComputedStyle(el).scale.split(' ')[0]);
  expect(Number(await horizontalScale())).toBe(-1);

  await page.goto('/');
  expect(await horizontalScale()).toBe('none');
});

test('the skip link is the first stop and moves focus to the content', async ({ page }) => {
  await page.goto('/store');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: en.a11y.skipToContent });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  // Focus is visible: the outline of the global focus style.
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).toBe('solid');
});

test('dark mode: a saved theme applies before first paint', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
  await page.goto('/');
  await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).not.toBe('rgb(255, 255, 255)');
});

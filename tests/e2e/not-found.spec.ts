import { expect, test } from '@playwright/test';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { messages, speak } from './support.ts';

const notFoundTitle = (locale: string) => messages(locale, 'common').notFound;

for (const locale of LOCALE_CODES) {
  test(`a nonsense path in ${locale} shows the localized 404`, async ({ page }) => {
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    // Keep auto-detection out of the way: this visitor's browser speaks the page's language.
    await speak(page, locale);

    const path = localizePath(locale, '/no-such-page/here');
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    const text = notFoundTitle(locale);
    await expect(page.locator('html')).toHaveAttribute('lang', locale);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(text.title);
    await expect(page.getByText('404', { exact: true })).toBeVisible();
    await expect.poll(() => errors.join('\n')).toContain(path);

    await page.getByRole('link', { name: text.backHome }).click();
    await expect(page).toHaveURL(localizePath(locale, '/'));
  });
}

import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { messages, recordCspViolations, speak } from './support.ts';
import { uniqueEmail } from './auth-support.ts';

const auth = (lang: string) => messages(lang, 'auth');
const GAPI_STAND_IN = readFileSync(new URL('./gapi-stand-in.js', import.meta.url), 'utf8');

test.beforeEach(async ({ context }) => {
  // Google's script loader is unreachable here: serve the thin stand-in, and drop the emulator
  // widget's stylesheet and font requests to the public CDNs (the widget works without them).
  await context.route('https://apis.google.com/js/api.js*', (route) =>
    route.fulfill({ contentType: 'text/javascript', body: GAPI_STAND_IN }),
  );
  await context.route(/^https:\/\/(unpkg\.com|fonts\.googleapis\.com|fonts\.gstatic\.com)\//, (route) => route.abort());
});

for (const [lang, provider] of [
  ['en', 'google'],
  ['ar', 'google'],
  ['en', 'apple'],
] as const) {
  test(`${provider} sign-in through the emulator's popup (${lang})`, async ({ page }) => {
    const m = auth(lang);
    const email = uniqueEmail(provider);
    const violations = recordCspViolations(page);
    await speak(page, lang);
    await page.goto(lang === 'en' ? '/login' : `/${lang}/login`);
    const popupPromise = page.waitForEvent('popup');
    await page.getByRole('button', { name: m[provider] }).click();
    const popup = await popupPromise;
    await popup.locator('#add-account-button').click();
    await popup.locator('#email-input').fill(email);
    await popup.locator('#display-name-input').fill('Ada Traveller');
    await popup.locator('#sign-in').click();
    await expect(page).toHaveURL(lang === 'en' ? '/profile' : `/${lang}/profile`, { timeout: 20_000 });
    await expect(page.locator('[data-email]')).toHaveText(email);
    await expect(page.locator('[data-display-name]')).toHaveText('Ada Traveller');
    // The popup, the emulator's iframe and Google's script loader all pass the site's policy.
    expect(violations).toEqual([]);
  });
}

import { expect, test, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { CART_STORAGE_KEY } from '../../src/features/cart/cart-storage.ts';
import { LOCALE_CURRENCY, type Currency } from '../../src/config/currencies.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';

/**
 * Prices in the traveller's currency on the pages (issue 34): the HTML in the page language's
 * currency, then the visitor's (picked, else guessed from the browser), switched by the header's
 * currency picker on every price at once, remembered on the device.
 */

type Plan = (typeof snapshot.packages)[number];
const plansOf = (destination: string) => snapshot.packages.filter((p) => p.destination === destination);
/** Intl's own output in the test, never a hand-typed price (DESIGN 4): the yen has no minor digits, the others two. */
const money = (lang: string, currency: Currency, amountMinor: number) =>
  new Intl.NumberFormat(lang, { style: 'currency', currency }).format(amountMinor / (currency === 'JPY' ? 1 : 100));
const priceOf = (lang: string, currency: Currency, plan: Plan) => money(lang, currency, plan.prices[currency]);
const path = (lang: string, route: string) => (lang === 'en' ? route : `/${lang}${route}`);

const cardPrices = (page: Page) => page.locator('[data-plan-id] [data-plan-price]');
const picker = (page: Page, lang = 'en') => page.getByRole('combobox', { name: messages(lang, 'common').currency.label });

async function open(page: Page, lang: string, route: string) {
  await page.goto(path(lang, route));
  await hydrated(page);
}

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the Japanese package page reads yen, as search engines see it', async ({ page }) => {
    await page.goto('/ja/package/jp');
    await expect(cardPrices(page)).toHaveText(plansOf('JP').map((plan) => priceOf('ja', 'JPY', plan)));
    await expect(cardPrices(page).first()).toContainText('￥');
    // The picker needs a script: hidden, so nothing on the page promises a switch it cannot make.
    await expect(page.locator('[data-currency-picker]')).toBeHidden();
  });
});

test.describe('a browser set to American English', () => {
  test.use({ locale: 'en-US' });

  test('sees dollars on the English package page, and the picker says so', async ({ page }) => {
    await open(page, 'en', '/package/de');
    await expect(cardPrices(page)).toHaveText(plansOf('DE').map((plan) => priceOf('en', 'USD', plan)));
    await expect(picker(page)).toHaveValue('USD');
    await expect(page.locator('[data-currency-code]')).toHaveText('USD');
  });
});

test('the picker switches every price to pounds, in the bar too; the pick stays after a reload and on the store', async ({ page }) => {
  await speak(page, 'en');
  await open(page, 'en', '/package/de');
  const germany = plansOf('DE');
  await expect(picker(page)).toHaveValue('EUR');
  await expect(cardPrices(page)).toHaveText(germany.map((plan) => priceOf('en', 'EUR', plan)));
  await page.locator('[data-plan-id]').nth(1).click();
  await expect(page.locator('[data-selected-price]')).toHaveText(priceOf('en', 'EUR', germany[1]!));

  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await picker(page).selectOption('GBP');
  await expect(cardPrices(page)).toHaveText(germany.map((plan) => priceOf('en', 'GBP', plan)));
  await expect(page.locator('[data-selected-price]')).toHaveText(priceOf('en', 'GBP', germany[1]!));
  await expect(page.locator('[data-currency-code]')).toHaveText('GBP');
  // Every currency's prices came with the page: switching asks nothing of anyone.
  expect(requests).toEqual([]);

  // Sorting by price sorts in pounds.
  await page.getByRole('combobox', { name: messages('en', 'common').package.sortLabel }).selectOption('price-asc');
  const ascending = [...germany].sort((a, b) => a.prices.GBP - b.prices.GBP);
  await expect(cardPrices(page)).toHaveText(ascending.map((plan) => priceOf('en', 'GBP', plan)));

  await page.reload();
  await hydrated(page);
  await expect(picker(page)).toHaveValue('GBP');
  await expect(cardPrices(page)).toHaveText(germany.map((plan) => priceOf('en', 'GBP', plan)));

  await page.goto('/store');
  const from = messages('en', 'common').store.fromPrice;
  const lowest = Math.min(...germany.map((plan) => plan.prices.GBP));
  await expect(page.locator('li[data-search]', { has: page.locator('a[href="/package/de"]') }).locator('[data-price]')).toHaveText(
    from.replace('{{price}}', money('en', 'GBP', lowest)),
  );
  // And back: the store follows the picker without a reload.
  await picker(page).selectOption('JPY');
  const lowestYen = Math.min(...germany.map((plan) => plan.prices.JPY));
  await expect(page.locator('li[data-search]', { has: page.locator('a[href="/package/de"]') }).locator('[data-price]')).toHaveText(
    from.replace('{{price}}', money('en', 'JPY', lowestYen)),
  );
});

test('Arabic shows prices right to left, with the numerals Intl writes for Arabic', async ({ page }) => {
  await speak(page, 'ar');
  await open(page, 'ar', '/package/de');
  const germany = plansOf('DE');
  const pageCurrency = LOCALE_CURRENCY.ar;
  await expect(cardPrices(page)).toHaveText(germany.map((plan) => priceOf('ar', pageCurrency, plan)));
  await expect(cardPrices(page).first()).toHaveCSS('direction', 'rtl');
  await picker(page, 'ar').selectOption('EUR');
  await expect(cardPrices(page)).toHaveText(germany.map((plan) => priceOf('ar', 'EUR', plan)));
  await page.locator('[data-plan-id]').first().click();
  await expect(page.locator('[data-selected-price]')).toHaveText(priceOf('ar', 'EUR', germany[0]!));
  await expect(page.locator('[data-selected-price]')).toHaveCSS('direction', 'rtl');
});

// With a cart in the header too: German's words are the widest (a 412 px page grew to 428 and taps missed).
for (const lang of ['en', 'de', 'ar', 'ru'] as const) {
  test(`the header holds the cart, the currency and the language on a 360 px phone, the page no wider (${lang})`, async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.addInitScript(([key, line]) => localStorage.setItem(key, line), [
      CART_STORAGE_KEY,
      JSON.stringify([{ planId: 'de-1gb-7d', quantity: 3, price: { amountMinor: 199, currency: 'EUR' } }]),
    ] as const);
    await speak(page, lang);
    await open(page, lang, '/package/de');
    const box = (await page.locator('[data-currency-picker]').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await expect(page.locator('[data-cart-badge]')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });
}

for (const lang of ['en', 'ar'] as const) {
  test(`axe finds nothing on the package page with the currency picker (${lang})`, async ({ page }) => {
    await speak(page, lang);
    await open(page, lang, '/package/de');
    await picker(page, lang).selectOption('CHF');
    await picker(page, lang).focus();
    expect(await axeViolations(page)).toEqual([]);
  });
}

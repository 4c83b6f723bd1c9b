import { expect, test, type Page } from '@playwright/test';
import en from '../../locales/en/common.json' with { type: 'json' };
import ar from '../../locales/ar/common.json' with { type: 'json' };
import ja from '../../locales/ja/common.json' with { type: 'json' };
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { LOCALE_CURRENCY } from '../../src/config/currencies.ts';
import { messages, speak } from './support.ts';

const STRINGS = { en, ar, ja } as const;
const storePath = (lang: string) => (lang === 'en' ? '/store' : `/${lang}/store`);

/** Keep auto-detection out of the way: the browser speaks the page's language. */
async function openStore(page: Page, lang: string) {
  await speak(page, lang);
  await page.goto(storePath(lang));
}

const visibleItems = (page: Page) => page.locator('[role="tabpanel"]:not([hidden]) li[data-search]:not([hidden])');

for (const lang of ['en', 'ar', 'ja'] as const) {
  const t = STRINGS[lang].store;

  test.describe(`store in ${lang}`, () => {
    test('lists every country with flag, name and code, linking to its package page', async ({ page }) => {
      await openStore(page, lang);
      const items = visibleItems(page);
      expect(await items.count()).toBeGreaterThan(200);
      const first = items.first().getByRole('link');
      await expect(first.locator('img')).toHaveAttribute('src', /^\/flags\/[A-Z]{2}\.svg$/);
      await expect(first.locator('span').nth(1)).toHaveText(/^[A-Z]{2}$/);
      await page.getByRole('searchbox', { name: t.searchLabel }).fill('DE');
      const germany = visibleItems(page)
        .filter({ has: page.locator('span', { hasText: /^DE$/ }) })
        .getByRole('link');
      await germany.click();
      await expect(page).toHaveURL(lang === 'en' ? '/package/de' : `/${lang}/package/de`);
    });

    test('search: a partial name, an accented name typed without accents, an alias, no results', async ({ page }) => {
      await openStore(page, lang);
      const search = page.getByRole('searchbox', { name: t.searchLabel });
      await search.fill('jap');
      await expect(visibleItems(page)).toHaveCount(1);
      await expect(visibleItems(page)).toContainText('JP');
      await search.fill('reunion');
      await expect(visibleItems(page)).toHaveCount(1);
      await expect(visibleItems(page)).toContainText('RE');
      await search.fill('USA');
      await expect(visibleItems(page).filter({ has: page.locator('span', { hasText: /^US$/ }) })).toHaveCount(1);
      await search.fill('Czech Republic');
      await expect(visibleItems(page)).toHaveCount(1);
      await expect(visibleItems(page)).toContainText('CZ');
      // The result count is announced to screen readers.
      await expect(page.getByRole('status')).not.toBeEmpty();
      await search.fill('qqqxxz');
      await expect(visibleItems(page)).toHaveCount(0);
      const activePanel = page.locator('[role="tabpanel"]:not([hidden])');
      await expect(activePanel.getByText(t.noResults)).toBeVisible();
      await search.fill('');
      expect(await visibleItems(page).count()).toBeGreaterThan(200);
      await expect(activePanel.getByText(t.noResults)).toBeHidden();
    });

    test('tabs switch between countries and regions by mouse and keyboard', async ({ page }) => {
      await openStore(page, lang);
      const countriesTab = page.getByRole('tab', { name: t.countries });
      const regionsTab = page.getByRole('tab', { name: t.regions });
      await expect(countriesTab).toHaveAttribute('aria-selected', 'true');
      await regionsTab.click();
      await expect(regionsTab).toHaveAttribute('aria-selected', 'true');
      await expect(page.getByRole('tabpanel')).toHaveCount(1);
      await expect(visibleItems(page)).toHaveCount(9);
      await expect(visibleItems(page).first()).toContainText(/\d/); // 'N countries'

      // Keyboard: arrows follow the reading direction, Home and End jump.
      await regionsTab.focus();
      const back = lang === 'ar' ? 'ArrowRight' : 'ArrowLeft';
      const forward = lang === 'ar' ? 'ArrowLeft' : 'ArrowRight';
      await page.keyboard.press(back);
      await expect(countriesTab).toBeFocused();
      await expect(countriesTab).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press(forward);
      await expect(regionsTab).toBeFocused();
      await page.keyboard.press('Home');
      await expect(countriesTab).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('End');
      await expect(regionsTab).toHaveAttribute('aria-selected', 'true');
      // Only the selected tab is in the tab order.
      await expect(countriesTab).toHaveAttribute('tabindex', '-1');
    });
  });
}

test('a country found by its Japanese name on /ja/store', async ({ page }) => {
  await openStore(page, 'ja');
  await page.getByRole('searchbox', { name: ja.store.searchLabel }).fill('フランス');
  await expect(visibleItems(page)).toHaveCount(1);
  await expect(visibleItems(page)).toContainText('FR');
});

test('countries are sorted with the language’s collation', async ({ page }) => {
  await openStore(page, 'en');
  const names = await visibleItems(page).locator('a > span:first-of-type').allTextContents();
  expect(names).toEqual([...names].sort(new Intl.Collator('en').compare));
});

test('without JavaScript every destination link is in the page', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/store');
  await expect(page.getByRole('heading', { name: en.store.countries })).toBeVisible();
  await expect(page.getByRole('heading', { name: en.store.regions })).toBeVisible();
  // The region's link: a European country's names its continent after its own name.
  await expect(page.getByRole('link', { name: /^Europe\b/ })).toBeVisible();
  await expect(page.getByRole('searchbox')).toBeHidden();
  expect(await page.locator('a[href^="/package/"]').count()).toBeGreaterThan(250);
  await context.close();
});

/**
 * A destination's lowest price in the page language's currency (yen in Japanese, dollars in
 * Arabic), what a browser speaking only that language sees. Intl's own output in the test, never a
 * hand-typed price (DESIGN 4); the yen has no minor digits, the others two.
 */
const lowestPrice = (lang: 'en' | 'de' | 'ar' | 'ja', destination: string) => {
  const currency = LOCALE_CURRENCY[lang];
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(
    Math.min(...snapshot.packages.filter((p) => p.destination === destination).map((p) => p.prices[currency])) /
      (currency === 'JPY' ? 1 : 100),
  );
};

for (const lang of ['en', 'de', 'ar', 'ja'] as const) {
  const t = messages(lang, 'common').store;
  test(`every destination shows its lowest price, in the language’s format (${lang})`, async ({ page }) => {
    await openStore(page, lang);
    const price = (code: string) =>
      visibleItems(page)
        .filter({ has: page.locator('span', { hasText: new RegExp(`^${code}$`) }) })
        .locator('a > span')
        .last();
    const rows = visibleItems(page);
    await expect(rows.locator('a > span:nth-of-type(3)')).toHaveCount(await rows.count());
    for (const code of ['DE', 'JP', 'US']) await expect(price(code)).toHaveText(t.fromPrice.replace('{{price}}', lowestPrice(lang, code)));
    await page.getByRole('tab', { name: t.regions }).click();
    const europe = visibleItems(page)
      .filter({ has: page.locator(`a[href$="/package/europe"]`) })
      .locator('a > span')
      .last();
    await expect(europe).toHaveText(t.fromPrice.replace('{{price}}', lowestPrice(lang, 'europe')));
  });
}

import { expect, test, type Page } from '@playwright/test';
import en from '../../locales/en/common.json' with { type: 'json' };
import ar from '../../locales/ar/common.json' with { type: 'json' };
import ja from '../../locales/ja/common.json' with { type: 'json' };
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { LOCALE_CURRENCY, type Currency } from '../../src/config/currencies.ts';
import { hydrated, messages, speak } from './support.ts';

const STRINGS = { en, ar, ja } as const;
const path = (lang: string, route: string) => (lang === 'en' ? route : `/${lang}${route}`);

async function open(page: Page, lang: string, route: string) {
  await speak(page, lang);
  const response = await page.goto(path(lang, route));
  await hydrated(page);
  return response;
}

for (const lang of ['en', 'ar', 'ja'] as const) {
  const t = STRINGS[lang].package;

  test.describe(`package page in ${lang}`, () => {
    test('shows the plans; one can be selected, and selecting it again deselects it', async ({ page }) => {
      await open(page, lang, '/package/jp');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(lang === 'ja' ? '日本' : lang === 'ar' ? 'اليابان' : 'Japan');
      const plans = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      const count = await plans.count();
      expect(count).toBeGreaterThanOrEqual(5);
      await expect(page.getByText(t.availablePackages.replace('{{number}}', String(count)))).toBeVisible();

      const checkout = page.getByRole('button', { name: t.checkout });
      await expect(checkout).toBeDisabled();
      await expect(page.getByText(t.noSelection)).toBeVisible();

      await plans.nth(1).click();
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('[data-selected-plan]')).toBeVisible();
      await plans.nth(2).click();
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'false');
      await expect(plans.nth(2)).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('[aria-pressed="true"]')).toHaveCount(1);
      await plans.nth(2).click();
      await expect(page.locator('[aria-pressed="true"]')).toHaveCount(0);
      await expect(page.getByText(t.noSelection)).toBeVisible();
      await expect(checkout).toBeDisabled();
    });

    test('plan cards work by keyboard', async ({ page }) => {
      await open(page, lang, '/package/de');
      const plans = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'false');
      await plans.first().focus();
      await page.keyboard.press('Enter');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'true');
      await page.keyboard.press('Tab');
      await expect(plans.nth(1)).toBeFocused();
      await page.keyboard.press('Space');
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'true');
      await expect(plans.first()).toHaveAttribute('aria-pressed', 'false');
      await page.keyboard.press('Space');
      await expect(plans.nth(1)).toHaveAttribute('aria-pressed', 'false');
    });

    test('a regional plan lists its countries', async ({ page }) => {
      await open(page, lang, '/package/europe');
      const coverage = page.locator('details').filter({ hasText: t.coverage });
      await coverage.locator('summary').click();
      const countries = coverage.locator('[data-covered-countries] li');
      expect(await countries.count()).toBeGreaterThan(40);
      await expect(countries.filter({ hasText: lang === 'ja' ? 'ドイツ' : lang === 'ar' ? 'ألمانيا' : 'Germany' })).toHaveCount(1);
    });

    test('/package/ without an id says so, with a way back to the store', async ({ page }) => {
      await open(page, lang, '/package/');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t.noId);
      await page.getByRole('link', { name: t.backToStore }).click();
      await expect(page).toHaveURL(path(lang, '/store'));
    });

    test('an unknown code says the destination is not found, with status 404', async ({ page }) => {
      const response = await open(page, lang, '/package/atlantis');
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t.notFound);
      await page.getByRole('link', { name: t.backToStore }).click();
      await expect(page).toHaveURL(path(lang, '/store'));
    });
  });
}

/** The snapshot the site was built from: the plans of a destination and their prices in minor units. */
const plansOf = (destination: string) => snapshot.packages.filter((p) => p.destination === destination);
/**
 * A plan's price as the page in `lang` shows it to a browser speaking only that language: in the
 * language's currency (yen in Japanese, dollars in Arabic). Intl's own output in the test, never a
 * hand-typed price (DESIGN 4); the yen has no minor digits, the others two.
 */
const inPageCurrency = (lang: 'en' | 'de' | 'ar' | 'ja', plan: { prices: Record<Currency, number> }) => {
  const currency = LOCALE_CURRENCY[lang];
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(plan.prices[currency] / (currency === 'JPY' ? 1 : 100));
};
const amountIn = (lang: 'en' | 'de' | 'ar' | 'ja', plan: { prices: Record<Currency, number> }) => plan.prices[LOCALE_CURRENCY[lang]];

for (const lang of ['en', 'de', 'ar', 'ja'] as const) {
  const t = messages(lang, 'common').package;

  test.describe(`prices on the package page in ${lang}`, () => {
    test('every card shows its final price in the language’s format; the bar shows the selected one; Checkout opens it', async ({
      page,
    }) => {
      await open(page, lang, '/package/de');
      const germany = plansOf('DE');
      const plans = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      await expect(plans.locator('[data-plan-price]')).toHaveText(germany.map((p) => inPageCurrency(lang, p)));
      await expect(page.getByText(t.vatIncluded)).toBeVisible();
      await expect(page.getByText(t.priceSoon)).toHaveCount(0);

      const checkout = page.getByRole('button', { name: t.checkout });
      await expect(checkout).toBeDisabled();
      await plans.nth(2).click();
      await expect(page.locator('[data-selected-price]')).toHaveText(inPageCurrency(lang, germany[2]!));
      await expect(checkout).toBeEnabled();
      await checkout.click();
      // Signed out: the guard sends the traveller to log in, and back to this plan afterwards.
      await expect(page).toHaveURL(
        `${path(lang, '/login')}?next=${encodeURIComponent(`${path(lang, '/checkout')}?plan=${germany[2]!.id}`)}`,
      );
    });

    test('sorts the plans by price and back, keeping the selection', async ({ page }) => {
      await open(page, lang, '/package/europe');
      const europe = plansOf('europe');
      const cards = page.getByRole('list', { name: t.plansLabel }).getByRole('button');
      const ids = () => cards.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-plan-id')));
      const sort = page.getByRole('combobox', { name: t.sortLabel });
      await expect(sort).toHaveValue('default');
      expect(await ids()).toEqual(europe.map((p) => p.id));

      await cards.nth(1).click();
      await sort.selectOption({ label: t.sortPriceDesc });
      const descending = [...europe].sort((a, b) => amountIn(lang, b) - amountIn(lang, a));
      await expect(cards.locator('[data-plan-price]')).toHaveText(descending.map((p) => inPageCurrency(lang, p)));
      expect(await ids()).toEqual(descending.map((p) => p.id));
      await expect(page.locator(`[data-plan-id="${europe[1]!.id}"]`)).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('[aria-pressed="true"]')).toHaveCount(1);

      await sort.selectOption({ label: t.sortPriceAsc });
      const ascending = [...europe].sort((a, b) => amountIn(lang, a) - amountIn(lang, b));
      expect(await ids()).toEqual(ascending.map((p) => p.id));
      await sort.selectOption({ label: t.sortDefault });
      expect(await ids()).toEqual(europe.map((p) => p.id));
      await expect(page.locator('[data-selected-price]')).toHaveText(inPageCurrency(lang, europe[1]!));
    });
  });
}

import { expect, test, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import type { Locale } from '../../src/i18n/locales.ts';
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';
import { currencyOf, money, priceOf } from './currency-support.ts';
import { hydrated, messages, speak } from './support.ts';

/** Checkout starts from the plan chosen on the package page (issue 13, item 6). */
const PASSWORD = 'travel-safe-1';
const path = (lang: string, route: string) => (lang === 'en' ? route : `/${lang}${route}`);

async function logIn(page: Page, email: string) {
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
}

/** What checkout must show for a plan, computed here with Intl from the snapshot the site was built from. */
function expected(lang: string, id: string) {
  const plan = snapshot.packages.find((p) => p.id === id)!;
  const destination = [...snapshot.countries, ...snapshot.regions].find((d) => d.code === plan.destination)!;
  const common = messages(lang, 'common');
  const count = plan.supportedCountries.length;
  const category = new Intl.PluralRules(lang).select(count);
  const countries = (common.store as Record<string, string>)[`countriesCount_${category}`]!;
  const unit = plan.metadata.dataAmount.unit === 'GB' ? 'gigabyte' : 'megabyte';
  return {
    destination: destination.names[lang as 'en'],
    plan: messages(lang, 'checkout')
      .checkout.plan.replace(
        '{{data}}',
        new Intl.NumberFormat(lang, { style: 'unit', unit, maximumFractionDigits: 1 }).format(plan.metadata.dataAmount.value),
      )
      .replace(
        '{{validity}}',
        new Intl.NumberFormat(lang, { style: 'unit', unit: plan.validityUnit, unitDisplay: 'long' }).format(plan.validity),
      ),
    countries: countries.replace('{{count}}', String(count)),
    // In the page language's currency (issue 34): the browser speaks only the page's language (ja: whole yen, ar: US dollars).
    total: money(lang, priceOf(plan, currencyOf(lang as Locale))),
  };
}

async function expectPlan(page: Page, lang: string, id: string) {
  const want = expected(lang, id);
  const summary = page.locator(`[data-chosen-plan="${id}"]`);
  await expect(summary.locator('[data-destination]')).toHaveText(want.destination);
  await expect(summary.locator('[data-plan]')).toHaveText(want.plan);
  await expect(summary.locator('[data-countries]')).toHaveText(want.countries);
  await expect(summary.locator('[data-total]')).toHaveText(want.total);
  await expect(summary.getByText(messages(lang, 'checkout').checkout.vatIncluded)).toBeVisible();
}

for (const lang of ['en', 'de', 'ar', 'ja'] as const) {
  const m = messages(lang, 'checkout').checkout;
  const common = messages(lang, 'common');

  test.describe(`checkout from a plan in ${lang}`, () => {
    test.beforeEach(async ({ page }) => speak(page, lang));

    test('signed out: Checkout goes through login and back to the plan, shown with its price', async ({ page }) => {
      const email = uniqueEmail('checkout');
      await createAccount(email, PASSWORD);
      await page.goto(path(lang, '/package/europe'));
      await hydrated(page);
      const plan = snapshot.packages.filter((p) => p.destination === 'europe')[3]!;
      await page.locator(`[data-plan-id="${plan.id}"]`).click();
      await page.getByRole('button', { name: common.package.checkout }).click();
      await expect(page).toHaveURL(new RegExp(`${path(lang, '/login')}\\?next=`));
      await logIn(page, email);
      await expect(page).toHaveURL(`${path(lang, '/checkout')}?plan=${plan.id}`);
      await expectPlan(page, lang, plan.id);
      // The rest of checkout follows the plan.
      await expect(page.getByRole('button', { name: m.buyNow })).toBeVisible();
    });

    test('signed in: a country plan; an unknown plan or none says so with a way back; a failed load can be retried', async ({ page }) => {
      const email = uniqueEmail('checkout');
      await createAccount(email, PASSWORD);
      await storedSession(page.context(), email, PASSWORD);
      await page.goto(`${path(lang, '/checkout')}?plan=jp-5gb-30d`);
      await expectPlan(page, lang, 'jp-5gb-30d');

      for (const [query, message] of [
        ['?plan=atlantis-1gb-7d', m.unknownPlan],
        ['', m.noPlan],
      ] as const) {
        await page.goto(`${path(lang, '/checkout')}${query}`);
        await expect(page.getByText(message)).toBeVisible();
        await expect(page.locator('[data-total]')).toHaveCount(0);
        await expect(page.getByRole('button', { name: m.buyNow })).toHaveCount(0);
        await expect(page.getByRole('link', { name: common.package.backToStore })).toHaveAttribute('href', path(lang, '/store'));
      }
      await page.getByRole('link', { name: common.package.backToStore }).click();
      await expect(page).toHaveURL(path(lang, '/store'));

      // The network drops while the plan loads: say so, and Retry loads it once it is back.
      await page.route('**/plans/*.json', (route) => route.abort('internetdisconnected'));
      await page.goto(`${path(lang, '/checkout')}?plan=de-1gb-7d`);
      await expect(page.getByRole('alert')).toHaveText(new RegExp(m.loadFailed.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&')));
      await page.unroute('**/plans/*.json');
      await page.getByRole('button', { name: m.retry }).click();
      await expectPlan(page, lang, 'de-1gb-7d');
    });
  });
}

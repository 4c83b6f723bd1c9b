import { expect, test, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';

/** Look-alike destinations (issue 22 item 5): the flag and the continent beside the name, from the store to checkout. */
const path = (lang: string, route: string) => (lang === 'en' ? route : `/${lang}${route}`);
const nameOf = (code: string, lang: string) => snapshot.countries.find((c) => c.code === code)!.names[lang as 'en'];

/** Continents as a reader of each language expects them, typed here rather than computed as the site does. */
const CONTINENTS = {
  en: { europe: 'Europe', oceania: 'Oceania', africa: 'Africa' },
  de: { europe: 'Europa', oceania: 'Ozeanien', africa: 'Afrika' },
  ar: { europe: 'أوروبا', oceania: 'أوقيانوسيا', africa: 'أفريقيا' },
} as const;

const visibleItems = (page: Page) => page.locator('[role="tabpanel"]:not([hidden]) li[data-search]:not([hidden])');

async function search(page: Page, lang: string, query: string) {
  await speak(page, lang);
  await page.goto(path(lang, '/store'));
  await page.getByRole('searchbox', { name: messages(lang, 'common').store.searchLabel }).fill(query);
}

for (const lang of ['en', 'de'] as const) {
  test(`searching "austr" tells Austria from Australia by flag and continent (${lang})`, async ({ page }) => {
    await search(page, lang, 'austr');
    await expect(visibleItems(page)).toHaveCount(2);
    for (const [code, continent] of [
      ['AT', CONTINENTS[lang].europe],
      ['AU', CONTINENTS[lang].oceania],
    ] as const) {
      const link = visibleItems(page).getByRole('link', { name: new RegExp(`^${nameOf(code, lang)}\\b`) });
      await expect(link.locator('img')).toHaveAttribute('src', `/flags/${code}.svg`);
      await expect(link.locator('img')).toBeVisible();
      await expect(link.locator('small')).toHaveText(continent);
      // Read out with the name: the link says which Austria it is.
      await expect(link).toHaveAccessibleName(new RegExp(`${nameOf(code, lang)} ${continent}`));
    }
  });
}

test('regions, which are no country, have no continent line', async ({ page }) => {
  await search(page, 'en', 'europe');
  await page.getByRole('tab', { name: messages('en', 'common').store.regions }).click();
  await expect(visibleItems(page)).toHaveCount(1);
  await expect(visibleItems(page).locator('small')).toHaveCount(0);
});

for (const [lang, code] of [
  ['en', 'NE'],
  ['ar', 'NG'],
] as const) {
  test(`the package page of ${nameOf(code, 'en')} shows its flag and Africa (${lang})`, async ({ page }) => {
    await speak(page, lang);
    await page.goto(path(lang, `/package/${code.toLowerCase()}`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(nameOf(code, lang));
    await expect(page.locator('main img').first()).toHaveAttribute('src', `/flags/${code}.svg`);
    await expect(page.locator('[data-continent]')).toHaveText(CONTINENTS[lang].africa);
  });
}

test('a region’s package page names no continent', async ({ page }) => {
  await page.goto('/package/europe');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.locator('[data-continent]')).toHaveCount(0);
});

for (const lang of ['en', 'de'] as const) {
  test(`checkout repeats the destination with its flag and continent (${lang})`, async ({ page }) => {
    const email = uniqueEmail('look-alike');
    await createAccount(email, 'travel-safe-1');
    await storedSession(page.context(), email, 'travel-safe-1');
    await speak(page, lang);

    const plan = snapshot.packages.find((p) => p.destination === 'AU')!;
    await page.goto(`${path(lang, '/checkout')}?plan=${plan.id}`);
    await hydrated(page);
    const summary = page.locator(`[data-chosen-plan="${plan.id}"]`);
    await expect(summary.locator('img')).toHaveAttribute('src', '/flags/AU.svg');
    await expect(summary.locator('img')).toBeVisible();
    await expect(summary.locator('[data-destination]')).toHaveText(nameOf('AU', lang));
    await expect(summary.locator('[data-continent]')).toHaveText(CONTINENTS[lang].oceania);

    // A regional plan: its name and flag, and no continent.
    const regional = snapshot.packages.find((p) => p.destination === 'europe')!;
    await page.goto(`${path(lang, '/checkout')}?plan=${regional.id}`);
    const regionSummary = page.locator(`[data-chosen-plan="${regional.id}"]`);
    await expect(regionSummary.locator('img')).toHaveAttribute('src', /^\/flags\/[\w-]+\.svg$/);
    await expect(regionSummary.locator('[data-destination]')).toBeVisible();
    await expect(regionSummary.locator('[data-continent]')).toHaveCount(0);
  });
}

for (const [lang, query] of [
  ['en', 'guinea'],
  ['ar', 'غينيا'],
] as const) {
  test(`axe finds nothing on the store showing look-alike results (${lang})`, async ({ page }) => {
    await search(page, lang, query);
    // Guinea, Guinea-Bissau and Equatorial Guinea in Africa; Papua New Guinea in Oceania.
    await expect(visibleItems(page)).toHaveCount(4);
    await expect(visibleItems(page).locator('small', { hasText: CONTINENTS[lang].africa })).toHaveCount(3);
    await expect(visibleItems(page).locator('small', { hasText: CONTINENTS[lang].oceania })).toHaveCount(1);
    expect(await axeViolations(page)).toEqual([]);
  });
}

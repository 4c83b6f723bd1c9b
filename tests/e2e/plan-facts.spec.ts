import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { localizePath } from '../../src/i18n/paths.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';

/** The plans namespace as the page's language has it. */
type Plans = typeof import('../../locales/en/plans.json');
const plansText = (lang: string): Plans => JSON.parse(readFileSync(new URL(`../../locales/${lang}/plans.json`, import.meta.url), 'utf8'));

/** Intl's own output, never a hand-typed figure (DESIGN 4). */
const amount = (lang: string, value: number, unit: string) =>
  new Intl.NumberFormat(lang, { style: 'unit', unit: unit === 'GB' ? 'gigabyte' : 'megabyte', maximumFractionDigits: 1 }).format(value);
const speed = (lang: string, kbps: number) =>
  kbps >= 1000
    ? new Intl.NumberFormat(lang, { style: 'unit', unit: 'megabit-per-second', maximumFractionDigits: 1 }).format(kbps / 1000)
    : new Intl.NumberFormat(lang, { style: 'unit', unit: 'kilobit-per-second' }).format(kbps);
const fill = (template: string, values: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key]!);

type SnapshotPackage = (typeof snapshot.packages)[number];
const plansOf = (destination: string) => snapshot.packages.filter((p) => p.destination === destination);
const slowedTo = (pkg: SnapshotPackage) => (pkg.facts.data as { after: { slowedToKbps: number } }).after.slowedToKbps;
const nameOf = (code: string, lang: string) => snapshot.countries.find((c) => c.code === code)!.names[lang as 'en'];

async function open(page: Page, lang: string, route: string) {
  await speak(page, lang);
  await page.goto(localizePath(lang as 'en', route));
  await hydrated(page);
}

for (const lang of ['en', 'de', 'ar'] as const) {
  const p = plansText(lang);
  const common = messages(lang, 'common').package;

  test.describe(`plan facts in ${lang}`, () => {
    test('a daily and an unlimited plan show their limit on the card and in the checkout bar', async ({ page }) => {
      await open(page, lang, '/package/de');
      const germany = plansOf('DE');
      const daily = germany.find((pkg) => pkg.facts.data.kind === 'daily' && pkg.facts.data.after !== 'cut')!;
      const unlimited = germany.find((pkg) => pkg.facts.data.kind === 'unlimited')!;
      const total = germany.find((pkg) => pkg.facts.data.kind === 'total')!;
      const volume = (pkg: SnapshotPackage) => amount(lang, pkg.metadata.dataAmount.value, pkg.metadata.dataAmount.unit);

      const dailyCard = page.locator(`[data-plan-id="${daily.id}"]`);
      await expect(dailyCard).toContainText(fill(p.data.daily, { amount: volume(daily) }));
      await expect(dailyCard.locator('[data-plan-limit]')).toHaveText(fill(p.after.slowed, { speed: speed(lang, slowedTo(daily)) }));

      const unlimitedCard = page.locator(`[data-plan-id="${unlimited.id}"]`);
      const fairUse = fill(p.after.fairUse, { amount: volume(unlimited), speed: speed(lang, slowedTo(unlimited)) });
      await expect(unlimitedCard.locator('span').first()).toContainText(p.data.unlimited);
      await expect(unlimitedCard.locator('[data-plan-limit]')).toHaveText(fairUse);
      // An unlimited plan's headline is 'Unlimited', not its fair-use volume.
      await expect(unlimitedCard.locator('span').first()).not.toContainText(volume(unlimited));
      const cut = germany.find((pkg) => pkg.facts.data.after === 'cut')!;
      await expect(page.locator(`[data-plan-id="${cut.id}"] [data-plan-limit]`)).toHaveText(p.after.cut);
      // A total volume has no limit line: its headline is the whole of it.
      await expect(page.locator(`[data-plan-id="${total.id}"] [data-plan-limit]`)).toHaveCount(0);

      await unlimitedCard.click();
      await expect(page.locator('[data-selected-plan]')).toContainText(
        fill(p.summary.unlimited, { amount: volume(unlimited), speed: speed(lang, slowedTo(unlimited)) }),
      );
      await page.getByRole('list', { name: common.plansLabel }).locator(`[data-plan-id="${daily.id}"]`).click();
      await expect(page.locator('[data-selected-plan]')).toContainText(
        fill(p.summary.dailySlowed, { amount: volume(daily), speed: speed(lang, slowedTo(daily)) }),
      );
    });

    test('a country page names its operators and their best network type once, with the facts all plans share', async ({ page }) => {
      // France: all its plans are priced from eSIM Access, so they share every fact (Germany's eSIM Go plans differ in some).
      await open(page, lang, '/package/fr');
      const facts = page.getByRole('region', { name: p.facts.label });
      const networks = facts.locator('li').first();
      const operators = plansOf('FR')[0]!.facts.networks[0]!.operators;
      await expect(networks).toContainText(p.facts.networks.split('{{')[0]!);
      for (const { name, networkType } of operators) {
        await expect(networks).toContainText(name);
        await expect(networks).toContainText(networkType);
      }
      // Best type first: a 5G operator is named before a 4G one.
      const text = (await networks.textContent())!;
      const best = operators.find((o) => o.networkType === '5G')!;
      const other = operators.find((o) => o.networkType !== '5G')!;
      expect(text.indexOf(best.name)).toBeLessThan(text.indexOf(other.name));
      const days = plansOf('FR')[0]!.facts.installWithinDays;
      const installWithin = p.facts[`installWithin_${new Intl.PluralRules(lang).select(days)}` as 'installWithin_other'];
      await expect(facts).toContainText(fill(installWithin, { count: String(days) }));
      // Said once for the page, not on every card.
      await expect(page.getByRole('list', { name: common.plansLabel }).getByText(best.name)).toHaveCount(0);
    });

    test('a regional page lists each country’s networks on demand, opened with the keyboard', async ({ page }) => {
      await open(page, lang, '/package/europe');
      const coverage = page.locator('details').filter({ hasText: common.coverage });
      const list = coverage.locator('[data-covered-countries]');
      await expect(list).toBeHidden();
      await coverage.locator('summary').focus();
      await page.keyboard.press('Enter');
      await expect(list).toBeVisible();
      const europe = plansOf('europe')[0]!;
      expect(await list.locator('li').count()).toBe(europe.supportedCountries.length);
      const germany = list.locator('li[data-country="DE"]');
      await expect(germany).toContainText(nameOf('DE', lang));
      for (const { name, networkType } of europe.facts.networks.find((n) => n.country === 'DE')!.operators) {
        await expect(germany).toContainText(name);
        await expect(germany).toContainText(networkType);
      }
      await expect(page.getByRole('region', { name: p.facts.label })).toContainText(
        fill(p.facts.trafficExit, { country: nameOf(europe.facts.trafficExit!, lang) }),
      );
      await page.keyboard.press('Enter');
      await expect(list).toBeHidden();
    });
  });
}

for (const [lang, theme] of [
  ['en', 'light'],
  ['ar', 'light'],
  ['ar', 'dark'],
] as const) {
  test(`axe finds nothing in the plan facts and the open networks list (${lang}, ${theme})`, async ({ page }) => {
    if (theme === 'dark') await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
    await open(page, lang, '/package/de');
    await expect(page.getByRole('region', { name: plansText(lang).facts.label })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await open(page, lang, '/package/europe');
    // The page's own disclosure, not the language picker's.
    await page.locator('details:has([data-covered-countries]) summary').click();
    await expect(page.locator('[data-covered-countries]')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
  });
}

import { devices, expect, test } from '@playwright/test';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';
import { buy, IPHONE_SAFARI, PASSWORD, PLAN } from './shop-support.ts';
import { axeViolations, messages } from './support.ts';

/**
 * Issue 32 item 1: "Will it work on my phone?" at checkout, before paying. Each language on
 * another device, whose settings the carrier-lock question names: English on the project's Android
 * phone, German on an iPhone whose browser speaks German from Germany (the plan is for Germany,
 * so the gentle destination question shows), Arabic on a computer (both places shown). Each
 * answers the step, sees the advice, reloads to the remembered one-line summary, and still pays:
 * nothing here blocks buying.
 */
const RUNS = {
  en: { userAgent: devices['Pixel 7'].userAgent, languages: ['en'], model: 'Pixel 7', lock: 'unsure', system: 'android' },
  de: { userAgent: IPHONE_SAFARI, languages: ['de-DE', 'de'], model: 'iPhone 15', lock: 'unlocked', system: 'ios' },
  ar: { userAgent: devices['Desktop Chrome'].userAgent, languages: ['ar'], model: null, lock: 'locked', system: 'other' },
} as const;

const ADVICE = { unlocked: 'unlockedAdvice', locked: 'lockedAdvice', unsure: 'unsureAdvice' } as const;
const SUMMARY = { unlocked: 'summaryUnlocked', locked: 'summaryLocked', unsure: 'summaryUnsure' } as const;

for (const lang of ['en', 'de', 'ar'] as const) {
  const { checkout } = messages(lang, 'checkout');
  const m = checkout.phoneCheck;
  const run = RUNS[lang];
  const checkoutUrl = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;
  const destination = new Intl.DisplayNames([lang], { type: 'region' }).of(PLAN.destination)!;

  test.describe(`the phone check at checkout (${lang})`, () => {
    test.use({ userAgent: run.userAgent });

    test(`answers are advice, remembered, and never block paying (${lang})`, async ({ page }) => {
      test.setTimeout(90_000);
      // The browser's languages, with a region where the run has one (the destination question reads it).
      await page.addInitScript((languages) => Object.defineProperty(navigator, 'languages', { get: () => languages }), [...run.languages]);
      const email = uniqueEmail('phone-check');
      await createAccount(email, PASSWORD, { emailVerified: true });
      await storedSession(page.context(), email, PASSWORD);
      await page.goto(checkoutUrl);

      const step = page.locator('[data-phone-check]');
      await expect(step.getByRole('heading', { name: m.title })).toBeVisible();

      // The destination question: only where the browser's region is the plan's country.
      const question = step.locator('[data-destination-question]');
      if (lang === 'de') {
        await expect(question).toContainText(m.elsewhere.replace('{{country}}', destination));
        await expect(question.getByRole('link', { name: m.elsewhereStore })).toHaveAttribute('href', localizePath(lang, '/store'));
      } else {
        await expect(question).toHaveCount(0);
      }

      // The phone model, against the device list (loaded with the step).
      const model = step.getByRole('combobox', { name: m.modelLabel });
      await expect(model).toHaveAccessibleDescription(new RegExp(m.modelHint.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&')));
      await expect(step.locator('#phone-models option')).not.toHaveCount(0);
      if (run.model) {
        await model.fill(run.model);
        await expect(step.locator('[data-model-result]')).toHaveText(m.compatible.replace('{{model}}', run.model));
      } else {
        await model.fill('Nokia 3310');
        await model.blur();
        await expect(step.locator('[data-model-result]')).toHaveText(m.notInList);
        await step.getByRole('button', { name: m.notListed }).click();
        await expect(step.locator('[data-model-result]')).toHaveText(m.notInList);
      }

      // The carrier lock: the place to look on this phone's system (both on a computer).
      const lockGroup = step.getByRole('group', { name: m.lockLegend });
      await expect(lockGroup.getByText(m.whereIos)).toHaveCount(run.system === 'android' ? 0 : 1);
      await expect(lockGroup.getByText(m.whereAndroid)).toHaveCount(run.system === 'ios' ? 0 : 1);
      // By keyboard where it can be: the radio is checked with Space.
      const radio = lockGroup.getByRole('radio', { name: m[run.lock] });
      await radio.focus();
      await page.keyboard.press('Space');
      await expect(radio).toBeChecked();
      await expect(step.locator('[data-lock-advice]')).toHaveText(m[ADVICE[run.lock]]);
      expect(await axeViolations(page)).toEqual([]);

      if (lang === 'de') {
        await question.getByRole('button', { name: m.elsewhereRight.replace('{{country}}', destination) }).click();
        await expect(question).toHaveCount(0);
        await expect(step.getByRole('heading', { name: m.title })).toBeFocused();
      }

      // Back later: one line sums the answers up; the questions are not asked again.
      await page.reload();
      const summary = step.locator('[data-phone-check-summary]');
      const expected = m.summary.replace('{{model}}', run.model ?? m.summaryUnlisted).replace('{{lock}}', m[SUMMARY[run.lock]]);
      await expect(summary).toContainText(expected);
      await expect(step.getByRole('combobox')).toHaveCount(0);
      await expect(question).toHaveCount(0);
      expect(await axeViolations(page)).toEqual([]);

      // Change opens the questions again with the answers kept, the model field focused.
      await summary.getByRole('button', { name: m.change }).click();
      await expect(model).toBeFocused();
      await expect(model).toHaveValue(run.model ?? '');
      await expect(step.getByRole('radio', { name: m[run.lock] })).toBeChecked();

      // Nothing blocks paying, not even a locked phone: on to the payment page.
      await buy(page, lang);
    });
  });
}

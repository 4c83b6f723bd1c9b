import { expect, test, type Page } from '@playwright/test';
import { SUPPORT_FORM_MIN_MS } from '../../src/contract/support-api.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { storedSession, uniqueEmail } from './auth-support.ts';
import { deliveredEsimAt, mailTo, PASSWORD } from './shop-support.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';
import { operatorPage, staff } from './ops-staff.ts';

/**
 * Support that sees the order (issue 32 item 4) against the real parts: a buyer asks from the
 * diagnosis in My eSIMs (the form on /chat opens with that eSIM), an operator reads it in the back
 * office beside the order and answers, and the answer arrives by e-mail (the SMTP stand-in) and on
 * the buyer's profile; a visitor writes with an e-mail address.
 */

/** The form takes a request only SUPPORT_FORM_MIN_MS after it was shown (the spam check): a person's pace. */
const readAndType = (page: Page) => page.waitForTimeout(SUPPORT_FORM_MIN_MS + 200);

/** The e-mail to `address` whose subject has `text`, among the first `upTo`. */
async function mailWithSubject(address: string, text: string, upTo = 4) {
  for (let n = 1; n <= upTo; n++) {
    const mail = await mailTo(address, n);
    if (mail.subject?.includes(text)) return mail;
  }
  throw new Error(`No e-mail to ${address} with "${text}"`);
}

/**
 * The buyer's language, and the operator's (the back office speaks English and German): each
 * language once, left to right and right to left (German's texts are checked by the translation test).
 */
const OPERATOR_LANG = { en: 'en', ar: 'de' } as const;

for (const lang of ['en', 'ar'] as const) {
  test.describe(`support requests (${lang})`, () => {
    const opsLang = OPERATOR_LANG[lang];
    const help = messages(lang, 'help').supportForm;
    const esims = messages(lang, 'esims').myEsim;
    const account = messages(lang, 'account').supportRequests;
    const ops = messages(opsLang, 'ops');
    const mail = messages(lang, 'mail').support;

    test('a buyer asks from the diagnosis; support answers in the back office; the answer arrives by e-mail and on the profile', async ({
      page,
      browser,
    }, testInfo) => {
      test.setTimeout(180_000);
      const { email, order, number } = await deliveredEsimAt(page, lang, localizePath(lang, '/my-esim'));
      await page.getByRole('button', { name: esims.diagnosis.open }).click({ timeout: 15_000 });
      await page.locator('[data-diagnosis]').getByRole('link', { name: esims.diagnosis.askUs }).click();
      await expect(page).toHaveURL(new RegExp(`/chat\\?esim=${order}&cause=not_installed$`));
      await hydrated(page);

      // The form names the eSIM's order and says what goes with the message.
      const form = page.locator('[data-support-form]');
      await expect(form.getByLabel(help.about)).toHaveValue(order, { timeout: 15_000 });
      await expect(form.getByText(help.attached)).toBeVisible();
      expect(await axeViolations(page)).toEqual([]);

      // Too short: a translated error, what was typed kept, nothing sent.
      await form.getByLabel(help.message).fill('Help');
      await form.getByRole('button', { name: help.send }).click();
      await expect(form.getByText(help.errors.messageShort.replace('{{min}}', '10'))).toBeVisible();
      await expect(form.getByLabel(help.message)).toHaveValue('Help');
      await expect(form.getByLabel(help.message)).toBeFocused();
      expect(await axeViolations(page)).toEqual([]);

      await form.getByLabel(help.message).fill('The QR code does not scan on my phone.');
      await readAndType(page);
      await form.getByRole('button', { name: help.send }).click();
      const sent = page.locator('[data-support-sent]');
      await expect(sent).toBeVisible({ timeout: 15_000 });
      const reference = (await sent.getAttribute('data-support-sent'))!;
      expect(reference).toMatch(/^SR-[0-9A-F]{8}$/);
      expect(await axeViolations(page)).toEqual([]);
      const confirmation = await mailWithSubject(email, reference);
      expect(confirmation.subject).toBe(mail.receivedSubject.replace('{{reference}}', reference));

      // The operator: the inbox, the request beside its order and timeline, a reply.
      const operator = await operatorPage(browser, testInfo, opsLang);
      await storedSession(operator.context(), await staff('support'), PASSWORD);
      await operator.goto(localizePath(opsLang, '/ops'));
      await expect(operator.locator('[data-ops-role]')).toBeVisible({ timeout: 15_000 });
      await operator.getByRole('navigation', { name: ops.nav.label }).getByRole('link', { name: ops.nav.support }).click();
      await operator
        .locator('[data-support-inbox]')
        .getByRole('link', { name: new RegExp(reference) })
        .click();
      const request = operator.locator(`[data-support-request="${reference}"]`);
      await expect(request).toContainText('The QR code does not scan on my phone.');
      await expect(request).toContainText('not_installed');
      await expect(operator.locator(`[data-order="${number}"]`)).toBeVisible({ timeout: 15_000 });
      await expect(operator.locator('[data-table="timeline"] tbody tr').first()).toBeVisible();
      await hydrated(operator);
      expect(await axeViolations(operator)).toEqual([]);
      await request.getByLabel(ops.support.replyLabel).fill('Open the camera app and hold it over the code for a few seconds.');
      await request.getByRole('button', { name: ops.support.reply }).click();
      await expect(operator.locator('[data-outcome]')).toHaveAttribute('data-outcome', 'done', { timeout: 15_000 });
      await expect(request.locator('[data-author="operator"]')).toContainText('Open the camera app');
      expect(await axeViolations(operator)).toEqual([]);

      // The answer by e-mail, and on the profile.
      const answer = await mailWithSubject(email, mail.replySubject.replace('{{reference}}', reference));
      expect(answer.text).toContain('Open the camera app and hold it over the code for a few seconds.');
      await page.goto(localizePath(lang, '/profile'));
      const mine = page.locator(`[data-support-requests] [data-support-request="${reference}"]`);
      await expect(mine.locator('[data-author="operator"]')).toContainText('Open the camera app', { timeout: 15_000 });
      await expect(mine).toContainText(account.us);
      await hydrated(page);
      expect(await axeViolations(page)).toEqual([]);

      // Closed by support, reopened by the buyer's follow-up.
      await request.getByRole('button', { name: ops.support.close }).click();
      await expect(operator.locator('[data-support-inbox]').getByRole('link', { name: new RegExp(reference) })).toHaveCount(0, {
        timeout: 15_000,
      });
      // Closed, it is still found by its reference: a search covers closed requests too, and stays in the address.
      const search = operator.getByRole('search');
      await search.getByLabel(ops.support.search).fill(reference);
      await search.getByRole('button', { name: ops.orders.submit }).click();
      await expect(operator.locator('[data-support-inbox]').getByRole('link', { name: new RegExp(reference) })).toContainText(
        ops.support.closedMark,
        { timeout: 15_000 },
      );
      expect(new URL(operator.url()).searchParams.get('q')).toBe(reference);
      expect(await axeViolations(operator)).toEqual([]);
      await operator.getByRole('link', { name: ops.support.showOpen }).click();
      await expect(operator.getByRole('search').getByLabel(ops.support.search)).toHaveValue('');
      await mine.getByLabel(account.followUp).fill('It worked with the camera app, thank you!');
      await mine.getByRole('button', { name: account.send }).click();
      await expect(mine.getByText(account.sent)).toBeVisible({ timeout: 15_000 });
      await expect(mine).toContainText(account.states.open);
      await operator.reload();
      await expect(operator.locator('[data-support-inbox]').getByRole('link', { name: new RegExp(reference) })).toBeVisible({
        timeout: 15_000,
      });
    });

    test('a visitor writes with an e-mail address and gets the confirmation', async ({ page }) => {
      const email = uniqueEmail('visitor');
      await speak(page, lang);
      await page.goto(localizePath(lang, '/chat'));
      await hydrated(page);
      const form = page.locator('[data-support-form]');
      await expect(form.getByLabel(help.email)).toBeVisible({ timeout: 15_000 });
      await form.getByLabel(help.message).fill('Does the Germany plan work in Austria too?');
      await form.getByRole('button', { name: help.send }).click();
      await expect(form.getByText(help.errors.email)).toBeVisible();
      await expect(form.getByLabel(help.message)).toHaveValue('Does the Germany plan work in Austria too?');
      expect(await axeViolations(page)).toEqual([]);
      await form.getByLabel(help.email).fill(email);
      await form.getByLabel(help.orderNumber).fill('ES-2026-000001');
      await readAndType(page);
      await form.getByRole('button', { name: help.send }).click();
      const sent = page.locator('[data-support-sent]');
      await expect(sent).toBeVisible({ timeout: 15_000 });
      const reference = (await sent.getAttribute('data-support-sent'))!;
      // Nothing of any order is told back.
      await expect(sent).not.toContainText('ES-2026');
      expect(await axeViolations(page)).toEqual([]);
      expect((await mailTo(email)).subject).toBe(mail.receivedSubject.replace('{{reference}}', reference));
    });
  });
}

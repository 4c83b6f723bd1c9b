import { expect, test } from '@playwright/test';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { buy, buyAndReceive, leavePaymentSuccess, logIn, partnerControl, PASSWORD, payWith, PLAN, signedInAt } from './shop-support.ts';
import { axeViolations, messages } from './support.ts';
import { currencyOf, currencySymbol } from './currency-support.ts';

/**
 * Issue 33: an eSIM given to a traveller from My eSIMs, with no address (the buyer passes the link
 * on), and a top-up of it bought from the traveller's page by whoever holds the link, signed in
 * with their own account; against the real shop API, Auth emulator and stand-ins.
 */
for (const lang of ['en', 'ar'] as const) {
  const { myEsim, traveller: tr } = messages(lang, 'esims');
  const { paymentSuccess } = messages(lang, 'checkout');
  const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;

  test(`gives an eSIM to a traveller by a link, whose holder tops it up (${lang})`, async ({ page, browser }) => {
    test.setTimeout(150_000);
    await signedInAt(page, lang, checkout);
    const esimId = await buyAndReceive(page, lang);
    await leavePaymentSuccess(page, localizePath(lang, '/my-esim'));
    const card = page.locator(`[data-esim="${esimId}"]`);

    // A name is needed; with it, a link to pass on (no address: no e-mail).
    await card.getByRole('button', { name: tr.give }).click();
    await card.getByRole('button', { name: tr.send }).click();
    await expect(card.locator('[data-traveller-name]')).toBeFocused();
    await expect(card).toContainText(tr.nameMissing);
    await card.locator('[data-traveller-name]').fill('Sami');
    await card.getByRole('button', { name: tr.send }).click();
    await expect(card.locator('[data-link-outcome]')).toHaveText(tr.linkReady);
    await expect(card.locator('[data-traveller-label]')).toContainText('Sami');
    expect(await axeViolations(page)).toEqual([]);
    const link = await card.locator('[data-traveller-link]').inputValue();
    expect(link).toMatch(/\/traveller#[\w-]{43}$/);

    // Sami installs it; on his page, with no account, he may top it up, paying himself once signed in.
    await partnerControl('install', { transactionId: esimId });
    const phone = await browser.newContext();
    const travellerPage = await phone.newPage();
    await travellerPage.goto(link);
    await expect(travellerPage.locator('#traveller-esim')).toContainText('Sami');
    await expect(travellerPage.locator('[data-traveller-esim]')).toHaveAttribute('data-status', 'active', { timeout: 20_000 });
    await travellerPage.locator('[data-traveller-top-up]').getByRole('link', { name: myEsim.topUp }).click();
    // Checkout asks him to sign in first, and comes back.
    await expect(travellerPage).toHaveURL(/\/login\?next=/);
    const holder = uniqueEmail('holder');
    await createAccount(holder, PASSWORD, { emailVerified: true });
    await logIn(travellerPage, holder);
    await expect(travellerPage).toHaveURL(`${localizePath(lang, '/checkout')}?topUp=${esimId}`);
    // Priced in the holder's currency: the page language's (issue 34; Arabic: US dollars).
    await travellerPage
      .locator('[data-top-up-chooser]')
      .getByRole('link')
      .filter({ hasText: currencySymbol(lang, currencyOf(lang)) })
      .first()
      .click();
    await expect(travellerPage).toHaveURL(new RegExp(`plan=topup-[^&]+&topUp=${esimId}`));
    await buy(travellerPage, lang);
    await payWith(travellerPage, '4242 4242 4242 4242');
    await expect(travellerPage.getByRole('status').filter({ hasText: paymentSuccess.toppedUp })).toBeVisible({ timeout: 20_000 });
    await phone.close();
  });
}

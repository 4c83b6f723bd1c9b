import { expect, test } from '@playwright/test';
import { PAYMENT_SUCCESS_REDIRECT_MS } from '../../src/config/constants.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import {
  buy,
  countLoads,
  installCodesOn,
  IPHONE_SAFARI,
  logIn,
  mailTo,
  PASSWORD,
  payWith,
  PLAN,
  signedInAt,
  STRIPE_STAND_IN,
} from './shop-support.ts';
import { messages, speak } from './support.ts';

/**
 * Buying, end to end, against the real parts: the shop API over HTTP on a real PostgreSQL server
 * (playwright.config.ts starts both), Firebase ID tokens from the Auth emulator, and the Stripe
 * stand-in's hosted test-payment page and signed webhooks.
 */
const money = (lang: string, amountMinor: number) =>
  new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amountMinor / 100);

for (const lang of ['en', 'de', 'ar'] as const) {
  const { history } = messages(lang, 'account');
  const { checkout: checkoutTexts, paymentSuccess } = messages(lang, 'checkout');
  const { installCodes } = messages(lang, 'esims');
  const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;

  test.describe(`buying in ${lang}`, () => {
    test('the test card pays: the eSIM appears on payment success without a reload, the same codes arrive by e-mail, then My eSIMs and history', async ({
      page,
    }) => {
      const email = await signedInAt(page, lang, checkout);
      await buy(page, lang);
      await payWith(page, '4242 4242 4242 4242');

      await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/payment-success')}\\?order=[0-9a-f-]{36}$`));
      const loads = countLoads(page);
      const confirmation = page.locator('main');
      await expect(confirmation).toContainText(/ES-\d{4}-\d{6}/);
      await expect(confirmation).toContainText(money(lang, PLAN.price!.amountMinor));
      await expect(confirmation).toContainText('Visa •••• 4242');
      // The page goes from 'preparing' to the eSIM by itself.
      await expect(page.getByRole('status').filter({ hasText: paymentSuccess.ready })).toBeVisible({ timeout: 15_000 });
      const codes = await installCodesOn(page, lang);
      const number = (await page.locator('[data-order-number]').textContent())!.trim();
      expect(loads()).toBe(0);
      await expect(page.getByRole('link', { name: paymentSuccess.viewEsims })).toBeVisible();

      // The order e-mail: in the page's language, with the same codes and the QR code inline.
      const mail = await mailTo(email);
      expect(mail.text).toContain(codes.smdpAddress);
      expect(mail.text).toContain(codes.activationCode);
      expect(mail.subject).toContain(number);
      expect(mail.html).toContain(`lang="${lang}"`);
      expect(mail.attachments.filter((a) => a.contentType === 'image/png')).toHaveLength(1);

      await page.waitForURL(`**${localizePath(lang, '/my-esim')}`, { timeout: PAYMENT_SUCCESS_REDIRECT_MS + 5_000 });
      await page.goto(localizePath(lang, '/history'));
      const order = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(order).toHaveCount(1);
      await expect(order).toContainText(history.states.delivered);
      await expect(order).toContainText(money(lang, PLAN.price!.amountMinor));
      await expect(order).toContainText('Visa •••• 4242');
      await expect(order.getByRole('link', { name: new RegExp(history.receipt) })).toHaveAttribute(
        'href',
        new RegExp(`^${STRIPE_STAND_IN}/receipts/ch_test_`),
      );
    });

    test.describe('on an iPhone', () => {
      test.use({ userAgent: IPHONE_SAFARI });
      test('payment success offers the one-tap install link with the LPA string, and the buyer can stay on the page', async ({ page }) => {
        await signedInAt(page, lang, checkout);
        await buy(page, lang);
        await payWith(page, '4242 4242 4242 4242');
        const codes = await installCodesOn(page, lang);
        const link = page.getByRole('link', { name: installCodes.iphoneLink });
        await expect(link).toHaveAttribute(
          'href',
          `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(codes.lpa)}`,
        );
        await page.getByRole('button', { name: paymentSuccess.stay }).click();
        await page.waitForTimeout(PAYMENT_SUCCESS_REDIRECT_MS + 1_000);
        await expect(page).toHaveURL(new RegExp(localizePath(lang, '/payment-success')));
      });
    });

    test('a declined card is refused on the payment page; Cancel returns to checkout with the plan still chosen, nothing paid', async ({
      page,
    }) => {
      await signedInAt(page, lang, checkout);
      await buy(page, lang);
      await payWith(page, '4000 0000 0000 0002');
      await expect(page.getByRole('alert')).toHaveText('Your card was declined.');
      await payWith(page, '4000 0000 0000 9995');
      await expect(page.getByRole('alert')).toHaveText('Your card has insufficient funds.');
      await page.getByRole('button', { name: 'Cancel' }).click();

      await expect(page).toHaveURL(`${checkout}&cancelled=1`);
      await expect(page.getByText(checkoutTexts.cancelled)).toBeVisible();
      await expect(page.getByRole('button', { name: checkoutTexts.buyNow })).toBeVisible();
      await page.goto(localizePath(lang, '/history'));
      const order = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(order).toHaveCount(1);
      await expect(order).toContainText(history.states.pending_payment);
    });

    test('without both consents nothing is ordered', async ({ page }) => {
      await signedInAt(page, lang, checkout);
      await page.locator('#consent-terms').check();
      await page.getByRole('button', { name: checkoutTexts.buyNow }).click();
      await expect(page.locator('#consent-immediate-start')).toBeFocused();
      await page.goto(localizePath(lang, '/history'));
      await expect(page.getByText(history.empty)).toBeVisible();
    });

    test('a signed-out visitor is sent to login and comes back to the same plan', async ({ page }) => {
      const email = uniqueEmail('purchase');
      await createAccount(email, PASSWORD);
      await speak(page, lang);
      await page.goto(checkout);
      await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/login')}\\?next=`));
      await logIn(page, email);
      await expect(page).toHaveURL(checkout);
      await expect(page.getByRole('button', { name: checkoutTexts.buyNow })).toBeVisible();
      await expect(page.locator('main')).toContainText(money(lang, PLAN.price!.amountMinor));
    });

    test('two tabs buying the same plan at once make one order, paid once', async ({ page, context }) => {
      await signedInAt(page, lang, checkout);
      const second = await context.newPage();
      await second.goto(checkout);
      for (const tab of [page, second]) {
        await tab.locator('#consent-terms').check();
        await tab.locator('#consent-immediate-start').check();
      }
      await Promise.all([page, second].map((tab) => tab.getByRole('button', { name: checkoutTexts.buyNow }).click()));
      await Promise.all([page, second].map((tab) => expect(tab).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/`))));
      expect(second.url()).toBe(page.url());

      await payWith(page, '4242 4242 4242 4242');
      await expect(page.getByText(paymentSuccess.ready)).toBeVisible({ timeout: 15_000 });
      await second.reload();
      await expect(second.getByRole('status')).toHaveText('This payment is complete.');
      await expect(second.getByRole('button', { name: /^Pay / })).toHaveCount(0);

      await page.goto(localizePath(lang, '/history'));
      const orders = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(orders).toHaveCount(1);
      await expect(orders).toContainText(history.states.delivered);
    });
  });
}

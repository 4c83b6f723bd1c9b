import { expect, test, type Page } from '@playwright/test';
import { PAYMENT_SUCCESS_REDIRECT_MS } from '../../src/config/constants.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { buy, payWith, PLAN, STRIPE_STAND_IN } from './shop-support.ts';
import { messages, speak } from './support.ts';

/**
 * Buying, end to end, against the real parts: the shop API over HTTP on a real PostgreSQL server
 * (playwright.config.ts starts both), Firebase ID tokens from the Auth emulator, and the Stripe
 * stand-in's hosted test-payment page and signed webhooks.
 */
const PASSWORD = 'travel-safe-1';
const money = (lang: string, amountMinor: number) => new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amountMinor / 100);

async function logIn(page: Page, email: string) {
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
}

/** A new account, signed in through the login page's return to `url`. */
async function signedInAt(page: Page, lang: string, url: string): Promise<string> {
  const email = uniqueEmail('purchase');
  await createAccount(email, PASSWORD);
  await speak(page, lang);
  await page.goto(url);
  await logIn(page, email);
  await expect(page).toHaveURL(url);
  return email;
}

for (const lang of ['en', 'de', 'ar'] as const) {
  const auth = messages(lang, 'auth');
  const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;

  test.describe(`buying in ${lang}`, () => {
    test('the test card pays: payment success shows the paid order, moves on to My eSIMs, and history lists it with its receipt', async ({ page }) => {
      await signedInAt(page, lang, checkout);
      await buy(page, lang);
      await payWith(page, '4242 4242 4242 4242');

      await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/payment-success')}\\?order=[0-9a-f-]{36}$`));
      await expect(page.getByText(auth.paymentSuccess.received)).toBeVisible();
      const confirmation = page.locator('main');
      await expect(confirmation).toContainText(/ES-\d{4}-\d{6}/);
      await expect(confirmation).toContainText(money(lang, PLAN.price!.amountMinor));
      await expect(confirmation).toContainText('Visa •••• 4242');
      await expect(page.getByRole('link', { name: auth.paymentSuccess.viewEsims })).toBeVisible();
      await page.waitForURL(`**${localizePath(lang, '/my-esim')}`, { timeout: PAYMENT_SUCCESS_REDIRECT_MS + 5_000 });

      await page.goto(localizePath(lang, '/history'));
      const order = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(order).toHaveCount(1);
      await expect(order).toContainText(auth.history.states.paid);
      await expect(order).toContainText(money(lang, PLAN.price!.amountMinor));
      await expect(order).toContainText('Visa •••• 4242');
      await expect(order.getByRole('link', { name: new RegExp(auth.history.receipt) })).toHaveAttribute('href', new RegExp(`^${STRIPE_STAND_IN}/receipts/ch_test_`));
    });

    test('a declined card is refused on the payment page; Cancel returns to checkout with the plan still chosen, nothing paid', async ({ page }) => {
      await signedInAt(page, lang, checkout);
      await buy(page, lang);
      await payWith(page, '4000 0000 0000 0002');
      await expect(page.getByRole('alert')).toHaveText('Your card was declined.');
      await payWith(page, '4000 0000 0000 9995');
      await expect(page.getByRole('alert')).toHaveText('Your card has insufficient funds.');
      await page.getByRole('button', { name: 'Cancel' }).click();

      await expect(page).toHaveURL(`${checkout}&cancelled=1`);
      await expect(page.getByText(auth.checkout.cancelled)).toBeVisible();
      await expect(page.getByRole('button', { name: auth.checkout.buyNow })).toBeVisible();
      await page.goto(localizePath(lang, '/history'));
      const order = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(order).toHaveCount(1);
      await expect(order).toContainText(auth.history.states.pending_payment);
    });

    test('without both consents nothing is ordered', async ({ page }) => {
      await signedInAt(page, lang, checkout);
      await page.locator('#consent-terms').check();
      await page.getByRole('button', { name: auth.checkout.buyNow }).click();
      await expect(page.locator('#consent-immediate-start')).toBeFocused();
      await page.goto(localizePath(lang, '/history'));
      await expect(page.getByText(auth.history.empty)).toBeVisible();
    });

    test('a signed-out visitor is sent to login and comes back to the same plan', async ({ page }) => {
      const email = uniqueEmail('purchase');
      await createAccount(email, PASSWORD);
      await speak(page, lang);
      await page.goto(checkout);
      await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/login')}\\?next=`));
      await logIn(page, email);
      await expect(page).toHaveURL(checkout);
      await expect(page.getByRole('button', { name: auth.checkout.buyNow })).toBeVisible();
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
      await Promise.all([page, second].map((tab) => tab.getByRole('button', { name: auth.checkout.buyNow }).click()));
      await Promise.all([page, second].map((tab) => expect(tab).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/`))));
      expect(second.url()).toBe(page.url());

      await payWith(page, '4242 4242 4242 4242');
      await expect(page.getByText(auth.paymentSuccess.received)).toBeVisible();
      await second.reload();
      await expect(second.getByRole('status')).toHaveText('This payment is complete.');
      await expect(second.getByRole('button', { name: /^Pay / })).toHaveCount(0);

      await page.goto(localizePath(lang, '/history'));
      const orders = page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ });
      await expect(orders).toHaveCount(1);
      await expect(orders).toContainText(auth.history.states.paid);
    });
  });
}

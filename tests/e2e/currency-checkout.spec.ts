import { expect, test, type BrowserContext, type Request } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { STORAGE_KEYS } from '../../src/config/constants.ts';
import type { Currency } from '../../src/config/currencies.ts';
import type { CreateCartRequest, CreateOrderRequest } from '../../src/contract/shop-api.ts';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { CART_STORAGE_KEY } from '../../src/features/cart/cart-storage.ts';
import { money, pickCurrency, priceOf } from './currency-support.ts';
import { buy, leavePaymentSuccess, mailTo, partnerControl, payWith, PLAN, signedInAt, STRIPE_STAND_IN } from './shop-support.ts';
import { hydrated, messages } from './support.ts';

/**
 * Prices in the traveller's currency on the buyer's side (issue 34, item 4), against the real parts
 * (the shop API, the Auth emulator, the Stripe, partner and SMTP stand-ins): with pounds chosen on
 * a German page, checkout, the payment page, payment success, the order e-mail and the history all
 * show the one amount charged; My eSIMs offers top-ups in pounds; a currency picked in another tab
 * moves an open checkout and the cart to it.
 */
const JAPAN = snapshot.packages.find((p) => p.id === 'jp-5gb-30d')!;

const isPost = (path: string) => (request: Request) => request.method() === 'POST' && request.url() === `${LOCAL_API_BASE_URL}${path}`;

/** Another tab of this browser picks `currency` (what the currency picker stores): open pages hear of it. */
async function pickInAnotherTab(context: BrowserContext, currency: Currency): Promise<void> {
  const tab = await context.newPage();
  await tab.goto('/robots.txt');
  await tab.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEYS.currency, currency] as const);
  await tab.close();
}

test('pounds chosen on a German page: checkout, the payment page, payment success, the e-mail and the history show the one amount; top-ups in pounds', async ({
  page,
  context,
}) => {
  test.setTimeout(150_000);
  const lang = 'de';
  const { paymentSuccess } = messages(lang, 'checkout');
  const { myEsim } = messages(lang, 'esims');
  await pickCurrency(context, 'GBP');
  const price = priceOf(PLAN, 'GBP');
  const shown = money(lang, price);
  expect(shown).toContain('£');

  const email = await signedInAt(page, lang, `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`);
  await expect(page.locator(`[data-chosen-plan="${PLAN.id}"] [data-total]`)).toHaveText(shown);
  await expect(page.locator('[data-buy-price]')).toHaveText(shown);

  const ordered = page.waitForRequest(isPost('/orders'));
  await buy(page, lang);
  expect(((await ordered).postDataJSON() as CreateOrderRequest).expectedPrice).toEqual(price);
  // The Stripe stand-in's page (in English) charges the same pounds.
  await expect(page.locator('.amount')).toHaveText(money('en', price));
  await expect(page.getByRole('button', { name: /^Pay / })).toHaveText(`Pay ${money('en', price)}`);
  await payWith(page, '4242 4242 4242 4242');

  await expect(page.locator('[data-order-total]')).toHaveText(shown);
  await expect(page.getByRole('status').filter({ hasText: paymentSuccess.ready })).toBeVisible({ timeout: 15_000 });
  const orderId = new URL(page.url()).searchParams.get('order')!;
  const number = (await page.locator('[data-order-number]').textContent())!.trim();

  const mail = await mailTo(email);
  expect(mail.subject).toContain(number);
  expect(mail.text).toContain(shown);
  expect(mail.text).not.toContain('€');

  await leavePaymentSuccess(page, localizePath(lang, '/history'));
  const order = page.locator('[data-orders] [data-order]').filter({ hasText: number });
  await expect(order.locator('[data-total]')).toHaveText(shown);

  // On the phone: My eSIMs offers its top-ups in pounds, asked for in pounds.
  await partnerControl('install', { transactionId: orderId });
  await page.goto(localizePath(lang, '/my-esim'));
  const card = page.getByRole('list', { name: myEsim.listLabel }).getByRole('listitem').filter({ hasText: number });
  await expect(card).toContainText(myEsim.statuses.active);
  const listed = page.waitForRequest((r) => r.url().startsWith(`${LOCAL_API_BASE_URL}/esims/`) && r.url().includes('/top-ups?'));
  await card.getByRole('button', { name: myEsim.topUp, exact: true }).click();
  expect(new URL((await listed).url()).searchParams.get('currency')).toBe('GBP');
  const offers = card.locator('[data-top-up-plan]');
  await expect(offers.first()).toBeVisible();
  for (const text of await offers.allTextContents()) expect(text).toContain('£');

  // Euros picked in another tab: the list follows, asked for again in euros.
  const again = page.waitForRequest((r) => r.url().includes('/top-ups?') && r.url().includes('currency=EUR'));
  await pickInAnotherTab(context, 'EUR');
  await again;
  await expect(offers.first()).toContainText('€');
  for (const text of await offers.allTextContents()) expect(text).not.toContain('£');
  // A paid order stays in what it was paid in.
  await page.goto(localizePath(lang, '/history'));
  await expect(order.locator('[data-total]')).toHaveText(shown);
});

test('a currency picked in another tab moves an open checkout to it, ticks kept; the cart shows and pays in it', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const lang = 'en';
  const { cart: cartTexts } = messages(lang, 'checkout');
  // No pick: an English page (a browser speaking just English) shows euros.
  await signedInAt(page, lang, `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`);
  const total = page.locator(`[data-chosen-plan="${PLAN.id}"] [data-total]`);
  await expect(total).toHaveText(money(lang, priceOf(PLAN, 'EUR')));
  await page.locator('#consent-terms').check();
  await page.locator('#consent-immediate-start').check();

  await pickInAnotherTab(context, 'GBP');
  const pounds = money(lang, priceOf(PLAN, 'GBP'));
  await expect(total).toHaveText(pounds);
  await expect(page.locator('[data-buy-price]')).toHaveText(pounds);
  await expect(page.locator('#consent-terms')).toBeChecked();
  await expect(page.locator('#consent-immediate-start')).toBeChecked();

  // A cart filled in euros (its lines remember the price seen): shown, stored and paid in pounds, not as a moved price.
  await page.evaluate(([key, lines]) => localStorage.setItem(key, lines), [
    CART_STORAGE_KEY,
    JSON.stringify([{ planId: JAPAN.id, quantity: 2, price: priceOf(JAPAN, 'EUR') }]),
  ] as const);
  await page.goto(localizePath(lang, '/cart'));
  await hydrated(page);
  const cartTotal = money(lang, { amountMinor: 2 * JAPAN.prices.GBP, currency: 'GBP' });
  await expect(page.locator('[data-cart-total]')).toHaveText(cartTotal);
  await expect(page.locator('[data-price-moved]')).toHaveCount(0);
  expect(JSON.parse((await page.evaluate((key) => localStorage.getItem(key), CART_STORAGE_KEY))!)).toEqual([
    { planId: JAPAN.id, quantity: 2, price: priceOf(JAPAN, 'GBP') },
  ]);
  await page.locator('#consent-terms').check();
  await page.locator('#consent-immediate-start').check();
  const ordered = page.waitForRequest(isPost('/carts'));
  await page.getByRole('button', { name: cartTexts.buyAll }).click();
  expect(((await ordered).postDataJSON() as CreateCartRequest).items).toEqual([
    { planId: JAPAN.id, quantity: 2, expectedPrice: priceOf(JAPAN, 'GBP') },
  ]);
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
  await expect(page.locator('.amount')).toHaveText(money('en', { amountMinor: 2 * JAPAN.prices.GBP, currency: 'GBP' }));
});

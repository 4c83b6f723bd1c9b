import { expect, test } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { localizePath } from '../../src/i18n/paths.ts';
import { installCodesOn, mailTo, payWith, signedInAt, STRIPE_STAND_IN } from './shop-support.ts';
import { axeViolations, messages } from './support.ts';

/**
 * Issue 33: a cart for the whole trip, against the real parts (the shop API, the Auth emulator, the
 * Stripe and partner stand-ins): two destinations added from their package pages, a quantity
 * changed in the cart, one payment for every eSIM, and payment success showing each eSIM's codes.
 */
const JAPAN = snapshot.packages.find((p) => p.id === 'jp-5gb-30d')!;
const KOREA = snapshot.packages.find((p) => p.id === 'kr-3gb-15d')!;

for (const lang of ['en', 'de', 'ar'] as const) {
  const common = messages(lang, 'common');
  const { cart: c, paymentSuccess: done } = messages(lang, 'checkout');
  const euros = (amountMinor: number) => new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amountMinor / 100);

  test(`buys eSIMs for two destinations and three travellers on one payment (${lang})`, async ({ page }) => {
    test.setTimeout(150_000);
    const email = await signedInAt(page, lang, localizePath(lang, '/cart'));
    await expect(page.locator('[data-cart-empty]')).toContainText(c.empty);
    const cartLink = page.locator('header [data-cart-link]');
    await expect(cartLink).toBeHidden();

    for (const plan of [JAPAN, KOREA]) {
      await page.goto(localizePath(lang, `/package/${plan.destination.toLowerCase()}`));
      await page.locator(`[data-plan-id="${plan.id}"]`).click();
      await page.getByRole('button', { name: common.package.addToCart }).click();
      await expect(page.locator('[data-cart-added]')).toContainText(common.package.addedToCart);
    }
    // The header counts the eSIMs, on this page and the next.
    await expect(cartLink.locator('[data-cart-badge]')).toHaveText(new Intl.NumberFormat(lang).format(2));
    await page.getByRole('link', { name: common.package.viewCart }).click();
    await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/cart')}$`));

    const lines = page.locator('[data-cart-line]');
    await expect(lines).toHaveCount(2);
    await expect(page.locator('[data-cart-total]')).toHaveText(euros(JAPAN.price!.amountMinor + KOREA.price!.amountMinor));
    // Two travellers to Japan: one more, by keyboard.
    const more = lines.first().getByRole('button', { name: c.more.split('{{plan}}')[0]!.trim() });
    await more.focus();
    await page.keyboard.press('Enter');
    await expect(lines.first().locator('[data-quantity]')).toHaveValue('2');
    const total = 2 * JAPAN.price!.amountMinor + KOREA.price!.amountMinor;
    await expect(page.locator('[data-cart-total]')).toHaveText(euros(total));
    await expect(cartLink.locator('[data-cart-badge]')).toHaveText(new Intl.NumberFormat(lang).format(3));
    expect(await axeViolations(page)).toEqual([]);

    // Buying asks for both consents first, as for one plan.
    await page.getByRole('button', { name: c.buyAll }).click();
    await expect(page.locator('#consent-terms')).toBeFocused();
    await page.locator('#consent-terms').check();
    await page.locator('#consent-immediate-start').check();
    await page.getByRole('button', { name: c.buyAll }).click();
    await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
    await payWith(page, '4242 4242 4242 4242');

    // Payment success: every eSIM of the payment, each with its own codes.
    await expect(page.locator('[data-cart-progress]')).toHaveText(done.cartProgress.replace('{{ready}}', '3').replace('{{count}}', '3'), {
      timeout: 30_000,
    });
    const orders = page.locator('[data-cart] [data-order]');
    await expect(orders).toHaveCount(3);
    const codes = new Set<string>();
    for (let i = 0; i < 3; i++) codes.add((await installCodesOn(page, lang, orders.nth(i))).activationCode);
    expect(codes.size).toBe(3);
    await expect(page.getByRole('heading', { name: done.cartHeading })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    // Paid: the cart is empty, and each eSIM had its own e-mail.
    await expect(cartLink).toBeHidden();
    await mailTo(email, 3);
  });
}

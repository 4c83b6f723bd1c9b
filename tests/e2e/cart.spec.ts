import { expect, test } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { localizePath } from '../../src/i18n/paths.ts';
import { installCodesOn, IPHONE_SAFARI, mailTo, payWith, signedInAt, STRIPE_STAND_IN } from './shop-support.ts';
import { axeViolations, hydrated, messages } from './support.ts';
import { currencyOf, money } from './currency-support.ts';

/**
 * Issue 33: a cart for the whole trip, against the real parts (the shop API, the Auth emulator, the
 * Stripe and partner stand-ins): two destinations added from their package pages, a quantity
 * changed in the cart, one payment for every eSIM, and payment success showing each eSIM's codes.
 */
const JAPAN = snapshot.packages.find((p) => p.id === 'jp-5gb-30d')!;
const KOREA = snapshot.packages.find((p) => p.id === 'kr-3gb-15d')!;
const JAPAN_COUNTRY = snapshot.countries.find((c) => c.code === 'JP')!;

// Issue 46 item 7: each line shows its destination's flag as a picture, never the flag file's address as text.
for (const lang of ['en', 'ar'] as const) {
  const common = messages(lang, 'common');
  test(`shows each line's flag as a picture and no file address in its text (${lang})`, async ({ page }) => {
    // The cart is a signed-in page.
    await signedInAt(page, lang, localizePath(lang, '/cart'));
    await page.goto(localizePath(lang, `/package/${JAPAN.destination.toLowerCase()}`));
    await hydrated(page);
    await page.locator(`[data-plan-id="${JAPAN.id}"]`).click();
    await page.getByRole('button', { name: common.package.addToCart }).click();
    await page.getByRole('link', { name: common.package.viewCart }).click();
    await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/cart')}$`));
    await expect(page.locator('html')).toHaveAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');

    const line = page.locator(`[data-cart-line="${JAPAN.id}"]`);
    const name = line.locator('[data-cart-line-name]');
    // What a person reads: no path of a file anywhere on the line, the destination's name first.
    await expect(line).toContainText(JAPAN_COUNTRY.names[lang]);
    await expect(line).not.toContainText('/flags/');
    await expect(line).not.toContainText('.svg');
    await expect(name).toHaveText(new RegExp(`^${JAPAN_COUNTRY.names[lang]}:`));
    // What a person sees: the flag, loaded and drawn, beside the name, at the line's start (the right in Arabic).
    const flag = line.locator('img[data-cart-flag]');
    await expect(flag).toBeVisible();
    await expect(flag).toHaveAttribute('src', JAPAN_COUNTRY.flag);
    await expect.poll(() => flag.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBeGreaterThan(0);
    // Decorative: the name beside it says the destination, so it is not read out twice.
    await expect(flag).toHaveAttribute('alt', '');
    const [flagBox, nameBox] = [(await flag.boundingBox())!, (await name.boundingBox())!];
    expect(flagBox.width).toBeGreaterThan(0);
    expect(Math.abs(flagBox.y + flagBox.height / 2 - (nameBox.y + nameBox.height / 2))).toBeLessThan(nameBox.height);
    if (lang === 'ar') expect(flagBox.x).toBeGreaterThanOrEqual(nameBox.x + nameBox.width - 1);
    else expect(flagBox.x + flagBox.width).toBeLessThanOrEqual(nameBox.x + 1);
    await line.screenshot({ path: test.info().outputPath(`cart-line-${lang}.png`) });
    expect(await axeViolations(page)).toEqual([]);
  });
}

// Left to right and right to left; German's texts are checked by the translation test, its prices by the package and store pages.
for (const lang of ['en', 'ar'] as const) {
  const common = messages(lang, 'common');
  const { cart: c, paymentSuccess: done } = messages(lang, 'checkout');
  const { traveller: tr, myEsim } = messages(lang, 'esims');
  // In the page language's currency: the browser speaks only the page's language (issue 34; ar: US dollars).
  const currency = currencyOf(lang);
  const inCurrency = (amountMinor: number) => money(lang, { amountMinor, currency });

  test(`buys eSIMs for two destinations and three travellers on one payment (${lang})`, async ({ page, browser }) => {
    test.setTimeout(180_000);
    const email = await signedInAt(page, lang, localizePath(lang, '/cart'));
    await expect(page.locator('[data-cart-empty]')).toContainText(c.empty);
    const cartLink = page.locator('header [data-cart-link]');
    await expect(cartLink).toBeHidden();

    for (const plan of [JAPAN, KOREA]) {
      await page.goto(localizePath(lang, `/package/${plan.destination.toLowerCase()}`));
      // A card pressed before its island hydrates selects nothing, and 'Add to cart' then stays disabled.
      await hydrated(page);
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
    await expect(page.locator('[data-cart-total]')).toHaveText(inCurrency(JAPAN.prices[currency] + KOREA.prices[currency]));
    // Two travellers to Japan: one more, by keyboard.
    const more = lines.first().getByRole('button', { name: c.more.split('{{plan}}')[0]!.trim() });
    await more.focus();
    await page.keyboard.press('Enter');
    await expect(lines.first().locator('[data-quantity]')).toHaveValue('2');
    const total = 2 * JAPAN.prices[currency] + KOREA.prices[currency];
    await expect(page.locator('[data-cart-total]')).toHaveText(inCurrency(total));
    await expect(cartLink.locator('[data-cart-badge]')).toHaveText(new Intl.NumberFormat(lang).format(3));
    expect(await axeViolations(page)).toEqual([]);

    // The two Japan eSIMs are for Ana, who gets her own e-mail, and Ben, who has no address.
    const ana = `ana-${lang}-${Date.now()}@example.com`;
    const japan = lines.first();
    await japan.getByText(c.travellers).click();
    const names = japan.locator('[data-traveller-name]');
    const addresses = japan.locator('[data-traveller-email]');
    await expect(names).toHaveCount(2);
    await names.nth(0).fill('Ana');
    await addresses.nth(0).fill('ana@');
    await names.nth(1).fill('Ben');
    expect(await axeViolations(page)).toEqual([]);

    // Buying asks for both consents first, as for one plan, then for an address that can be one.
    await page.getByRole('button', { name: c.buyAll }).click();
    await expect(page.locator('#consent-terms')).toBeFocused();
    await page.locator('#consent-terms').check();
    await page.locator('#consent-immediate-start').check();
    await page.getByRole('button', { name: c.buyAll }).click();
    await expect(addresses.nth(0)).toBeFocused();
    await expect(japan).toContainText(tr.emailInvalid);
    await expect(names.nth(1)).toHaveValue('Ben');
    await addresses.nth(0).fill(ana);
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

    // Ana's own e-mail: her eSIM and a private link, nothing of the buyer.
    const anaMail = await mailTo(ana);
    expect(anaMail.text).not.toContain(email);
    // One of the payment's eSIMs, hers alone.
    expect([...codes].filter((code) => anaMail.text?.includes(code))).toHaveLength(1);
    const link = /(https?:\/\/\S+\/traveller#[\w-]{43})/.exec(anaMail.text ?? '')?.[1];
    expect(link).toBeDefined();
    // Opened on her iPhone, with no account: the one-tap install, her name, nothing of the buyer.
    const phone = await browser.newContext({ userAgent: IPHONE_SAFARI });
    const travellerPage = await phone.newPage();
    await travellerPage.goto(link!);
    await expect(travellerPage.locator('#traveller-esim')).toContainText('Ana');
    await expect(travellerPage.locator('[data-iphone-install]')).toBeVisible();
    await expect(travellerPage.locator('body')).not.toContainText(email);
    await expect(travellerPage.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
    expect(await axeViolations(travellerPage)).toEqual([]);

    // My eSIMs labels each eSIM with its traveller; the buyer stops Ana's link, and refunds Ben's eSIM.
    await page.goto(localizePath(lang, '/my-esim'));
    await expect(page.locator('[data-traveller-label]')).toHaveCount(2);
    const cardFor = (name: string) =>
      page.locator('[data-esim]').filter({ has: page.locator('[data-traveller-label]', { hasText: name }) });
    await cardFor('Ana').getByRole('button', { name: tr.manage }).click();
    await cardFor('Ana').getByRole('button', { name: tr.revoke }).click();
    await expect(cardFor('Ana').locator('[data-link-outcome]')).toHaveText(tr.revoked);
    await travellerPage.reload();
    await expect(travellerPage.locator('[data-traveller-missing="notFound"]')).toContainText(tr.notFound);
    await phone.close();

    const ben = cardFor('Ben');
    await ben.getByRole('button', { name: myEsim.refund }).click();
    await page.getByRole('dialog', { name: myEsim.refundTitle }).getByRole('button', { name: myEsim.refundConfirm }).click();
    await expect(ben).toContainText(myEsim.statuses.refunded, { timeout: 30_000 });
    await expect(cardFor('Ana')).toContainText(myEsim.statuses.ready);
    expect(await axeViolations(page)).toEqual([]);
  });
}

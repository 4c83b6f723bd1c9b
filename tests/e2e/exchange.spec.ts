import { expect, test } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { localizePath } from '../../src/i18n/paths.ts';
import { buyAndReceive, deliveredEsimAt } from './shop-support.ts';
import { axeViolations, messages } from './support.ts';

/**
 * Issue 32 item 5: an eSIM bought for the wrong destination, exchanged in one step from My eSIMs,
 * against the real parts (the shop API, the Auth emulator, the Stripe and partner stand-ins): the
 * store, then checkout says what it exchanges (a plan of the same destination is refused with the
 * reason, the exchange kept), the meant plan is paid, and the old eSIM ends refunded.
 */
const MEANT = snapshot.packages.find((p) => p.id === 'fr-1gb-7d')!;
const SAME_PLACE = snapshot.packages.find((p) => p.id === 'de-3gb-15d')!;

// Left to right and right to left; German's texts are checked by the translation test, its prices by the package and store pages.
for (const lang of ['en', 'ar'] as const) {
  const { myEsim: m } = messages(lang, 'esims');
  const { checkout: c } = messages(lang, 'checkout');
  const checkoutOf = (planId: string) => `${localizePath(lang, '/checkout')}?plan=${planId}`;

  test(`exchanges an unused eSIM for the destination that was meant (${lang})`, async ({ page }) => {
    test.setTimeout(120_000);
    // The eSIM bought for the wrong destination (Germany), delivered; the exchange is bought here.
    const { order: wrong } = await deliveredEsimAt(page, lang, localizePath(lang, '/my-esim'));
    const card = page.locator(`[data-esim="${wrong}"]`);
    await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.ready, { timeout: 15_000 });
    const wrongName = (await card.locator('[data-destination]').textContent())!.trim();
    await expect(card.locator('[data-exchange]')).toContainText(m.exchangeHint);
    expect(await axeViolations(page)).toEqual([]);
    // By keyboard, like a link: on to the store.
    await card.getByRole('link', { name: m.exchange }).focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/store')}/?$`));

    // A plan of the same destination: refused with the reason, the exchange kept, nothing lost.
    await page.goto(checkoutOf(SAME_PLACE.id));
    const notice = page.locator('[data-exchange-notice]');
    await expect(notice.locator('p')).toHaveText(c.exchangeNotice.replace('{{destination}}', wrongName));
    await page.locator('#consent-terms').check();
    await page.locator('#consent-immediate-start').check();
    await page.getByRole('button', { name: c.buyNow }).click();
    await expect(page.getByRole('alert')).toContainText(c.exchangeSameDestination.replace('{{destination}}', wrongName));
    await expect(notice).toBeVisible();
    await expect(page.locator('#consent-terms')).toBeChecked();
    expect(await axeViolations(page)).toEqual([]);

    // The plan meant: paid, delivered; the wrong one refunded once the new one is here.
    await page.goto(checkoutOf(MEANT.id));
    await expect(notice).toContainText(wrongName);
    const meant = await buyAndReceive(page, lang);
    expect(meant).not.toBe(wrong);
    await page.goto(localizePath(lang, '/my-esim'));
    await expect(page.locator(`[data-esim="${meant}"] [data-esim-status]`)).toHaveText(m.statuses.ready, { timeout: 15_000 });
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator(`[data-esim="${wrong}"] [data-esim-status]`).textContent({ timeout: 10_000 });
        },
        { timeout: 30_000 },
      )
      .toBe(m.statuses.refunded);
    // Exchanged once: the refunded eSIM offers no exchange, and this tab's checkout names none any more.
    await expect(page.locator(`[data-esim="${wrong}"] [data-exchange]`)).toHaveCount(0);
    await page.goto(checkoutOf(MEANT.id));
    await expect(page.getByRole('button', { name: c.buyNow })).toBeEnabled();
    await expect(notice).toHaveCount(0);
  });
}

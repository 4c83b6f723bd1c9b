import { expect, test, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { STORAGE_KEYS } from '../../src/config/constants.ts';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { waitUntilSaved } from './own-site.ts';
import { currencyOf, currencySymbol } from './currency-support.ts';
import {
  buy,
  buyAndReceive,
  deliveredEsimAt,
  installCodesOn,
  leavePaymentSuccess,
  mailTo,
  partnerControl,
  PASSWORD,
  payWith,
  PLAN,
  signedInAt,
} from './shop-support.ts';
import { axeViolations, messages } from './support.ts';
import { AUTH_EMULATOR, staff } from './ops-staff.ts';

/**
 * My eSIMs end to end, against the real parts: the shop API on a real PostgreSQL server, the Auth
 * emulator, and the Stripe, eSIM Access and SMTP stand-ins (playwright.config.ts starts them all).
 */
const destination = (lang: string) => snapshot.countries.find((c) => c.code === PLAN.destination)!.names[lang as 'en'];

// Left to right and right to left; German's texts are checked by the translation test, its prices by the package and store pages.
for (const lang of ['en', 'ar'] as const) {
  const { profile, history } = messages(lang, 'account');
  const { checkout: checkoutTexts, paymentSuccess } = messages(lang, 'checkout');
  const { myEsim: m, installCodes } = messages(lang, 'esims');
  const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;
  const myEsims = localizePath(lang, '/my-esim');
  const card = (page: Page, orderNumber: string) =>
    page.getByRole('list', { name: m.listLabel }).getByRole('listitem').filter({ hasText: orderNumber });
  const numberOn = async (page: Page) => (await page.locator('[data-order-number]').textContent())!.trim();

  test.describe(`My eSIMs in ${lang}`, () => {
    test('lists the eSIM with its status, data bar and codes; refunds it unused; tops up an installed one through checkout', async ({
      page,
    }) => {
      const email = await signedInAt(page, lang, checkout);
      await buyAndReceive(page, lang);
      const number = await numberOn(page);
      const codes = await installCodesOn(page, lang);
      expect(await axeViolations(page)).toEqual([]);

      await leavePaymentSuccess(page, myEsims);
      const first = card(page, number);
      await expect(first).toContainText(destination(lang));
      await expect(first).toContainText(m.statuses.ready);
      await expect(first.locator('meter, [role="progressbar"]')).toBeVisible();
      await first.getByRole('button', { name: m.showCodes }).click();
      expect(await installCodesOn(page, lang, first)).toEqual(codes);
      expect(await axeViolations(page)).toEqual([]);

      // Never installed: refundable. The partner cancels it, Stripe refunds, an e-mail confirms.
      await first.getByRole('button', { name: m.refund }).click();
      const dialog = page.getByRole('dialog', { name: m.refundTitle });
      await dialog.getByRole('button', { name: m.refundConfirm }).click();
      await expect(first).toContainText(m.statuses.refunded);
      await expect(first.getByRole('button', { name: m.refund })).toHaveCount(0);
      await expect(first.getByRole('img', { name: installCodes.qrLabel })).toHaveCount(0);
      const refundMail = await mailTo(email, 2);
      expect(refundMail.subject).toContain(number);
      expect(refundMail.attachments).toHaveLength(0);

      // A second eSIM, installed on the phone and partly used: no refund, a top-up instead.
      await page.goto(checkout);
      const second = await buyAndReceive(page, lang);
      const secondNumber = await numberOn(page);
      await partnerControl('install', { transactionId: second });
      await partnerControl('usage', { transactionId: second, usedBytes: 300 * 1024 ** 2 });
      await leavePaymentSuccess(page, myEsims);
      const installed = card(page, secondNumber);
      await expect(installed).toContainText(m.statuses.active);
      await expect(installed.getByRole('button', { name: m.refund })).toHaveCount(0);
      // The partner's DATA_USAGE notification is a hint: the shop reads the figures in its batch
      // ~2 s later (alerts.ts, usageHint), so the traveller sees them on the next load of the page.
      await expect(async () => {
        await page.reload();
        await expect(installed).toContainText(new Intl.NumberFormat(lang).format(300), { timeout: 2_000 });
      }).toPass({ timeout: 30_000 });
      await installed.getByRole('button', { name: m.topUp, exact: true }).click();
      // Priced in the page language's currency (issue 34): the browser speaks only the page's language (ar: US dollars).
      const offer = installed
        .locator('[data-top-up-plan]')
        .filter({ hasText: currencySymbol(lang, currencyOf(lang)) })
        .first();
      await offer.click();
      // One of the partner's own top-ups of this eSIM (its id 'topup-…'), shown from the shop API.
      await expect(page).toHaveURL(new RegExp(`plan=topup-[^&]+&topUp=${second}`));
      await expect(page.locator('main')).toContainText(checkoutTexts.topUpTitle);
      await expect(page.locator('[data-top-up-summary]')).toContainText(destination(lang));
      await buy(page, lang);
      await payWith(page, '4242 4242 4242 4242');
      await expect(page.getByRole('status').filter({ hasText: paymentSuccess.toppedUp })).toBeVisible({ timeout: 15_000 });

      await page.goto(localizePath(lang, '/history'));
      await expect(page.getByRole('listitem').filter({ hasText: /ES-\d{4}-\d{6}/ })).toHaveCount(3);
      await expect(page.getByRole('listitem').filter({ hasText: number })).toContainText(history.states.refunded);
    });

    test.describe('with the offline worker', () => {
      // playwright.config.ts blocks the worker elsewhere.
      test.use({ serviceWorkers: 'allow' });

      test('reads offline after a visit, codes included, and forgets the eSIMs on logout', async ({ page, context }) => {
        const { number } = await deliveredEsimAt(page, lang, myEsims);
        await expect(card(page, number)).toContainText(m.statuses.ready);
        await card(page, number).getByRole('button', { name: m.showCodes }).click();
        const codes = await installCodesOn(page, lang, card(page, number));
        await waitUntilSaved(page, [myEsims]);

        await context.setOffline(true);
        await page.reload();
        await expect(page.getByText(m.offline.split('{{')[0]!.trim())).toBeVisible();
        const offline = card(page, number);
        await offline.getByRole('button', { name: m.showCodes }).click();
        expect(await installCodesOn(page, lang, offline)).toEqual(codes);
        await context.setOffline(false);

        expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.savedEsims)).not.toBeNull();
        await page.goto(localizePath(lang, '/profile'));
        await page.getByRole('button', { name: profile.logout }).click();
        await expect(page).not.toHaveURL(/profile/);
        expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.savedEsims)).toBeNull();
      });
    });

    test('another account sees neither the eSIM nor its codes', async ({ page, browser }) => {
      // The buyer's eSIM, delivered to an account of their own.
      const { order } = await deliveredEsimAt(page, lang);

      const stranger = await (await browser.newContext()).newPage();
      await signedInAt(stranger, lang, myEsims);
      await expect(stranger.getByText(m.empty)).toBeVisible();
      await stranger.goto(`${localizePath(lang, '/payment-success')}?order=${order}`);
      await expect(stranger.getByText(paymentSuccess.notFound)).toBeVisible();
      await expect(stranger.getByRole('img', { name: installCodes.qrLabel })).toHaveCount(0);
      await stranger.context().close();
    });
  });
}

/** An admin's call of the back office's API (an ID token from the Auth emulator, with the role claim staff() gave). */
async function asAdmin(path: string, body: object): Promise<{ outcome: string }> {
  const email = await staff('admin');
  const signIn = await fetch(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, returnSecureToken: true }),
  });
  const { idToken } = (await signIn.json()) as { idToken: string };
  const response = await fetch(`${LOCAL_API_BASE_URL}/ops${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${idToken}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { outcome: string };
}

// Issue 46 item 8: an eSIM in use that the back office pauses says so in My eSIMs, with what to do, as the traveller's link does.
for (const lang of ['en', 'ar'] as const) {
  const { myEsim: m } = messages(lang, 'esims');
  const myEsims = localizePath(lang, '/my-esim');

  test(`a paused eSIM says it is paused and what to do, never Active, and offers nothing that cannot work (${lang})`, async ({ page }) => {
    test.setTimeout(150_000);
    const { order, number } = await deliveredEsimAt(page, lang, myEsims);
    // On the traveller's phone and in use.
    await partnerControl('install', { transactionId: order });
    await page.reload();
    const card = page.locator('[data-esim]').filter({ hasText: number });
    await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.active);

    // Paused by the back office (the partner's data service suspended), then My eSIMs opened again.
    expect(
      await asAdmin(`/orders/${order}/esim/suspend`, { reason: 'e2e pause for the buyer', idempotencyKey: `e2e-pause-${order}` }),
    ).toMatchObject({
      outcome: 'done',
    });
    await page.reload();
    await expect(card).toHaveAttribute('data-status', 'suspended');
    await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.suspended);
    await expect(card).not.toContainText(m.statuses.active);
    // What it means and what to do, on the card itself: no "Not working?" needed to learn it.
    const paused = card.locator('[data-esim-paused]');
    await expect(paused.getByRole('heading', { name: m.diagnosis.causes.suspended.title })).toBeVisible();
    await expect(paused).toContainText(m.diagnosis.causes.suspended.fix);
    const ask = paused.getByRole('link', { name: m.contactSupport });
    await expect(ask).toHaveAttribute('href', `${localizePath(lang, '/chat')}?esim=${order}&cause=suspended`);
    // Nothing to install, top up or refund while it is paused.
    for (const name of [m.showCodes, m.topUp, m.refund]) await expect(card.getByRole('button', { name })).toHaveCount(0);
    await expect(card.locator('[data-install-codes], [data-exchange], [data-top-up-unsupported]')).toHaveCount(0);
    await card.screenshot({ path: test.info().outputPath(`paused-card-${lang}.png`) });
    expect(await axeViolations(page)).toEqual([]);

    // The support form knows which eSIM it is about.
    await ask.click();
    await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/chat')}\\?esim=${order}&cause=suspended$`));
  });
}

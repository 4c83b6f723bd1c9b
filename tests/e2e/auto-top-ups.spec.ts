import { expect, test, type Page } from '@playwright/test';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { AutoTopUpView, SavedCardAnswer, type AutoTopUpRequest, type OrderList } from '../../src/contract/shop-api.ts';
import type { Locale } from '../../src/i18n/locales.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { buy, deliveredEsimAt, mailTo, partnerControl, PASSWORD, payWith, PLAN, signedInAt, STRIPE_STAND_IN } from './shop-support.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';

/**
 * Automatic top-ups (issue 49) in the browser, against the real shop API, Auth emulator and
 * stand-ins: turned on in My eSIMs with the consent the page shows, the card saved on the Stripe
 * stand-in's page and back at the eSIM, turned off; and the e-mail's link that pays a top-up the
 * bank wanted authenticated, then the one that turns them off.
 */

const GIB = 2 ** 30;

/** The buyer's eSIM delivered and installed, and My eSIMs open on it. */
async function installedEsimOnMyEsims(page: Page, lang: Locale) {
  const bought = await deliveredEsimAt(page, lang);
  await partnerControl('install', { transactionId: bought.order });
  await signedInAt(page, lang, localizePath(lang, '/my-esim'), bought.email);
  const card = page.locator(`[data-esim="${bought.order}"]`);
  await expect(card).toHaveAttribute('data-status', 'active', { timeout: 20_000 });
  return { ...bought, card };
}

/** The shop API as the buyer, with their ID token, as the pages call it. */
function buyerApi(idToken: string) {
  return (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${LOCAL_API_BASE_URL}${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
}

/**
 * `card` saved as the page saves one: Stripe's page (the stand-in's, posted over HTTP as the
 * browser posts it) and back; then the eSIM's automatic top-ups on, twice at most.
 */
async function savedCardAndAutoTopUpsOn(api: ReturnType<typeof buyerApi>, lang: Locale, order: string, card: string) {
  const { url } = (await (await api('/me/card', { method: 'POST', body: { lang, esimId: order } })).json()) as { url: string };
  const saved = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'save', card }), redirect: 'manual' });
  const sessionId = new URL(saved.headers.get('location')!).searchParams.get('card_saved');
  expect((await api('/me/card/saved', { method: 'POST', body: { sessionId } })).status).toBe(200);
  await expect.poll(async () => (await api(`/auto-top-ups/esims/${order}?lang=${lang}`)).status, { timeout: 20_000 }).toBe(200);
  const view = AutoTopUpView.parse(await (await api(`/auto-top-ups/esims/${order}?lang=${lang}`)).json());
  const request: AutoTopUpRequest = { packageId: null, maxCount: 2, monthlyCapMinor: view.offers[0]!.price.amountMinor * 2, lang };
  expect((await api(`/auto-top-ups/esims/${order}`, { method: 'PUT', body: request })).status).toBe(200);
}

for (const lang of ['en', 'de', 'ar'] as const) {
  const m = messages(lang, 'esims').autoTopUp;

  test(`turns automatic top-ups on with the consent shown and a card saved on Stripe’s page, then off (${lang})`, async ({ page }) => {
    test.setTimeout(120_000);
    const { order, card } = await installedEsimOnMyEsims(page, lang);
    const section = card.locator('[data-auto-top-up]');
    await section.locator('[data-auto-top-up-toggle]').click();
    const form = section.locator('[data-auto-top-up-form]');
    await expect(form).toBeVisible({ timeout: 15_000 });
    // The consent the choices make, by the tick box: the cheapest top-up, twice at most, in the page's language.
    const consent = section.locator('[data-consent-text]');
    await expect(consent).toContainText(m.consentCheapest);
    // Not ticked: said, and nothing saved.
    await form.getByRole('button', { name: m.turnOn }).click();
    await expect(section.getByRole('alert')).toHaveText(m.agreeRequired);
    await form.getByLabel(m.maxCount).fill('3');
    await expect(consent).toContainText('3');
    const agreed = await consent.textContent();
    await form.getByLabel(m.agree).check();
    expect(await axeViolations(page)).toEqual([]);

    // On, and no card yet: Stripe's page saves one (its details never reach the shop), then back to this eSIM.
    await form.getByRole('button', { name: m.turnOn }).click();
    await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Save card' }).click();
    await expect(page).toHaveURL(new RegExp(`${localizePath(lang, '/my-esim')}#auto-top-up-${order}$`));
    await hydrated(page);
    await expect(section.getByRole('status').filter({ hasText: m.cardSaved })).toBeVisible({ timeout: 15_000 });
    await expect(section.locator('[data-saved-card]')).toContainText('4242');
    // The consent as given, word for word, with the switch on.
    await expect(section.locator('[data-auto-top-up-consent] blockquote')).toHaveText(agreed!);
    await expect(section.locator('[data-auto-top-up-toggle]')).toHaveText(m.state_on);
    expect(await axeViolations(page)).toEqual([]);

    await section.getByRole('button', { name: m.turnOff }).click();
    await expect(section.locator('[data-auto-top-up-toggle]')).toHaveText(m.state_off);
    await expect(section.locator('[data-auto-top-up-consent]')).toHaveCount(0);
  });
}

for (const lang of ['ar', 'de'] as const) {
  const m = messages(lang, 'esims').autoTopUp;

  test(`pays on-session the top-up the bank wanted authenticated, from the e-mail's link; the other link turns them off (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(150_000);
    const { order, email, idToken } = await deliveredEsimAt(page, lang);
    await partnerControl('install', { transactionId: order });
    const api = buyerApi(idToken);
    // A card that always asks for authentication, saved as the page saves one, and automatic top-ups on.
    await savedCardAndAutoTopUpsOn(api, lang, order, '4000002760003184');

    // 95 % used: the bank asks for authentication, so nothing is charged, and the e-mail brings the link.
    await partnerControl('usage', { transactionId: order, usedBytes: Math.ceil(0.95 * GIB) });
    let mail = await mailTo(email, 2);
    for (let n = 3; !/auto-top-up\?token=/.test(mail.text ?? ''); n++) mail = await mailTo(email, n);
    const links = [...(mail.text ?? '').matchAll(/https?:\/\/[^\s>]+\/auto-top-up\?token=[^\s>)]+/g)].map((found) => new URL(found[0]));
    const [pay, off] = links.map((link) => `${link.pathname}${link.search}`);
    expect(pay).toContain(`${localizePath(lang, '/auto-top-up')}?token=`);

    await speak(page, lang);
    await page.goto(pay!);
    await hydrated(page);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(m.pay.title);
    await expect(page.locator('[data-auto-top-up-plan]')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('form button[type="submit"]').click();
    await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
    // On-session, the bank's authentication is done on Stripe's page.
    await payWith(page, '4000 0027 6000 3184');
    // Back on the link's page (no sign-in needed): paid; the shop then adds the data.
    await expect(page).toHaveURL(/\/auto-top-up\?token=.+&paid=1$/);
    await expect(page.getByRole('status')).toHaveText(m.pay.paid);
    await expect
      .poll(async () => AutoTopUpView.parse(await (await api(`/auto-top-ups/esims/${order}?lang=${lang}`)).json()).charges[0]?.state, {
        timeout: 30_000,
      })
      .toBe('delivered');

    // The same link later says it is paid; the e-mail's other link turns automatic top-ups off after a click.
    await page.goto(pay!);
    await expect(page.getByRole('status')).toHaveText(m.pay.paid);
    await page.goto(off!);
    await hydrated(page);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(m.off.title);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: m.off.button }).click();
    await expect(page.getByRole('status')).toContainText(m.off.done.split('{{')[0]!);
    const after = AutoTopUpView.parse(await (await api(`/auto-top-ups/esims/${order}?lang=${lang}`)).json());
    expect(after.setting?.enabled).toBe(false);
  });
}

for (const lang of ['en', 'ar'] as const) {
  const m = messages(lang, 'esims').autoTopUp;
  const profilePath = localizePath(lang, '/profile');
  const myEsimsPath = localizePath(lang, '/my-esim');

  test(`shows the saved card on the profile and removes it there, with the keyboard; automatic top-ups are then off (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const { order, email, idToken } = await deliveredEsimAt(page, lang);
    await partnerControl('install', { transactionId: order });
    const api = buyerApi(idToken);
    await savedCardAndAutoTopUpsOn(api, lang, order, '4242424242424242');
    const { card: saved } = SavedCardAnswer.parse(await (await api('/me/card')).json());

    await signedInAt(page, lang, profilePath, email);
    await expect(page.locator('html')).toHaveAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');
    const section = page.locator('[data-profile-card="saved-card"]');
    await expect(section.getByRole('heading', { level: 2 })).toHaveText(m.profileHeading);
    const card = section.locator('[data-saved-card]');
    await expect(card).toContainText(m.card.replace('{{brand}}', 'Visa').replace('{{last4}}', '4242'), { timeout: 15_000 });
    const expiry = section.locator('[data-card-expiry]');
    await expect(expiry).toContainText(m.cardExpires.split('{{')[0]!.trim());
    await expect(expiry).toContainText(String(saved!.expYear));
    await expect(expiry).toContainText(String(saved!.expMonth).padStart(2, '0'));
    await expect(card).toContainText(m.profileUse);
    await hydrated(page);
    expect(await axeViolations(page)).toEqual([]);

    // With the keyboard: the notice takes the focus of the button that went with the card.
    await section.locator('[data-remove-card]').focus();
    await page.keyboard.press('Enter');
    await expect(section.getByRole('status')).toHaveText(m.cardRemoved);
    await expect(page.locator(':focus')).toContainText(m.cardRemoved);
    await expect(card).toHaveCount(0);
    expect(SavedCardAnswer.parse(await (await api('/me/card')).json()).card).toBeNull();

    await page.reload();
    await expect(section.locator('[data-no-card]')).toContainText(m.profileNoCard, { timeout: 15_000 });
    await expect(card).toHaveCount(0);

    // Every eSIM's automatic top-ups went off with the card.
    await page.goto(myEsimsPath);
    const esim = page.locator(`[data-esim="${order}"]`);
    await expect(esim).toBeVisible({ timeout: 20_000 });
    await hydrated(page);
    const topUps = esim.locator('[data-auto-top-up]');
    await topUps.locator('[data-auto-top-up-toggle]').click();
    await expect(topUps.locator('[data-auto-top-up-toggle]')).toHaveText(m.state_off, { timeout: 15_000 });
    await expect(topUps.locator('[data-auto-top-up-consent]')).toHaveCount(0);
    await expect(topUps.locator('[data-no-card]')).toBeVisible();
  });

  test(`says on the profile that no card is saved, with the way to My eSIMs (${lang})`, async ({ page }) => {
    await signedInAt(page, lang, profilePath);
    await expect(page.locator('html')).toHaveAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');
    const section = page.locator('[data-profile-card="saved-card"]');
    await expect(section.locator('[data-no-card]')).toContainText(m.profileNoCard, { timeout: 15_000 });
    await expect(section.locator('[data-saved-card]')).toHaveCount(0);
    await hydrated(page);
    await section.getByRole('link', { name: m.myEsims }).click();
    await expect(page).toHaveURL(myEsimsPath);
  });
}

test('ticked at checkout: the consent shown for the limits typed, the card the payment saves kept for the top-ups to come (de)', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const lang = 'de';
  const m = messages(lang, 'esims').autoTopUp;
  const email = uniqueEmail('auto-checkout');
  const idToken = await createAccount(email, PASSWORD, { emailVerified: true });
  await signedInAt(page, lang, `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`, email);
  const box = page.locator('[data-checkout-auto-top-up]');
  await box.getByLabel(m.agree).check();
  await box.getByLabel(m.maxCount).fill('3');
  await box.getByLabel(m.monthlyCap.split('(')[0]!.trim(), { exact: false }).fill('12,50');
  const consent = box.locator('[data-consent-text]');
  await expect(consent).toContainText(m.consentCheapest);
  await expect(consent).toContainText('12,50');
  expect(await axeViolations(page)).toEqual([]);
  const agreed = await consent.textContent();
  await buy(page, lang);
  await payWith(page, '4242 4242 4242 4242');
  await expect(page).toHaveURL(/\/payment-success\?order=/, { timeout: 20_000 });
  const api = async (path: string) =>
    (await fetch(`${LOCAL_API_BASE_URL}${path}`, { headers: { Authorization: `Bearer ${idToken}` } })).json() as Promise<unknown>;
  const delivered = async () =>
    (api(`/orders?lang=${lang}`) as Promise<OrderList>).then(({ orders }) => orders.find((o) => o.state === 'delivered'));
  await expect.poll(async () => (await delivered())?.id, { timeout: 30_000 }).toBeTruthy();
  const order = (await delivered())!.id;
  await expect.poll(async () => JSON.stringify(await api('/me/card')), { timeout: 20_000 }).toContain('"last4":"4242"');
  await partnerControl('install', { transactionId: order });
  await expect
    .poll(
      async () =>
        (await fetch(`${LOCAL_API_BASE_URL}/auto-top-ups/esims/${order}?lang=${lang}`, { headers: { Authorization: `Bearer ${idToken}` } }))
          .status,
      {
        timeout: 20_000,
      },
    )
    .toBe(200);
  const view = AutoTopUpView.parse(await api(`/auto-top-ups/esims/${order}?lang=${lang}`));
  expect(view.setting).toMatchObject({ enabled: true, maxCount: 3, monthlyCap: { amountMinor: 1250 }, consentText: agreed });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { DEFAULT_MAIL_DIR as MAIL_DIR } from '../../stand-ins/smtp/server.ts';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { CreateOrderResponse, OrderView, type CreateOrderRequest } from '../../src/contract/shop-api.ts';
import type { Locale } from '../../src/i18n/locales.ts';
import { currencyOf, priceOf } from './currency-support.ts';
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';
import { messages, speak } from './support.ts';

/** The Stripe stand-in's hosted test-payment page that playwright.config.ts starts. */
export const STRIPE_STAND_IN = 'http://127.0.0.1:12111';
/** A plan the tests buy. */
export const PLAN = snapshot.packages.find((p) => p.id === 'de-1gb-7d')!;

/** On the checkout page: both consents, Buy now, and on to the payment page (the order is open). */
export async function buy(page: Page, lang: string): Promise<void> {
  const m = messages(lang, 'checkout').checkout;
  await page.locator('#consent-terms').check();
  await page.locator('#consent-immediate-start').check();
  await page.getByRole('button', { name: m.buyNow }).click();
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
}

/** On the payment page: pays with one of Stripe's test cards. */
export async function payWith(page: Page, card: string): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByRole('button', { name: /^Pay / }).click();
}

/** Safari on an iPhone with iOS 18: the one-tap install link is offered there. */
export const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/** The eSIM Access stand-in that playwright.config.ts starts with the shop (scripts/local-shop.ts). */
export const PARTNER_STAND_IN = 'http://127.0.0.1:8790';

/** The push-service stand-in started with the shop (scripts/local-shop.ts): the one push endpoint besides the browsers' push services the API takes. */
export const PUSH_SERVICE_STAND_IN = 'http://127.0.0.1:8090';

/** What a traveller's phone or the partner does to an eSIM (stand-ins/esim-access: /_stand-in/ controls). */
export async function partnerControl(name: 'install' | 'usage' | 'fail-next', body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${PARTNER_STAND_IN}/_stand-in/${name}`, { method: 'POST', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`partner stand-in ${name}: ${response.status} ${await response.text()}`);
}

/** Counts full page loads of the main frame from now on (an island that updates by itself makes none). */
export function countLoads(page: Page): () => number {
  let loads = 0;
  page.on('load', () => loads++);
  return () => loads;
}

/** The install codes section as a traveller reads it: the QR code by its name, the manual codes, the LPA string they make. */
export async function installCodesOn(page: Page, lang: string, scope: Locator = page.locator('main')) {
  const m = messages(lang, 'esims').installCodes;
  await expect(scope.getByRole('img', { name: m.qrLabel })).toBeVisible({ timeout: 15_000 });
  await expect(scope.locator('[data-qr-code] svg')).toBeVisible();
  const smdpAddress = (await scope.locator('[data-code="smdp"]').textContent())!.trim();
  const activationCode = (await scope.locator('[data-code="activation"]').textContent())!.trim();
  await expect(scope.getByRole('button', { name: m.copy.replace('{{what}}', m.smdpAddress) })).toBeVisible();
  await expect(scope.getByRole('button', { name: m.copy.replace('{{what}}', m.activationCode) })).toBeVisible();
  expect(smdpAddress).toMatch(/^[a-z0-9.-]+$/);
  return { smdpAddress, activationCode, lpa: `LPA:1$${smdpAddress}$${activationCode}` };
}

/** The e-mail the SMTP stand-in captured for this address (scripts/local-shop.ts writes each as .eml under reports/mail/). */
export async function mailTo(address: string, count = 1): Promise<ParsedMail> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found: ParsedMail[] = [];
    for (const file of readdirSync(MAIL_DIR).filter((name) => name.endsWith('.eml'))) {
      const raw = readFileSync(join(MAIL_DIR, file));
      if (!raw.includes(address)) continue;
      const mail = await simpleParser(raw);
      if ([mail.to].flat().some((to) => to?.text.includes(address))) found.push(mail);
    }
    if (found.length >= count) return found.sort((a, b) => (a.date?.getTime() ?? 0) - (b.date?.getTime() ?? 0))[count - 1]!;
    if (Date.now() > deadline) throw new Error(`No e-mail #${count} to ${address} in ${MAIL_DIR}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

export const PASSWORD = 'travel-safe-1';

export async function logIn(page: Page, email: string): Promise<void> {
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
}

/**
 * Leaves payment success for `url`. The page moves on to My eSIMs by itself 5 s after the eSIM
 * shows; on a slow machine that move can start while the test's own navigation is under way and
 * abort it (net::ERR_ABORTED, or 'interrupted by another navigation'), even twice: it is made again,
 * and when the page's own move was to `url` itself, that move is waited for instead.
 */
export async function leavePaymentSuccess(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url);
      return;
    } catch (error) {
      if (attempt === 3 || !/net::ERR_ABORTED|interrupted by another navigation/.test(String(error))) throw error;
      if (new URL(page.url()).pathname === new URL(url, page.url()).pathname) {
        await page.waitForLoadState('load');
        return;
      }
    }
  }
}

/**
 * A new account (or the one given), its session stored on this device, at `url`; answers its
 * address. The login form's own way back is auth.spec.ts's, auth-redirect.spec.ts's and
 * checkout-plan.spec.ts's.
 */
export async function signedInAt(page: Page, lang: string, url: string, existing?: string): Promise<string> {
  const email = existing ?? uniqueEmail('purchase');
  // Confirmed: the order e-mail carries the install codes to confirmed addresses only.
  if (!existing) await createAccount(email, PASSWORD, { emailVerified: true });
  await storedSession(page.context(), email, PASSWORD);
  await speak(page, lang);
  await page.goto(url);
  await expect(page).toHaveURL(url);
  return email;
}

/**
 * A delivered eSIM for a test that reads it rather than buys it (issue 47 item 6; the purchase in
 * the browser is purchase.spec.ts's and my-esims.spec.ts's): a new confirmed account, its order of
 * PLAN in the page's currency opened through the shop API and paid with the test card on the Stripe
 * stand-in's page over HTTP, as the browser posts it; then, given a `url` (or one made from the
 * order's id), that account signed in there.
 */
export async function deliveredEsimAt(
  page: Page,
  lang: Locale,
  at?: string | ((order: string) => string),
): Promise<{ email: string; order: string; number: string; idToken: string }> {
  const email = uniqueEmail('reader');
  const idToken = await createAccount(email, PASSWORD, { emailVerified: true });
  const api = (path: string, body?: CreateOrderRequest) =>
    fetch(`${LOCAL_API_BASE_URL}${path}`, {
      ...(body && { method: 'POST', body: JSON.stringify(body) }),
      headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json' },
    });
  const opened = await api('/orders', {
    planId: PLAN.id,
    lang,
    expectedPrice: priceOf(PLAN, currencyOf(lang)),
    consents: { terms: true, immediateStart: true },
  });
  expect(opened.status).toBe(201);
  const { order, checkoutUrl } = CreateOrderResponse.parse(await opened.json());
  const paid = await fetch(checkoutUrl, {
    method: 'POST',
    body: new URLSearchParams({ action: 'pay', card: '4242424242424242' }),
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);
  await expect
    .poll(
      async () => {
        const view = OrderView.parse(await (await api(`/orders/${order.id}?lang=${lang}`)).json());
        return view.state === 'delivered' && !!view.esim?.install;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const url = typeof at === 'function' ? at(order.id) : at;
  if (url) await signedInAt(page, lang, url, email);
  return { email, order: order.id, number: order.number, idToken };
}

/** From checkout to the delivered eSIM on payment success with the test card; answers the order id. */
export async function buyAndReceive(page: Page, lang: string): Promise<string> {
  await buy(page, lang);
  await payWith(page, '4242 4242 4242 4242');
  await expect(page.getByRole('status').filter({ hasText: messages(lang, 'checkout').paymentSuccess.ready })).toBeVisible({
    timeout: 15_000,
  });
  return new URL(page.url()).searchParams.get('order')!;
}

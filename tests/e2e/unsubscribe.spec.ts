import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import type { AlertPreferences, CreateOrderRequest } from '../../src/contract/shop-api.ts';
import type { PlanData } from '../../src/features/checkout/plan-data.ts';
import { fill } from '../../src/i18n/fill.ts';
import { ALERT_DATA_USED_SHARE } from '../../src/config/constants.ts';
import type { Locale } from '../../src/i18n/locales.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { unsubscribeToken } from '../../src/server/alerts/unsubscribe-token.ts';
import type { EmailAlertKind } from '../../src/shop-client/unsubscribe-alerts.ts';
import { uniqueEmail } from './auth-support.ts';
import { PASSWORD, PLAN } from './shop-support.ts';
import { axeViolations, hydrated, messages, recordCspViolations, speak } from './support.ts';

/**
 * The alert e-mails' unsubscribe page (issue 23) against the real shop API: tokens signed with the
 * run's ALERTS_SECRET, which playwright.config.ts gives the API (scripts/local-shop.ts).
 */
const secret = process.env.ALERTS_SECRET!;

/**
 * A new buyer in the Auth emulator with an open order (alert e-mails, and so their links, go only
 * to buyers with orders: the API stores nothing for anyone else): its uid, what a token names, and
 * an ID token to read its alerts.
 */
async function newBuyer(request: APIRequestContext): Promise<{ uid: string; idToken: string }> {
  const signUp = await fetch('http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: uniqueEmail('unsubscribe'), password: PASSWORD, returnSecureToken: true }),
  });
  const { localId, idToken } = (await signUp.json()) as { localId: string; idToken: string };
  // The plan at the price the build published, which the API charges.
  const { price } = (await (await request.get(`/plans/${PLAN.id}.json`)).json()) as PlanData;
  const order = await fetch(`${LOCAL_API_BASE_URL}/orders`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      planId: PLAN.id,
      lang: 'en',
      expectedPrice: price,
      consents: { terms: true, immediateStart: true },
    } satisfies CreateOrderRequest),
  });
  expect(order.status).toBe(201);
  return { uid: localId, idToken };
}

/** The account's alert choices as the API has them (GET /me/alerts). */
async function alertsOf(idToken: string): Promise<AlertPreferences> {
  const response = await fetch(`${LOCAL_API_BASE_URL}/me/alerts`, { headers: { Authorization: `Bearer ${idToken}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as AlertPreferences;
}

async function openPage(page: Page, lang: Locale, token?: string): Promise<void> {
  await speak(page, lang);
  await page.goto(`${localizePath(lang, '/unsubscribe')}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`);
  await hydrated(page);
}

const KINDS: EmailAlertKind[] = ['data_80', 'data_used_up', 'validity_1_day'];

/** The page's text for a kind stopped: the data alert's share as the language writes it ('80%', '80 %'). */
const doneText = (lang: Locale, kind: EmailAlertKind) =>
  fill(messages(lang, 'unsubscribe').unsubscribe.done[kind], {
    percent: new Intl.NumberFormat(lang, { style: 'percent' }).format(ALERT_DATA_USED_SHARE),
  });

for (const [lang, kind] of [
  ['en', 'data_80'],
  ['de', 'data_used_up'],
  ['ar', 'validity_1_day'],
] as const) {
  test(`${lang}: one press stops the e-mails of the kind the link names, says which, and leaves the others on`, async ({
    page,
    request,
  }) => {
    const m = messages(lang, 'unsubscribe').unsubscribe;
    const violations = recordCspViolations(page);
    const { uid, idToken } = await newBuyer(request);
    await openPage(page, lang, unsubscribeToken(secret, uid, kind));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(m.title);
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
    await expect(page.getByRole('link', { name: m.manage })).toHaveAttribute('href', `${localizePath(lang, '/profile')}#alerts`);
    // Opening the link stops nothing (a mail scanner opens every link): only the button does.
    expect((await alertsOf(idToken))[kind].email).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await page.locator('main').getByRole('button', { name: m.confirm }).click();
    await expect(page.locator('main').getByRole('status')).toHaveText(doneText(lang, kind));
    await expect(page.locator('main').getByRole('button', { name: m.confirm })).toHaveCount(0);
    const alerts = await alertsOf(idToken);
    for (const other of KINDS) expect(alerts[other].email, other).toBe(other !== kind);
    expect(await axeViolations(page)).toEqual([]);
    expect(violations).toEqual([]);
  });
}

test('a link without a valid token says so and stops nothing', async ({ page, request }) => {
  const m = messages('en', 'unsubscribe').unsubscribe;
  const { uid, idToken } = await newBuyer(request);
  // Signed with another key: the API answers 400 invalid_token.
  await openPage(page, 'en', unsubscribeToken('not-the-api-secret', uid, 'data_80'));
  await page.locator('main').getByRole('button', { name: m.confirm }).click();
  await expect(page.locator('main').getByRole('alert')).toHaveText(m.invalid);
  await expect(page.locator('main').getByRole('button')).toHaveCount(0);
  expect((await alertsOf(idToken)).data_80.email).toBe(true);

  // No token at all: said at once, no button.
  await openPage(page, 'en');
  await expect(page.locator('main').getByRole('alert')).toHaveText(m.invalid);
  await expect(page.locator('main').getByRole('button', { name: m.confirm })).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
});

test('ar: a request that fails says so, and trying again stops the e-mails', async ({ page, request }) => {
  const m = messages('ar', 'unsubscribe').unsubscribe;
  const { uid, idToken } = await newBuyer(request);
  await page.route(`${LOCAL_API_BASE_URL}/alerts/unsubscribe?**`, (route) => route.abort('internetdisconnected'));
  await openPage(page, 'ar', unsubscribeToken(secret, uid, 'data_80'));
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.locator('main').getByRole('button', { name: m.confirm }).click();
  await expect(page.locator('main').getByRole('alert')).toHaveText(m.failed);
  expect(await axeViolations(page)).toEqual([]);

  await page.unrouteAll();
  await page.locator('main').getByRole('button', { name: m.retry }).click();
  await expect(page.locator('main').getByRole('status')).toHaveText(doneText('ar', 'data_80'));
  expect((await alertsOf(idToken)).data_80.email).toBe(false);
});

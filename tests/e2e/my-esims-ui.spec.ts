import { readFileSync } from 'node:fs';
import { expect, test, type Page, type Request, type Route } from '@playwright/test';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { STORAGE_KEYS } from '../../src/config/constants.ts';
import { fill } from '../../src/i18n/fill.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import type { CreateOrderRequest } from '../../src/contract/shop-api.ts';
import { createOrderResponse, esimView, topUpPlans } from '../support/shop-orders.ts';
import { signedInAt as signedIn } from './shop-support.ts';
import { waitUntilSaved } from './own-site.ts';
import { axeViolations, messages } from './support.ts';

/**
 * My eSIMs and the top-up checkout against the shop API's contract, the API answered here with
 * page.route (issue 15 items 5 to 9); the lead's tests run the same page against the real API.
 */
const API = LOCAL_API_BASE_URL;

const ACTIVE = esimView();
const UNUSED = esimView({
  id: '5f0e8c1e-6a0f-4f5e-9d2a-3c1b2a4d5e6f',
  orderNumber: 'ES-2026-000124',
  status: 'ready',
  usage: { usedBytes: 0, totalBytes: 2 ** 30 },
  plan: { ...ACTIVE.plan, id: 'jp-1gb-7d', metadata: { dataAmount: { value: 1, unit: 'GB' } }, validity: 7 },
  purchasedAt: '2026-03-20T09:00:00.000Z',
  refundable: true,
  canTopUp: false,
});
/** The partner's top-ups of ACTIVE (GET /esims/{id}/top-ups), priced. */
const TOP_UPS = topUpPlans({
  destination: ACTIVE.destination,
  plans: [
    {
      id: 'topup-2gb-15d',
      dataAmount: { value: 2, unit: 'GB' },
      validity: 15,
      validityUnit: 'day',
      supportedCountries: ['JP'],
      price: { amountMinor: 899, currency: 'EUR' },
    },
  ],
});

const cors = (request: Request) => ({
  'Access-Control-Allow-Origin': request.headers().origin ?? '*',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Allow-Methods': 'GET, POST, DELETE',
});
const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({
    status,
    contentType: 'application/json',
    headers: { 'Access-Control-Allow-Origin': route.request().headers().origin ?? '*' },
    body: JSON.stringify(body),
  });

/** Answers the shop API under `prefix` (preflights answered, not passed on); records each call. */
async function shopApi(page: Page, prefix: string, answer: (request: Request, route: Route) => Promise<void>): Promise<Request[]> {
  const calls: Request[] = [];
  await page.route(
    (url) => url.href.startsWith(`${API}${prefix}`),
    async (route) => {
      const request = route.request();
      if (request.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors(request) });
      calls.push(request);
      await answer(request, route);
    },
  );
  return calls;
}

const axe = axeViolations;

const installGuideTitle = (lang: string) =>
  (JSON.parse(readFileSync(new URL(`../../locales/${lang}/install.json`, import.meta.url), 'utf8')) as { title: string }).title;

const gigabytes = (lang: string, value: number) =>
  new Intl.NumberFormat(lang, { style: 'unit', unit: 'gigabyte', maximumFractionDigits: 1 }).format(value);

for (const lang of ['en', 'ar'] as const) {
  const { profile } = messages(lang, 'account');
  const { checkout: checkoutTexts, paymentSuccess } = messages(lang, 'checkout');
  const { myEsim: m, installCodes } = messages(lang, 'esims');
  const myEsimPath = localizePath(lang, '/my-esim');

  test.describe(`My eSIMs (${lang})`, () => {
    test('lists each eSIM with status and data bar, opens its codes, offers top-up plans, and refunds by keyboard', async ({ page }) => {
      let refunded = false;
      await shopApi(page, '/esims', async (request, route) => {
        const path = new URL(request.url()).pathname;
        if (request.method() === 'GET' && path.endsWith('/esims')) return json(route, 200, { esims: [ACTIVE, UNUSED] });
        if (path.endsWith('/top-ups')) return json(route, 200, TOP_UPS);
        // The first refund fails on the server, the second goes through.
        if (path.endsWith('/refund')) {
          if (!refunded) {
            refunded = true;
            return json(route, 500, { error: { code: 'internal_error', message: 'x' } });
          }
          return json(route, 200, esimView({ ...UNUSED, status: 'refunding', install: null, refundable: false }));
        }
        return json(route, 404, { error: { code: 'not_found', message: 'x' } });
      });
      await signedIn(page, lang, myEsimPath);

      const list = page.getByRole('list', { name: m.listLabel });
      await expect(list.getByRole('listitem')).toHaveCount(2);
      // Newest first: the unused eSIM was bought later.
      const [unused, active] = [list.getByRole('listitem').nth(0), list.getByRole('listitem').nth(1)];
      await expect(unused.locator('[data-esim-status]')).toHaveText(m.statuses.ready);
      await expect(active.locator('[data-esim-status]')).toHaveText(m.statuses.active);
      const usage = fill(m.usage, { used: gigabytes(lang, 1.2), left: gigabytes(lang, 1.8), total: gigabytes(lang, 3) });
      const bar = active.getByRole('progressbar', { name: m.usageLabel });
      await expect(bar).toHaveAttribute('aria-valuenow', '40');
      await expect(bar).toHaveAttribute('aria-valuetext', usage);
      await expect(active.locator('[data-usage-text]')).toHaveText(usage);
      await expect(active.locator('[data-order-number]')).toHaveText(ACTIVE.orderNumber);
      await expect(active.locator('[data-valid-until]')).toHaveText(
        new Intl.DateTimeFormat(lang, { dateStyle: 'long' }).format(new Date(ACTIVE.expiresAt!)),
      );
      // The bar grows from the start edge: the right in Arabic.
      const [track, used] = await Promise.all([bar.boundingBox(), active.locator('[data-usage-fill]').boundingBox()]);
      if (lang === 'ar') expect(Math.abs(track!.x + track!.width - (used!.x + used!.width))).toBeLessThan(1);
      else expect(Math.abs(track!.x - used!.x)).toBeLessThan(1);
      // Installed eSIMs have no refund; unused ones no top-up (yet), and nothing says their plans cannot be topped up.
      await expect(active.getByRole('button', { name: m.refund })).toHaveCount(0);
      await expect(unused.getByRole('button', { name: m.topUp, exact: true })).toHaveCount(0);
      await expect(page.locator('[data-top-up-unsupported]')).toHaveCount(0);

      // Install codes: a disclosure.
      const codes = active.getByRole('button', { name: m.showCodes });
      await expect(codes).toHaveAttribute('aria-expanded', 'false');
      await codes.click();
      await expect(codes).toHaveAttribute('aria-expanded', 'true');
      await expect(active.getByRole('img', { name: installCodes.qrLabel })).toBeVisible();
      await expect(active.getByText(ACTIVE.install!.activationCode)).toBeVisible();

      // Top-up: the partner's top-ups of it, each a way to checkout with the top-up and the eSIM.
      await active.getByRole('button', { name: m.topUp, exact: true }).click();
      const plan = active.locator('[data-top-up-plan="topup-2gb-15d"]');
      await expect(plan).toHaveAttribute('href', `${localizePath(lang, '/checkout')}?plan=topup-2gb-15d&topUp=${ACTIVE.id}`);
      await expect(plan).toContainText(new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(8.99));

      expect(await axe(page)).toEqual([]);

      // Refund by keyboard: the dialog takes the focus, Escape gives it back.
      const refund = unused.getByRole('button', { name: m.refund });
      await refund.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: m.refundTitle });
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText('5');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
      await expect(refund).toBeFocused();

      await page.keyboard.press('Enter');
      await expect(dialog).toBeVisible();
      const confirm = dialog.getByRole('button', { name: m.refundConfirm });
      for (let tabs = 0; tabs < 5 && !(await confirm.evaluate((b) => b === document.activeElement)); tabs++)
        await page.keyboard.press('Tab');
      await expect(confirm).toBeFocused();
      await page.keyboard.press('Enter');
      // A failure stays in the dialog, which can try again.
      await expect(dialog.getByRole('alert')).toHaveText(checkoutTexts.errors.server);
      await expect(dialog).toBeVisible();
      expect(await axe(page)).toEqual([]);
      await page.keyboard.press('Enter');
      await expect(dialog).toBeHidden();
      await expect(unused.locator('[data-esim-status]')).toHaveText(m.statuses.refunding);
      await expect(unused.locator('[data-refund-notice]')).toHaveText(m.refundRequested);
      await expect(unused.locator('[data-refund-notice]')).toBeFocused();
      await expect(unused.getByRole('button', { name: m.refund })).toHaveCount(0);
    });

    test('without a network, the eSIMs as last loaded on this device, codes included; gone after log-out', async ({ page }) => {
      const calls = await shopApi(page, '/esims', async (_, route) => json(route, 200, { esims: [ACTIVE] }));
      await signedIn(page, lang, myEsimPath);
      await expect(page.locator('[data-esim]')).toHaveCount(1);
      expect(calls).toHaveLength(1);

      await page.unroute((url) => url.href.startsWith(`${API}/esims`));
      await page.route(
        (url) => url.href.startsWith(`${API}/esims`),
        (route) => route.abort('internetdisconnected'),
      );
      await page.reload();
      const note = page.locator('[data-esims-offline]');
      const [before, after] = m.offline.split('{{time}}') as [string, string];
      await expect(note).toContainText(before);
      await expect(note).toContainText(after);
      const card = page.locator(`[data-esim="${ACTIVE.id}"]`);
      await card.getByRole('button', { name: m.showCodes }).click();
      await expect(card.getByText(ACTIVE.install!.activationCode)).toBeVisible();
      // Offline, nothing that needs the API is offered.
      await expect(card.getByRole('button', { name: m.topUp, exact: true })).toHaveCount(0);
      await expect(card.locator('[data-top-up-unsupported]')).toHaveCount(0);
      expect(await axe(page)).toEqual([]);

      // Log out: the device forgets them.
      await page.goto(localizePath(lang, '/profile'));
      await page.getByRole('button', { name: profile.logout }).click();
      await expect(page).not.toHaveURL(/profile/);
      expect(await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.savedEsims)).toBeNull();
    });

    test("a top-up checkout shows the eSIM's top-up from the API, keeps the ticks through a new price, sends the eSIM, and explains a refused top-up", async ({
      page,
    }) => {
      const checkout = `${localizePath(lang, '/checkout')}?plan=topup-2gb-15d&topUp=${ACTIVE.id}`;
      const money = (amountMinor: number) => new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amountMinor / 100);
      const listed = await shopApi(page, '/esims', async (request, route) =>
        new URL(request.url()).pathname.endsWith(`/esims/${ACTIVE.id}/top-ups`)
          ? json(route, 200, TOP_UPS)
          : json(route, 404, { error: { code: 'not_found', message: 'x' } }),
      );
      // A top-up is not in the build: its page never asks for /plans/{id}.json.
      const planFiles: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/plans/')) planFiles.push(request.url());
      });
      const calls = await shopApi(page, '/orders', async (_, route) =>
        calls.length === 1
          ? json(route, 409, { error: { code: 'price_changed', message: 'x', price: { amountMinor: 949, currency: 'EUR' } } })
          : calls.length === 2
            ? json(route, 409, { error: { code: 'cannot_top_up', message: 'x' } })
            : json(route, 201, createOrderResponse({ kind: 'top_up' })),
      );
      await page.route('https://checkout.stripe.test/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>Pay</title>' }),
      );
      await signedIn(page, lang, checkout);
      await expect(page.locator('#checkout-summary')).toHaveText(checkoutTexts.topUpTitle);
      await expect(page.locator('[data-top-up-summary]')).toContainText(ACTIVE.destination.name);
      await expect(page.locator('[data-chosen-plan="topup-2gb-15d"] [data-plan]')).toContainText(gigabytes(lang, 2));
      await expect(page.locator('[data-total]')).toHaveText(money(899));
      expect(listed.length).toBeGreaterThanOrEqual(1);
      expect(planFiles).toEqual([]);

      await page.locator('#consent-terms').check();
      await page.locator('#consent-immediate-start').check();
      await page.locator('[data-buy]').click();
      // A new price: shown everywhere, and what was ticked stays ticked.
      await expect(page.locator('[data-price-changed]')).toContainText(money(949));
      await expect(page.locator('[data-total]')).toHaveText(money(949));
      await expect(page.locator('#consent-terms')).toBeChecked();
      await expect(page.locator('#consent-immediate-start')).toBeChecked();
      await page.locator('[data-buy]').click();
      await expect(page.getByRole('alert').filter({ hasText: checkoutTexts.errors.cannotTopUp })).toBeVisible();
      const sent = calls.map((call) => call.postDataJSON() as CreateOrderRequest);
      expect(sent.map((r) => [r.planId, r.topUpOf, r.expectedPrice.amountMinor])).toEqual([
        ['topup-2gb-15d', ACTIVE.id, 899],
        ['topup-2gb-15d', ACTIVE.id, 949],
      ]);
      expect(await axe(page)).toEqual([]);

      // A top-up the eSIM no longer has: said, with the way back to My eSIMs.
      await page.goto(`${localizePath(lang, '/checkout')}?plan=topup-9gb-9d&topUp=${ACTIVE.id}`);
      await expect(page.locator('[data-plan-error]')).toContainText(checkoutTexts.unknownPlan);
      await expect(page.locator('[data-plan-error] a')).toHaveAttribute('href', myEsimPath);
    });

    test("the alerts' top-up link (checkout with ?topUp= and no plan) keeps its query through sign-in, lists the eSIM's top-ups, and one leads to its checkout", async ({
      page,
    }) => {
      const checkoutPath = localizePath(lang, '/checkout');
      const alertLink = `${checkoutPath}?topUp=${ACTIVE.id}`;
      // The first list fails: said, with a retry that asks again.
      const listed = await shopApi(page, '/esims', async (request, route) =>
        !new URL(request.url()).pathname.endsWith(`/esims/${ACTIVE.id}/top-ups`)
          ? json(route, 404, { error: { code: 'not_found', message: 'x' } })
          : listed.length === 1
            ? json(route, 500, { error: { code: 'internal', message: 'x' } })
            : json(route, 200, TOP_UPS),
      );
      await signedIn(page, lang, alertLink);
      const chooser = page.locator(`[data-top-up-chooser="${ACTIVE.id}"]`);
      await expect(chooser.getByRole('heading', { name: m.topUpHeading })).toBeVisible();
      await expect(chooser.locator('[data-top-up-error]')).toContainText(checkoutTexts.errors.server);
      await chooser.getByRole('button', { name: m.retry }).click();
      await expect(chooser.locator('[data-top-up-summary]')).toContainText(ACTIVE.destination.name);
      const plan = chooser.locator('[data-top-up-plan="topup-2gb-15d"]');
      await expect(plan).toHaveAttribute('href', `${checkoutPath}?plan=topup-2gb-15d&topUp=${ACTIVE.id}`);
      await expect(plan).toContainText(gigabytes(lang, 2));
      await expect(chooser.getByRole('link', { name: paymentSuccess.viewEsims })).toHaveAttribute('href', myEsimPath);
      // Nothing to buy before a top-up is chosen.
      await expect(page.locator('[data-buy]')).toHaveCount(0);
      expect(await axe(page)).toEqual([]);

      await plan.click();
      await expect(page.locator('#checkout-summary')).toHaveText(checkoutTexts.topUpTitle);
      await expect(page.locator('[data-chosen-plan="topup-2gb-15d"]')).toHaveAttribute('data-top-up-of', ACTIVE.id);
      await expect(page.locator('[data-buy]')).toBeVisible();
    });

    test('says a paused eSIM is paused, offers nothing to install, refund or top up, and "Not working?" sends to support', async ({
      page,
    }) => {
      const paused = esimView({ ...ACTIVE, status: 'suspended', install: null, canTopUp: false, refundable: false });
      await shopApi(page, '/esims', async (_, route) => json(route, 200, { esims: [paused] }));
      await signedIn(page, lang, myEsimPath);
      const card = page.locator(`[data-esim="${paused.id}"]`);
      await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.suspended);
      for (const name of [m.showCodes, m.topUp, m.refund]) await expect(card.getByRole('button', { name })).toHaveCount(0);
      await card.getByRole('button', { name: m.diagnosis.open }).click();
      await expect(card.locator('[data-diagnosis="suspended"] h3')).toHaveText(m.diagnosis.causes.suspended.title);
      await expect(card.locator('[data-diagnosis-ask]')).toBeVisible();
      expect(await axe(page)).toEqual([]);
    });

    test('a traveller’s link to a paused eSIM says it is paused, shows no codes and points to support', async ({ page }) => {
      const { id, status, plan, destination, iccid, usage, expiresAt, installStep, installStepAt } = esimView({
        status: 'suspended',
        install: null,
        canTopUp: false,
      });
      const shown = { id, canTopUp: false, status, plan, destination, iccid, usage, expiresAt, install: null, installStep, installStepAt };
      const calls = await shopApi(page, '/traveller/esim', async (_, route) => json(route, 200, { ...shown, travellerName: 'Sami' }));
      await page.goto(`${localizePath(lang, '/traveller')}#${'A'.repeat(43)}`);
      const card = page.locator('[data-traveller-esim]');
      await expect(card).toHaveAttribute('data-status', 'suspended');
      expect(calls[0]!.headers()['x-traveller-token']).toBe('A'.repeat(43));
      await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.suspended);
      await expect(card.locator('[data-traveller-paused]')).toContainText(m.diagnosis.causes.suspended.fix);
      await expect(card.getByRole('link', { name: m.contactSupport })).toHaveAttribute('href', localizePath(lang, '/support'));
      await expect(card.locator('[data-install-codes]')).toHaveCount(0);
      await expect(card.locator('[data-traveller-top-up]')).toHaveCount(0);
      expect(await axe(page)).toEqual([]);
    });

    test('says plainly that a plan the partner sells no top-up for cannot be topped up, and offers no top-up', async ({ page }) => {
      const fixed = esimView({ ...ACTIVE, canTopUp: false, topUpSupported: false });
      const calls = await shopApi(page, '/esims', async (_, route) => json(route, 200, { esims: [fixed] }));
      await signedIn(page, lang, myEsimPath);
      const card = page.locator(`[data-esim="${fixed.id}"]`);
      await expect(card.locator('[data-esim-status]')).toHaveText(m.statuses.active);
      await expect(card.locator('[data-top-up-unsupported]')).toHaveText(m.topUpUnsupported);
      await expect(card.getByRole('button', { name: m.topUp, exact: true })).toHaveCount(0);
      // Nothing to ask the partner about.
      expect(calls.every((c) => !new URL(c.url()).pathname.endsWith('/top-ups'))).toBe(true);
      expect(await axe(page)).toEqual([]);
    });
  });
}

test.describe('My eSIMs on a device without a network', () => {
  // The service worker keeps the page and the install guide (playwright.config.ts blocks it elsewhere).
  test.use({ serviceWorkers: 'allow' });

  for (const lang of ['en', 'ar'] as const) {
    test(`after a visit, the page, the eSIMs and their codes open offline (${lang})`, async ({ page, context }) => {
      const m = messages(lang, 'esims').myEsim;
      const myEsimPath = localizePath(lang, '/my-esim');
      await shopApi(page, '/esims', async (_, route) => json(route, 200, { esims: [ACTIVE] }));
      await signedIn(page, lang, myEsimPath);
      await expect(page.locator('[data-esim]')).toHaveCount(1);
      await waitUntilSaved(page, [myEsimPath, localizePath(lang, '/install-esim')]);
      // The first visit ran before the worker existed: a visit through it keeps the page's code.
      await page.reload();
      await expect(page.locator('[data-esim]')).toHaveCount(1);

      // A device without a network: the context offline, and the API unreachable for the page and
      // its worker alike. A route that answers would still answer offline (page.route fulfils
      // without the network), and recent Chromium lets the page ask: shopApi's route goes.
      await page.unrouteAll();
      await context.route(
        (url) => url.href.startsWith(API),
        (route) => route.abort('internetdisconnected'),
      );
      await context.setOffline(true);
      await page.reload();
      const [before, after] = m.offline.split('{{time}}') as [string, string];
      await expect(page.locator('[data-esims-offline]')).toContainText(before);
      await expect(page.locator('[data-esims-offline]')).toContainText(after);
      const card = page.locator(`[data-esim="${ACTIVE.id}"]`);
      await card.getByRole('button', { name: m.showCodes }).click();
      await expect(card.getByText(ACTIVE.install!.smdpAddress)).toBeVisible();
      // The guide the codes link to reads offline too.
      await card.getByRole('link', { name: messages(lang, 'esims').installCodes.guideLink }).click();
      await expect(page).toHaveURL(localizePath(lang, '/install-esim'));
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(installGuideTitle(lang));
    });
  }
});

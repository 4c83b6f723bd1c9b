import { mkdirSync, readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, storedSession, uniqueEmail } from './auth-support.ts';
import {
  buy,
  deliveredEsimAt,
  leavePaymentSuccess,
  logIn,
  mailTo,
  partnerControl,
  PASSWORD,
  PLAN,
  payWith,
  signedInAt,
} from './shop-support.ts';
import { axeViolations, hydrated, messages, speak } from './support.ts';
import { AUTH_EMULATOR, operatorPage, staff } from './ops-staff.ts';

/**
 * The back office (issue 30) against the real parts: the built /ops pages on the Hosting
 * emulator, the shop API with its /ops routes on PostgreSQL, the Stripe and partner stand-ins,
 * the SMTP stand-in and the Auth emulator, where the test accounts get their role claim.
 */
const ops = (lang: string) => messages(lang, 'ops');

/** Signs in on the ordinary login page through the back office's link, and lands back on it. */
async function signInToOps(page: Page, lang: string, email: string): Promise<void> {
  const m = ops(lang);
  const url = localizePath(lang as 'en', '/ops');
  await page.goto(url);
  await page.getByRole('link', { name: m.session.signIn }).click();
  await logIn(page, email);
  await expect(page).toHaveURL(new RegExp(`${url}\\??$`));
  await expect(page.locator('[data-ops-role]')).toBeVisible({ timeout: 15_000 });
}

/** A staff account's session stored in the operator's browser, at the back office (the way in by its link: signInToOps). */
async function atOps(page: Page, lang: string, email: string): Promise<void> {
  await storedSession(page.context(), email, PASSWORD);
  await page.goto(localizePath(lang as 'en', '/ops'));
  await expect(page.locator('[data-ops-role]')).toBeVisible({ timeout: 15_000 });
}

/** Opens an action's dialog, gives the reason, confirms; answers once the outcome shows. */
async function act(page: Page, lang: string, name: string, fill?: (dialog: ReturnType<Page['locator']>) => Promise<void>) {
  const m = ops(lang);
  await page.locator(`[data-action="${name}"]`).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  if (fill) await fill(dialog);
  await dialog.getByLabel(m.actions.reason).fill(`e2e ${name} for the buyer`);
  await dialog.getByRole('button', { name: m.actions.send }).click();
  await expect(dialog).toBeHidden({ timeout: 20_000 });
  await expect(page.locator('[data-outcome]')).toHaveAttribute('data-outcome', /done|pending/);
}

async function search(page: Page, lang: string, q: string) {
  const m = ops(lang);
  await page.getByLabel(m.orders.search).fill(q);
  await page.getByRole('button', { name: m.orders.submit }).click();
}

for (const lang of ['en', 'de'] as const) {
  const m = ops(lang);
  const checkoutTexts = messages(lang, 'checkout').checkout;
  const checkout = `${localizePath(lang, '/checkout')}?plan=${PLAN.id}`;
  const money = (amountMinor: number) => new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amountMinor / 100);

  test.describe(`the back office in ${lang}`, () => {
    test('an admin finds an order by e-mail and by number, reads its timeline, resends the e-mail, refunds half then the rest, and blocks the buyer, whose next order is refused', async ({
      page,
      browser,
    }, testInfo) => {
      test.setTimeout(180_000);
      // The buyer: a paid, delivered order, and the checkout open again with both ticks.
      const { email: buyerEmail, number } = await deliveredEsimAt(page, lang, checkout);
      await mailTo(buyerEmail);

      const admin = await operatorPage(browser, testInfo, lang);
      await signInToOps(admin, lang, await staff('admin'));
      await hydrated(admin);
      expect(await axeViolations(admin)).toEqual([]);

      // By e-mail, then by the number without its ES- prefix.
      await search(admin, lang, buyerEmail);
      await expect(admin.locator(`[data-order-row="${number}"]`)).toBeVisible();
      await search(admin, lang, number.replace(/^ES-/, ''));
      await expect(admin.locator('[data-order-row]')).toHaveCount(1);
      await expect(admin.locator(`[data-order-row="${number}"]`)).toBeVisible();
      expect(await axeViolations(admin)).toEqual([]);
      await admin.getByRole('link', { name: number }).click();
      await expect(admin.locator(`[data-order="${number}"]`)).toBeVisible();
      await expect(admin.locator('[data-order-state]')).toHaveText(m.states.delivered);
      const timeline = admin.locator('[data-table="timeline"] tbody tr');
      await expect(timeline.first()).toBeVisible();
      const events = await timeline.count();
      expect(events).toBeGreaterThan(2);
      expect(await axeViolations(admin)).toEqual([]);

      // Resend: a second order e-mail reaches the buyer; the timeline says who and why.
      await act(admin, lang, 'resend');
      await mailTo(buyerEmail, 2);
      await expect(admin.locator('[data-table="timeline"]')).toContainText('e2e resend for the buyer');

      // A dialog is accessible: labelled, Escape closes it and focus returns to its button.
      await admin.locator('[data-action="refund"]').click();
      await expect(admin.getByRole('dialog', { name: m.actions.refundTitle })).toBeVisible();
      expect(await axeViolations(admin)).toEqual([]);
      await admin.keyboard.press('Escape');
      await expect(admin.getByRole('dialog')).toBeHidden();
      await expect(admin.locator('[data-action="refund"]')).toBeFocused();

      // Half, then the rest.
      const total = PLAN.prices.EUR;
      const half = Math.floor(total / 2);
      await act(admin, lang, 'refund', async (dialog) => {
        await dialog.getByLabel(m.actions.refundPart).check();
        await dialog.getByLabel(m.actions.refundAmount.replace('{{currency}}', 'EUR')).fill((half / 100).toFixed(2));
      });
      await expect(admin.locator('[data-refunded]')).toHaveText(money(half), { timeout: 15_000 });
      await act(admin, lang, 'refund');
      await expect(admin.locator('[data-refunded]')).toHaveText(money(total), { timeout: 15_000 });
      await expect(admin.locator('[data-action="refund"]')).toHaveCount(0);
      await expect(admin.locator('[data-table="refunds"] tbody tr')).toHaveCount(2);

      // The buyer opens checkout again and ticks both boxes while still signed in (a page loaded after the block is signed out).
      await leavePaymentSuccess(page, checkout);
      await page.locator('#consent-terms').check();
      await page.locator('#consent-immediate-start').check();

      // Block the buyer from their account's screen.
      await admin.getByRole('link', { name: m.order.openAccount }).click();
      await expect(admin.locator('[data-account-state]')).toHaveText(m.order.account_active);
      await act(admin, lang, 'block');
      await expect(admin.locator('[data-account-state]')).toHaveText(m.order.account_blocked);
      expect(await axeViolations(admin)).toEqual([]);

      // The buyer's next order: refused, in their language.
      await page.getByRole('button', { name: checkoutTexts.buyNow }).click();
      await expect(page.getByRole('alert')).toHaveText(checkoutTexts.errors.accountBlocked);
      await admin.context().close();
    });

    test('a buyer opening the back office sees nothing of any order', async ({ page }) => {
      const email = uniqueEmail('ops-buyer');
      await createAccount(email, PASSWORD, { emailVerified: true });
      const asked: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/ops/')) asked.push(new URL(request.url()).pathname);
      });
      await speak(page, lang);
      await signInToOpsAsBuyer(page, lang, email);
      await expect(page.locator('[data-ops-staff-only]')).toHaveText(
        new RegExp(m.session.staffOnly.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      );
      await expect(page.locator('table, [data-order], [data-ops-role]')).toHaveCount(0);
      expect(asked.filter((path) => !path.endsWith('/ops/me'))).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
    });
  });
}

async function signInToOpsAsBuyer(page: Page, lang: string, email: string) {
  const url = localizePath(lang as 'en', '/ops');
  await page.goto(url);
  await expect(page.locator('[data-ops-signed-out]')).toBeVisible();
  await page.getByRole('link', { name: ops(lang).session.signIn }).click();
  await logIn(page, email);
  await expect(page).toHaveURL(new RegExp(`${url}\\??$`));
}

test('a support user sees no refund, eSIM, block or dashboard action, and the API refuses them', async ({ page, browser }, testInfo) => {
  test.setTimeout(150_000);
  const m = ops('en');
  const { order: orderId } = await deliveredEsimAt(page, 'en');
  const supportEmail = await staff('support');
  const support = await operatorPage(browser, testInfo, 'en');
  await signInToOps(support, 'en', supportEmail);
  await expect(support.locator('[data-ops-role]')).toHaveAttribute('data-ops-role', 'support');
  await expect(support.getByRole('link', { name: m.nav.dashboard })).toHaveCount(0);
  await support.goto(`/ops?order=${orderId}`);
  await expect(support.locator('[data-order]')).toBeVisible({ timeout: 15_000 });
  await expect(support.locator('[data-action="resend"]')).toBeVisible();
  for (const name of ['refund', 'suspend', 'unsuspend', 'revoke', 'approve', 'reject'])
    await expect(support.locator(`[data-action="${name}"]`)).toHaveCount(0);
  await support.getByRole('link', { name: m.order.openAccount }).click();
  await expect(support.locator('[data-account]')).toBeVisible();
  for (const name of ['block', 'unblock', 'delete']) await expect(support.locator(`[data-action="${name}"]`)).toHaveCount(0);
  expect(await axeViolations(support)).toEqual([]);

  // The server decides, not the page: the support user's own token is refused a refund.
  const signIn = await fetch(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: supportEmail, password: PASSWORD, returnSecureToken: true }),
  });
  const { idToken } = (await signIn.json()) as { idToken: string };
  const refused = await fetch(`${LOCAL_API_BASE_URL}/ops/orders/${orderId}/refunds`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${idToken}` },
    body: JSON.stringify({ reason: 'not allowed', idempotencyKey: 'support-refund-1' }),
  });
  expect(refused.status).toBe(403);
  await support.context().close();
});

/** A figure of the dashboard's period table: its row by name, its column by the period's position (0: today). */
const figure = (page: Page, name: string, column = 0) =>
  page
    .locator('[data-periods] tbody tr')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
    .locator('td')
    .nth(column);

/** An amount as the English pages write it (€1,234.56), in minor units. */
const minorOf = (text: string) => Math.round(Number(text.replace(/[^\d.]/g, '')) * 100);

/** A fact of the order page (a <dt> and its <dd>), by its term. */
const fact = (page: Page, term: string) => page.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd');

test.describe('the back office in en, for an admin', () => {
  const m = ops('en');
  const checkoutTexts = messages('en', 'checkout').checkout;
  const checkout = `/checkout?plan=${PLAN.id}`;

  // Tagged: the sales pause is the whole shop's, so this runs after every other test (playwright.config.ts).
  test(
    'the dashboard shows the paid order in today’s figures and the partner balance, downloads the CSV, and pauses sales with a reason until resumed',
    { tag: '@whole-shop' },
    async ({ page, browser }, testInfo) => {
      test.setTimeout(180_000);
      const { order: orderId, number } = await deliveredEsimAt(page, 'en', checkout);

      const admin = await operatorPage(browser, testInfo, 'en');
      await atOps(admin, 'en', await staff('admin'));
      await admin.getByRole('link', { name: m.nav.dashboard }).click();
      await expect(admin.locator('[data-dashboard]')).toBeVisible({ timeout: 15_000 });
      await expect(admin.locator('[data-periods] thead th').nth(1)).toHaveText(m.dashboard.today);
      // Today: at least this order, and at least its price in gross revenue.
      expect(Number((await figure(admin, m.dashboard.orders).textContent())!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(1);
      const gross = (await figure(admin, m.dashboard.gross).textContent())!;
      expect(gross).toContain('€');
      expect(minorOf(gross)).toBeGreaterThanOrEqual(PLAN.prices.EUR);
      // Each partner's balance, read from its stand-in, in US dollars, and its health: both answer and take orders.
      const partners = admin.locator('[data-partner]');
      await expect(partners.first().locator('[data-balance]')).toHaveText(/^\$[\d,]+\.\d{2}$/);
      for (const partner of await partners.all()) {
        await expect(partner.locator('[data-balance]')).toHaveText(/^\$[\d,]+\.\d{2}$/);
        await expect(partner).toHaveAttribute('data-paused', 'no');
        await expect(partner).toContainText(m.dashboard.breaker_closed);
        // Its request budget across instances: eSIM Access's 8 a second, eSIM Go's 10.
        await expect(partner.locator('[data-budget]')).toHaveAttribute('data-budget', /^\d+\/(8|10)$/);
      }
      await expect(partners).toHaveCount(2);
      await expect(admin.locator('[data-sales]')).toHaveAttribute('data-sales', 'on');
      await expect(admin.locator('[data-sales]')).toHaveText(m.dashboard.salesOn);
      await hydrated(admin);
      expect(await axeViolations(admin)).toEqual([]);

      // The accountant's CSV: UTF-8 with its BOM, a header row, this order's number.
      const [download] = await Promise.all([
        admin.waitForEvent('download'),
        admin.getByRole('button', { name: m.dashboard.csvDownload }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('orders.csv');
      const csv = readFileSync((await download.path())!);
      expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const [header, ...lines] = csv.subarray(3).toString('utf8').split('\r\n');
      expect(header).toMatch(/^[a-z_]+(,[a-z_]+)+$/);
      expect(header!.split(',')[0]).toBe('order');
      expect(lines.some((line) => line.startsWith(`${number},`) || line.startsWith(`"${number}",`))).toBe(true);

      // Screenshots for the closing note (reports/ is not committed): the order page and the dashboard, laptop and phone.
      mkdirSync('reports/screenshots', { recursive: true });
      for (const width of [1280, 390]) {
        await admin.setViewportSize({ width, height: 900 });
        await admin.goto(`/ops?order=${orderId}`);
        await expect(admin.locator(`[data-order="${number}"]`)).toBeVisible({ timeout: 15_000 });
        await expect(admin.locator('[data-table="timeline"] tbody tr').first()).toBeVisible();
        await admin.screenshot({ path: `reports/screenshots/ops-order-${width}.png`, fullPage: true });
        await admin.goto('/ops?view=dashboard');
        await expect(admin.locator('[data-periods]')).toBeVisible({ timeout: 15_000 });
        await admin.screenshot({ path: `reports/screenshots/ops-dashboard-${width}.png`, fullPage: true });
      }

      // The buyer opens checkout again and ticks both boxes.
      await leavePaymentSuccess(page, checkout);
      await page.locator('#consent-terms').check();
      await page.locator('#consent-immediate-start').check();

      // Pause, with a reason: the dashboard shows it and the reason; the buyer's order is refused, nothing charged.
      // Sales are the whole shop's: kept paused only for the one order attempt, then resumed.
      try {
        await act(admin, 'en', 'pause');
        await expect(admin.locator('[data-sales]')).toHaveAttribute('data-sales', 'paused');
        await expect(admin.locator('[data-sales]')).toContainText('e2e pause for the buyer');
        await expect(admin.locator('[data-action="resume"]')).toBeVisible();
        expect(await axeViolations(admin)).toEqual([]);
        const refused = page.waitForResponse(
          (response) => response.url().endsWith('/api/orders') && response.request().method() === 'POST',
        );
        await page.getByRole('button', { name: checkoutTexts.buyNow }).click();
        const answer = await refused;
        expect(answer.status()).toBe(503);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('sales_paused');
        await expect(page.getByRole('alert')).toHaveText(checkoutTexts.errors.salesPaused);
        await expect(page).toHaveURL(checkout);
      } finally {
        if (await admin.locator('[data-action="resume"]').isVisible()) await act(admin, 'en', 'resume');
      }
      await expect(admin.locator('[data-sales]')).toHaveAttribute('data-sales', 'on');
      await expect(admin.locator('[data-sales]')).toHaveText(m.dashboard.salesOn);
      await expect(admin.locator('[data-action="pause"]')).toBeVisible();
      await admin.context().close();
    },
  );

  test('an admin suspends and unsuspends an installed eSIM with a reason each time, and revokes another order’s eSIM', async ({
    page,
    browser,
  }, testInfo) => {
    test.setTimeout(180_000);
    const { order: first } = await deliveredEsimAt(page, 'en');
    // On the traveller's phone.
    await partnerControl('install', { transactionId: first });
    const { order: second } = await deliveredEsimAt(page, 'en');

    const admin = await operatorPage(browser, testInfo, 'en');
    await atOps(admin, 'en', await staff('admin'));
    await admin.goto(`/ops?order=${first}`);
    await expect(admin.locator('[data-order]')).toBeVisible({ timeout: 15_000 });
    await expect(admin.locator('[data-order-state]')).toHaveText(m.states.delivered);
    const status = fact(admin, m.order.esimStatus);

    await act(admin, 'en', 'suspend');
    await expect(admin.locator('[data-outcome]')).toHaveText(`${m.actions.suspend}: ${m.actions.outcome_done}`);
    await expect(status).toHaveText('suspended');
    await expect(admin.locator('[data-table="timeline"]')).toContainText('e2e suspend for the buyer');
    await hydrated(admin);
    expect(await axeViolations(admin)).toEqual([]);

    await act(admin, 'en', 'unsuspend');
    await expect(admin.locator('[data-outcome]')).toHaveText(`${m.actions.unsuspend}: ${m.actions.outcome_done}`);
    await expect(status).not.toHaveText('suspended');
    await expect(status).not.toHaveText(m.order.none);
    await expect(admin.locator('[data-table="timeline"]')).toContainText('e2e unsuspend for the buyer');

    await admin.goto(`/ops?order=${second}`);
    await expect(admin.locator('[data-order]')).toBeVisible({ timeout: 15_000 });
    await act(admin, 'en', 'revoke');
    await expect(admin.locator('[data-outcome]')).toHaveText(`${m.actions.revoke}: ${m.actions.outcome_done}`);
    await expect(fact(admin, m.order.esimStatus)).toHaveText('cancelled');
    await expect(admin.locator('[data-table="timeline"]')).toContainText('e2e revoke for the buyer');
    await admin.context().close();
  });

  test('a highest-risk payment is held with its Radar signal; approved it is delivered, another rejected is refunded in full', async ({
    page,
    browser,
  }, testInfo) => {
    test.setTimeout(180_000);
    /** Pays with Stripe's highest-risk test card; answers the order's id and number from payment success. */
    const payRisky = async () => {
      await buy(page, 'en');
      await payWith(page, '4000 0000 0000 4954');
      await expect(page).toHaveURL(/[?&]order=/, { timeout: 15_000 });
      const number = (await page.locator('[data-order-number]').textContent({ timeout: 15_000 }))!.trim();
      return { id: new URL(page.url()).searchParams.get('order')!, number };
    };
    await signedInAt(page, 'en', checkout);
    const approved = await payRisky();
    await leavePaymentSuccess(page, checkout);
    const rejected = await payRisky();

    const admin = await operatorPage(browser, testInfo, 'en');
    await atOps(admin, 'en', await staff('admin'));

    // Approved: delivered.
    await admin.goto(`/ops?order=${approved.id}`);
    await expect(admin.locator(`[data-order="${approved.number}"]`)).toBeVisible({ timeout: 15_000 });
    await expect(admin.locator('[data-order-state]')).toHaveText(m.states.paid);
    await expect(admin.getByText(m.order.held, { exact: true })).toBeVisible();
    await expect(admin.locator('[data-signals]')).toContainText('radar_risk: highest');
    expect(await axeViolations(admin)).toEqual([]);
    await act(admin, 'en', 'approve');
    // The delivery runs on after the answer (the order shows 'being delivered'): the page read again shows it done.
    await expect(async () => {
      await admin.reload();
      await expect(admin.locator('[data-order-state]')).toHaveText(m.states.delivered, { timeout: 5_000 });
    }).toPass({ timeout: 60_000 });
    await expect(admin.getByText(m.order.held, { exact: true })).toHaveCount(0);
    await expect(admin.locator('[data-action="approve"], [data-action="reject"]')).toHaveCount(0);

    // Rejected: refunded in full.
    await admin.goto(`/ops?order=${rejected.id}`);
    await expect(admin.locator(`[data-order="${rejected.number}"]`)).toBeVisible({ timeout: 15_000 });
    await act(admin, 'en', 'reject');
    await expect(async () => {
      await admin.reload();
      await expect(admin.locator('[data-order-state]')).toHaveText(m.states.refunded, { timeout: 5_000 });
    }).toPass({ timeout: 60_000 });
    await expect(admin.locator('[data-refunded]')).toHaveText(`€${(PLAN.prices.EUR / 100).toFixed(2)}`);
    await admin.context().close();
  });

  // Known failure: GET /ops/orders?attention=1 lists only what order-search.ts's ATTENTION names (stuck,
  // delivery failed or retrying, a slow refund): neither a held order nor a fraud signal (fraud/signals.ts's
  // needsAttention is not used by the route), so "Needs attention only" answers "No orders match.".
  test('the orders list filtered by “needs attention” shows a held highest-risk order with its radar_risk signal', async ({
    page,
    browser,
  }, testInfo) => {
    test.setTimeout(120_000);
    await signedInAt(page, 'en', checkout);
    await buy(page, 'en');
    await payWith(page, '4000 0000 0000 4954');
    const number = (await page.locator('[data-order-number]').textContent({ timeout: 15_000 }))!.trim();

    const admin = await operatorPage(browser, testInfo, 'en');
    await atOps(admin, 'en', await staff('admin'));
    await admin.getByLabel(m.orders.attention).check();
    await admin.getByRole('button', { name: m.orders.submit }).click();
    await expect(admin).toHaveURL(/[?&]attention=1/);
    await expect(admin.getByRole('status').filter({ hasText: /./ }).first()).toBeVisible({ timeout: 15_000 });
    const row = admin.locator(`[data-order-row="${number}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText('radar_risk');
    await hydrated(admin);
    expect(await axeViolations(admin)).toEqual([]);
    await admin.context().close();
  });
});

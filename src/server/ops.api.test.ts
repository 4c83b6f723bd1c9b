import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, testCatalogue, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { OpsAccount, OpsActionResult, OpsDashboard, OpsMe, OpsOrder, OpsOrderList, type OpsRole } from '../contract/ops-api.ts';
import { ApiError, CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { firebaseAccounts } from './auth.ts';
import { auditDatabase } from './orders/audit.ts';

/**
 * The back office's API (issue 30) over HTTP, against the real Auth emulator (roles are custom
 * claims), the Stripe, partner and SMTP stand-ins, on PostgreSQL and PGlite: who may call what,
 * the searches, the order page, and each action's record and effect.
 */
const { catalogue, PLAN } = testCatalogue();
const accounts = firebaseAccounts('demo-esim');

/** An account with a back-office role, signed in again so its ID token carries the claim. */
async function staff(role: OpsRole) {
  const account = await signUp();
  await accounts.setRole(account.uid, role);
  return { ...account, ...(await signIn(account.email)) };
}
const key = () => randomUUID();

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('the back office on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4335', allocationDelayMs: 100 });
  const { call } = bed;
  const post = (path: string, token: string, body: unknown) => call(path, { method: 'POST', token, body: JSON.stringify(body) });
  const act = async (path: string, token: string, body: unknown) => {
    const response = await post(path, token, body);
    expect(response.status).toBe(200);
    return OpsActionResult.parse(await response.json());
  };
  const readOrder = async (token: string, id: string) => {
    const response = await call(`/ops/orders/${id}`, { token });
    expect(response.status).toBe(200);
    return OpsOrder.parse(await response.json());
  };

  /** A buyer's paid and delivered eSIM. */
  async function deliveredOrder() {
    const buyer = await signUp();
    const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    expect(response.status).toBe(201);
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
    const delivered = await waitFor(
      async () => OrderView.parse(await (await call(`/orders/${order.id}`, { token: buyer.idToken })).json()),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    expect(delivered.state).toBe('delivered');
    return { buyer, order: delivered };
  }

  it('answers 401 without a token, 403 to a buyer, and support only what support may do', async () => {
    const { order } = await deliveredOrder();
    const buyer = await signUp();
    const support = await staff('support');
    const admin = await staff('admin');

    expect((await call('/ops/orders')).status).toBe(401);
    expect((await call('/ops/orders', { token: 'not-a-token' })).status).toBe(401);
    for (const path of ['/ops/me', '/ops/orders', `/ops/orders/${order.id}`]) {
      const refused = await call(path, { token: buyer.idToken });
      expect(refused.status).toBe(403);
      expect(ApiError.parse(await refused.json()).error.code).toBe('forbidden');
    }
    expect(OpsMe.parse(await (await call('/ops/me', { token: support.idToken })).json()).role).toBe('support');
    expect((await call(`/ops/orders/${order.id}`, { token: support.idToken })).status).toBe(200);

    // Support may note and resend, never refund, block, pause or read the business.
    const reason = { reason: 'the buyer asked', idempotencyKey: key() };
    for (const [path, body] of [
      [`/ops/orders/${order.id}/refunds`, reason],
      [`/ops/orders/${order.id}/esim/suspend`, reason],
      [`/ops/accounts/${buyer.uid}/block`, reason],
      ['/ops/sales/pause', reason],
    ] as const) {
      const refused = await post(path, support.idToken, body);
      expect(refused.status).toBe(403);
      expect(ApiError.parse(await refused.json()).error.code).toBe('forbidden');
    }
    expect((await call('/ops/dashboard', { token: support.idToken })).status).toBe(403);
    expect((await call('/ops/reports/orders.csv', { token: support.idToken })).status).toBe(403);
    expect((await call('/ops/dashboard', { token: admin.idToken })).status).toBe(200);

    // A role taken away counts at once: the grant revoked the sessions. Firebase compares whole
    // seconds (a token issued in the second of the revocation stays valid), so the token is a second old first.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await accounts.setRole(support.uid, undefined);
    expect((await call('/ops/me', { token: support.idToken })).status).toBe(401);
    const again = await signIn(support.email);
    expect((await call('/ops/me', { token: again.idToken })).status).toBe(403);
    expect(await bed.db.query('SELECT 1 FROM operator_actions')).toHaveLength(0);
  });

  it('finds an order by its number with or without the prefix, the e-mail, the ICCID, the Stripe ids and the partner order number', async () => {
    const { buyer, order } = await deliveredOrder();
    const admin = await staff('admin');
    const [ids] = await bed.db.query<{ iccid: string; checkout_session_id: string; payment_intent_id: string; partner_order_no: string }>(
      `SELECT e.iccid, c.checkout_session_id, p.payment_intent_id, os.partner_order_no
       FROM orders o JOIN order_sourcing os ON os.order_id = o.id JOIN order_checkouts c ON c.order_id = o.id JOIN esims e ON e.order_id = o.id JOIN payments p ON p.order_id = o.id
       WHERE o.id = $1`,
      [order.id],
    );
    const digits = order.number.split('-')[2]!;
    for (const q of [
      order.number,
      order.number.toLowerCase(),
      order.number.slice(3),
      digits,
      String(Number(digits)),
      buyer.email.toUpperCase(),
      ids!.iccid,
      ids!.checkout_session_id,
      ids!.payment_intent_id,
      ids!.partner_order_no,
    ]) {
      const response = await call(`/ops/orders?q=${encodeURIComponent(q)}`, { token: admin.idToken });
      expect(response.status, q).toBe(200);
      expect(
        OpsOrderList.parse(await response.json()).orders.map((o) => o.id),
        q,
      ).toEqual([order.id]);
    }
    const none = OpsOrderList.parse(await (await call('/ops/orders?q=nobody%40example.com', { token: admin.idToken })).json());
    expect(none.orders).toEqual([]);
    const delivered = OpsOrderList.parse(await (await call('/ops/orders?state=delivered', { token: admin.idToken })).json());
    expect(delivered.orders.map((o) => o.id)).toContain(order.id);
    expect((await call('/ops/orders?state=nonsense', { token: admin.idToken })).status).toBe(400);
    // Needs attention: its card (the stand-in's 4242 fingerprint) is also another account's (the test before paid with it).
    const flagged = OpsOrderList.parse(await (await call('/ops/orders?attention=1', { token: admin.idToken })).json());
    expect(flagged.orders.find((o) => o.id === order.id)?.attention).toEqual([
      expect.stringMatching(/^shared_card: also used by \d+ other account/),
    ]);

    const detail = await readOrder(admin.idToken, order.id);
    expect(detail.buyer).toMatchObject({ uid: buyer.uid, email: buyer.email, account: 'active' });
    expect(detail.money.retail.amountMinor).toBe(order.total.amountMinor);
    expect(detail.money.vat.amountMinor).toBe(Math.round(order.total.amountMinor - order.total.amountMinor / 1.19));
    expect(detail.money.margin.amountMinor).toBeGreaterThan(0);
    expect(detail.esim?.iccid).toBe(ids!.iccid);
    expect(detail.payment?.paymentIntentId).toBe(ids!.payment_intent_id);
    const told = detail.timeline.map((e) => `${e.source} ${e.what}`);
    expect(told).toEqual(
      expect.arrayContaining(['order pending_payment → paid', 'payment payment paid', 'partner esim/order', 'mail order e-mail']),
    );

    const account = OpsAccount.parse(
      await (await call(`/ops/accounts?q=${encodeURIComponent(buyer.email)}`, { token: admin.idToken })).json(),
    );
    expect(account).toMatchObject({ uid: buyer.uid, account: 'active' });
    expect(account.orders.map((o) => o.id)).toEqual([order.id]);
  });

  it('records every action with who and why, once per click: a note, the e-mail again, a refund in two parts, a block', async () => {
    const { buyer, order } = await deliveredOrder();
    const support = await staff('support');
    const admin = await staff('admin');

    const noteKey = key();
    const note = { text: 'Buyer called: eSIM not showing on the phone.', idempotencyKey: noteKey };
    expect(await act(`/ops/orders/${order.id}/notes`, support.idToken, note)).toMatchObject({ outcome: 'done' });
    expect(await act(`/ops/orders/${order.id}/notes`, support.idToken, note)).toMatchObject({ outcome: 'already' });

    // The e-mail again, to a corrected address (an admin's to give): a second message, with the eSIM, recorded.
    const resendKey = key();
    const resend = { reason: 'typo in the address', to: `fixed-${buyer.email}`, idempotencyKey: resendKey };
    expect(await act(`/ops/orders/${order.id}/resend-email`, admin.idToken, resend)).toMatchObject({ outcome: 'done' });
    expect(await act(`/ops/orders/${order.id}/resend-email`, admin.idToken, resend)).toMatchObject({ outcome: 'already' });
    const again = await bed.stand.smtp.waitFor((m) => m.to.includes(`fixed-${buyer.email}`), 10_000);
    expect(again.subject).toContain(order.number);
    expect(bed.stand.smtp.messages.filter((m) => m.to.includes(`fixed-${buyer.email}`))).toHaveLength(1);

    // Half, then the rest; more than was paid is refused and records no refund.
    const half = Math.floor(order.total.amountMinor / 2);
    const first = { reason: 'goodwill: slow network', amountMinor: half, idempotencyKey: key() };
    expect((await act(`/ops/orders/${order.id}/refunds`, admin.idToken, first)).outcome).toBe('done');
    expect((await act(`/ops/orders/${order.id}/refunds`, admin.idToken, first)).outcome).toBe('already');
    const tooMuch = await act(`/ops/orders/${order.id}/refunds`, admin.idToken, {
      reason: 'too much',
      amountMinor: order.total.amountMinor,
      idempotencyKey: key(),
    });
    expect(tooMuch.outcome).toBe('refused');
    expect(
      (await act(`/ops/orders/${order.id}/refunds`, admin.idToken, { reason: 'the rest, as agreed', idempotencyKey: key() })).outcome,
    ).toBe('done');
    const refunded = await waitFor(
      () => readOrder(admin.idToken, order.id),
      (o) => o.refunds.every((r) => r.status === 'succeeded'),
    );
    expect(refunded.refunds.map((r) => [r.requestedBy, r.operator, r.amount.amountMinor, r.status])).toEqual([
      ['operator', admin.uid, half, 'succeeded'],
      ['operator', admin.uid, order.total.amountMinor - half, 'succeeded'],
    ]);
    expect(refunded.money.refunded.amountMinor).toBe(order.total.amountMinor);

    // Block: the buyer's next order is refused, the record says who and why; unblock.
    expect(
      (await act(`/ops/accounts/${buyer.uid}/block`, admin.idToken, { reason: 'chargeback fraud', idempotencyKey: key() })).outcome,
    ).toBe('done');
    const refused = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    expect(refused.status).toBe(403);
    expect(ApiError.parse(await refused.json()).error.code).toBe('account_blocked');
    expect((await readOrder(admin.idToken, order.id)).buyer.account).toBe('blocked');
    expect(
      (await act(`/ops/accounts/${buyer.uid}/unblock`, admin.idToken, { reason: 'cleared with the bank', idempotencyKey: key() })).outcome,
    ).toBe('done');

    const records = await bed.db.query<{ action: string; operator_uid: string; reason: string; outcome: string }>(
      'SELECT action, operator_uid, reason, outcome FROM operator_actions WHERE order_id = $1 OR account_uid = $2 ORDER BY id',
      [order.id, buyer.uid],
    );
    expect(records.map((r) => [r.action, r.operator_uid, r.outcome])).toEqual([
      ['note', support.uid, 'done'],
      ['resend_email', admin.uid, 'done'],
      ['refund', admin.uid, 'done'],
      ['refund', admin.uid, 'refused'],
      ['refund', admin.uid, 'done'],
      ['block', admin.uid, 'done'],
      ['unblock', admin.uid, 'done'],
    ]);
    const timeline = (await readOrder(admin.idToken, order.id)).timeline;
    expect(timeline.filter((e) => e.source === 'operator').map((e) => [e.what, e.who])).toEqual([
      ['note', support.email],
      ['resend_email', admin.email],
      ['refund', admin.email],
      ['refund', admin.email],
      ['refund', admin.email],
    ]);
    expect(timeline.some((e) => e.source === 'mail' && e.what === 'order e-mail sent again')).toBe(true);
  });

  it('runs a key again only for the same operator, action, order and body: another request under it answers 409 and does nothing (issue 46)', async () => {
    const a = await deliveredOrder();
    const b = await deliveredOrder();
    const x = await staff('admin');
    const y = await staff('admin');
    const half = Math.floor(a.order.total.amountMinor / 2);
    const clicked = { reason: 'goodwill: slow network', amountMinor: half, idempotencyKey: key() };
    expect((await act(`/ops/orders/${a.order.id}/refunds`, x.idToken, clicked)).outcome).toBe('done');
    // As if X's try had failed (its answer an error): the row may run again, but only for X's own request.
    await bed.db.query(`UPDATE operator_actions SET outcome = 'failed' WHERE idempotency_key = $1`, [clicked.idempotencyKey]);

    for (const [path, token, body] of [
      [`/ops/orders/${b.order.id}/refunds`, y.idToken, { ...clicked, reason: 'their own reason' }],
      [`/ops/orders/${b.order.id}/refunds`, y.idToken, clicked],
      [`/ops/orders/${b.order.id}/refunds`, x.idToken, clicked],
      [`/ops/orders/${a.order.id}/refunds`, y.idToken, clicked],
      [`/ops/orders/${a.order.id}/refunds`, x.idToken, { ...clicked, amountMinor: half + 1 }],
      [`/ops/orders/${a.order.id}/refunds`, x.idToken, { ...clicked, esim: 'suspend' }],
      [`/ops/orders/${a.order.id}/esim/suspend`, x.idToken, { reason: clicked.reason, idempotencyKey: clicked.idempotencyKey }],
      [`/ops/orders/${a.order.id}/notes`, x.idToken, { text: clicked.reason, idempotencyKey: clicked.idempotencyKey }],
    ] as const) {
      const refused = await post(path, token, body);
      expect(refused.status, `${path} ${JSON.stringify(body)}`).toBe(409);
      expect(ApiError.parse(await refused.json()).error.code).toBe('key_reused');
    }
    const seenB = await readOrder(x.idToken, b.order.id);
    expect(seenB.refunds).toEqual([]);
    expect(seenB.timeline.filter((e) => e.source === 'operator')).toEqual([]);
    expect(
      await bed.db.query('SELECT operator_uid, order_id, action, reason, outcome FROM operator_actions WHERE idempotency_key = $1', [
        clicked.idempotencyKey,
      ]),
    ).toEqual([{ operator_uid: x.uid, order_id: a.order.id, action: 'refund', reason: clicked.reason, outcome: 'failed' }]);
    expect(await bed.db.query('SELECT 1 FROM operator_actions WHERE order_id = $1', [b.order.id])).toHaveLength(0);

    // X's own click again runs again: the refund command's key is the click's, so it is still one refund.
    expect((await act(`/ops/orders/${a.order.id}/refunds`, x.idToken, clicked)).outcome).toBe('done');
    const seenA = await readOrder(x.idToken, a.order.id);
    expect(seenA.refunds.map((r) => [r.operator, r.amount.amountMinor])).toEqual([[x.uid, half]]);
  });

  it('sends the codes again for support only to the buyer or the traveller; another address needs an admin, and the record says who and where (issue 46)', async () => {
    const { buyer, order } = await deliveredOrder();
    const support = await staff('support');
    const admin = await staff('admin');
    const traveller = `traveller-${buyer.email}`;
    await bed.db.query(`INSERT INTO order_travellers (order_id, name, email) VALUES ($1, 'Ana', $2)`, [order.id, traveller]);
    const resend = (token: string, to?: string) =>
      post(`/ops/orders/${order.id}/resend-email`, token, { reason: 'lost the e-mail', idempotencyKey: key(), ...(to && { to }) });
    const sentTo = (address: string) =>
      bed.stand.smtp.messages.filter((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase())).length;

    // Another address: support is refused, nothing sent or recorded.
    const stranger = `someone-else-${randomUUID()}@example.com`;
    const refused = await resend(support.idToken, stranger);
    expect(refused.status).toBe(403);
    expect(ApiError.parse(await refused.json()).error.code).toBe('address_needs_admin');
    expect(await bed.db.query('SELECT 1 FROM operator_actions WHERE order_id = $1', [order.id])).toHaveLength(0);

    // The buyer's (none given, or given in other letters) and the traveller's are open to support.
    for (const to of [undefined, buyer.email.toUpperCase(), traveller, traveller.toUpperCase()]) {
      const sent = await resend(support.idToken, to);
      expect(sent.status, to).toBe(200);
      expect(OpsActionResult.parse(await sent.json()).outcome, to).toBe('done');
    }
    // An admin may give another address.
    const byAdmin = await resend(admin.idToken, stranger);
    expect(byAdmin.status).toBe(200);
    expect(OpsActionResult.parse(await byAdmin.json()).outcome).toBe('done');
    await expect.poll(() => sentTo(stranger), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => sentTo(traveller), { timeout: 10_000 }).toBe(2);

    const records = await bed.db.query<{ operator_uid: string; operator_email: string; to: string; whose: string }>(
      `SELECT operator_uid, operator_email, details->>'to' AS to, details->>'addressOf' AS whose
       FROM operator_actions WHERE order_id = $1 AND action = 'resend_email' ORDER BY id`,
      [order.id],
    );
    expect(records.map((r) => [r.operator_uid, r.operator_email, r.to, r.whose])).toEqual([
      [support.uid, support.email, buyer.email, 'buyer'],
      [support.uid, support.email, buyer.email.toUpperCase(), 'buyer'],
      [support.uid, support.email, traveller, 'traveller'],
      [support.uid, support.email, traveller.toUpperCase(), 'traveller'],
      [admin.uid, admin.email, stranger, 'other'],
    ]);
    const mails = await bed.db.query<{ to_address: string }>(
      'SELECT to_address FROM order_emails WHERE order_id = $1 AND operator_action_id IS NOT NULL ORDER BY id',
      [order.id],
    );
    expect(mails.map((m) => m.to_address)).toEqual(records.map((r) => r.to));
  });

  it('shows an order paid in USD in dollars with what Stripe settled in euros; the dashboard counts it in EUR, with a USD line', async () => {
    const admin = await staff('admin');
    const dashboard = async () => OpsDashboard.parse(await (await call('/ops/dashboard', { token: admin.idToken })).json());
    const before = (await dashboard()).periods[0]!;
    const buyer = await signUp();
    const usd = { amountMinor: PLAN.prices.USD, currency: 'USD' };
    const response = await call('/orders', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify(orderRequest(PLAN, { lang: 'en', expectedPrice: usd })),
    });
    expect(response.status).toBe(201);
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
    const detail = await waitFor(
      () => readOrder(admin.idToken, order.id),
      (o) => o.order.state === 'delivered' && o.money.settled !== null,
    );

    // The Stripe stand-in settles dollars into the euro balance at the ECB fixture's rate (6 decimals), the fee in euros.
    const settledEur = Math.round((usd.amountMinor / 100) * Math.round((1 / catalogue.exchangeRates.applied.USD) * 1e6) * 1e-4);
    const feeEur = Math.round(settledEur * 0.015) + 25 + Math.round(settledEur * 0.02);
    const vat = Math.round(usd.amountMinor - usd.amountMinor / 1.19);
    // The wholesale price in dollars is itself: USD × 10,000 to cents.
    const wholesale = PLAN.pkg.wholesaleUsdE4 / 100;
    expect(detail.order.total).toEqual(usd);
    expect(detail.money).toEqual({
      retail: usd,
      vat: { amountMinor: vat, currency: 'USD' },
      wholesaleUsd: PLAN.pkg.wholesaleUsdE4 / 10_000,
      wholesale: { amountMinor: Math.round(wholesale), currency: 'USD' },
      stripeFee: { amountMinor: feeEur, currency: 'EUR' },
      settled: { amountMinor: settledEur, currency: 'EUR' },
      // The fee back in dollars at the rate Stripe settled the charge at.
      margin: { amountMinor: Math.round(usd.amountMinor - vat - wholesale - (feeEur * usd.amountMinor) / settledEur), currency: 'USD' },
      refunded: { amountMinor: 0, currency: 'USD' },
    });
    expect(detail.money.margin.amountMinor).toBeGreaterThan(0);

    // Today's figures: the order in EUR as Stripe settled it; the dollars on a line of their own.
    const after = (await dashboard()).periods[0]!;
    expect(after.orders).toBe(before.orders + 1);
    expect(after.gross).toEqual({ amountMinor: before.gross.amountMinor + settledEur, currency: 'EUR' });
    expect(after.stripeFees?.amountMinor).toBe((before.stripeFees?.amountMinor ?? 0) + feeEur);
    expect(after.estimatedOrders).toBe(before.estimatedOrders);
    const usdLine = (p: typeof before) => p.byCurrency.find((line) => line.currency === 'USD');
    expect(usdLine(after)).toEqual({
      currency: 'USD',
      orders: (usdLine(before)?.orders ?? 0) + 1,
      gross: { amountMinor: (usdLine(before)?.gross.amountMinor ?? 0) + usd.amountMinor, currency: 'USD' },
    });
    expect(after.byCurrency[0]?.currency).toBe('EUR');
  });

  it('an operator refunding the whole of an unused eSIM cancels it at the partner (the order ends refunded); of an installed one, refunds and leaves it working', async () => {
    const admin = await staff('admin');
    const unused = await deliveredOrder();
    const refund = { reason: 'bought the wrong country', idempotencyKey: key() };
    expect((await act(`/ops/orders/${unused.order.id}/refunds`, admin.idToken, refund)).outcome).toBe('done');
    const cancelled = await waitFor(
      () => readOrder(admin.idToken, unused.order.id),
      (o) => o.order.state === 'refunded',
    );
    expect(cancelled.order.state).toBe('refunded');
    expect(cancelled.esim?.status).toBe('cancelled');
    expect(cancelled.refunds.map((r) => [r.requestedBy, r.status, r.amount.amountMinor])).toEqual([
      ['operator', 'succeeded', unused.order.total.amountMinor],
    ]);
    expect(cancelled.timeline.some((e) => e.source === 'partner' && e.what === 'esim/cancel' && e.detail?.startsWith('applied'))).toBe(
      true,
    );
    // The buyer is told: the refund e-mail follows the order e-mail.
    await expect.poll(() => bed.stand.smtp.messages.filter((m) => m.to.includes(unused.buyer.email)).length, { timeout: 10_000 }).toBe(2);

    const installed = await deliveredOrder();
    bed.stand.partner.markInstalled(bed.stand.partner.tranNoOfTransaction(installed.order.id)!);
    await call(`/ops/orders/${installed.order.id}/esim/read`, { method: 'POST', token: admin.idToken });
    const kept = { reason: 'network outage on their trip', idempotencyKey: key() };
    expect((await act(`/ops/orders/${installed.order.id}/refunds`, admin.idToken, kept)).outcome).toBe('done');
    const after = await waitFor(
      () => readOrder(admin.idToken, installed.order.id),
      (o) => o.refunds.every((r) => r.status === 'succeeded'),
    );
    expect(after.order.state).toBe('delivered');
    expect(after.money.refunded.amountMinor).toBe(installed.order.total.amountMinor);
    expect(after.esim?.status).not.toBe('cancelled');
  });

  it('shows a delivery whose job gave up (dead) in needs attention, on its page and in the audit; "retry delivery" brings it back and delivers (issue 47)', async () => {
    const admin = await staff('admin');
    let orderId = '';
    const buyer = await signUp();
    // The partner answers 500 to every order until it recovers.
    bed.stand.partner.failNext({ status: 500 }, { count: 1_000, call: 'esim/order' });
    try {
      const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
      const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
      orderId = order.id;
      expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
      // A job gives up after max_attempts failed tries (25; jobs/queue.test.ts counts them): this one after two.
      await waitFor(
        async () => (await bed.db.query('SELECT 1 FROM jobs WHERE order_id = $1', [orderId])).length,
        (n) => n > 0,
      );
      await bed.db.query('UPDATE jobs SET max_attempts = 2 WHERE order_id = $1', [orderId]);
      // The reconcile job runs what is due: each run, one more failed try.
      const stuck = await waitFor(
        async () => (await bed.handler.fulfilment.runDue(), readOrder(admin.idToken, orderId)),
        (o) => o.order.job?.state === 'dead',
      );
      expect(stuck.order.state).toBe('provisioning');
      expect(stuck.order.job).toMatchObject({ kind: 'deliver', state: 'dead', attempts: 2 });
      expect(stuck.timeline.map((entry) => entry.what).join('\n')).toContain('job deliver gave up (dead)');
      const attention = OpsOrderList.parse(await (await call('/ops/orders?attention=1', { token: admin.idToken })).json());
      expect(attention.orders.find((o) => o.id === order.id)?.attention).toContain('job_dead');
      const { findings } = await auditDatabase(bed.db);
      expect(findings.filter((f) => f.orderId === order.id).map((f) => f.invariant)).toContain('job_dead');
    } finally {
      bed.stand.partner.recover('esim/order');
    }

    // The partner answers again; an admin retries: the job comes back with its full count and delivers.
    expect((await act(`/ops/orders/${orderId}/retry`, admin.idToken, { reason: 'partner is back', idempotencyKey: key() })).outcome).toBe(
      'done',
    );
    const delivered = await waitFor(
      () => readOrder(admin.idToken, orderId),
      (o) => o.order.state === 'delivered',
    );
    expect(delivered.order.job?.state).not.toBe('dead');
    const after = OpsOrderList.parse(await (await call('/ops/orders?attention=1', { token: admin.idToken })).json());
    expect(after.orders.find((o) => o.id === orderId)?.attention ?? []).not.toContain('job_dead');
  });
});

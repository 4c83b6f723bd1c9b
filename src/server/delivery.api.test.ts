import { describe, expect, it } from 'vitest';
import { BUYER_REFUND_ANSWER_MS } from '../config/constants.ts';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { FAILURES, startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { esimAccessOnly, PARTNER_WEBHOOK_TOKEN } from '../../tests/support/delivery-stand-ins.ts';
import { orderRequest, payOnStandIn, testCatalogue, topUpRequest, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import {
  ApiError,
  CreateOrderResponse,
  EsimList,
  EsimView,
  OrderList,
  OrderView,
  TERMS_VERSION,
  TopUpPlans,
  type CreateOrderRequest,
} from '../contract/shop-api.ts';
import type { ShopApi, ShopApiOptions } from './wiring.ts';
import { createEsimAccessPartner } from './partner/esim-access/adapter.ts';

/**
 * Delivery over real HTTP with real parts (issue 15): the shop API on PostgreSQL (a server and
 * PGlite), Auth emulator tokens, the real Stripe SDK, eSIM Access adapter and nodemailer talking
 * to their stand-ins. Paid orders end delivered (codes to the owner only, one e-mail) or refunded.
 */
const { catalogue, plans, PLAN } = testCatalogue();
const BIGGER = [...plans.values()].find((p) => p.destination.code === 'DE' && p.pkg.id !== PLAN.pkg.id)!;
const SITE = 'http://127.0.0.1:4329';

const orderFor = (plan = PLAN, overrides: Partial<CreateOrderRequest> = {}) => orderRequest(plan, overrides);

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('delivery on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 300 });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  /** Runs the reconcile job until the order reaches `state`: the job drives a delivery's retries and waits. */
  const reconciledTo = (token: string, id: string, state: OrderView['state'], timeoutMs = 15_000) =>
    waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(token, id)),
      (o) => o.state === state,
      timeoutMs,
    );
  const listEsims = async (token: string) => EsimList.parse(await (await call('/esims?lang=de', { token })).json()).esims;
  const events = async (id: string) =>
    (await bed.db.query<{ to_state: string }>('SELECT to_state FROM order_events WHERE order_id = $1 ORDER BY id', [id])).map(
      (e) => e.to_state,
    );

  /** Orders and pays with the test card, as the buyer's browser would. */
  async function buy(token: string, request = orderFor()) {
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token, body: JSON.stringify(request) })).json(),
    );
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    return created.order;
  }
  const delivered = (token: string, id: string) =>
    waitFor(
      () => readOrder(token, id),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );

  it('delivers a paid order within seconds: install codes to the owner only, and one e-mail with the same codes', async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    const after = await delivered(buyer.idToken, order.id);
    expect(after.state).toBe('delivered');
    const install = after.esim!.install!;
    expect(install.lpa).toBe(`LPA:1$${install.smdpAddress}$${install.activationCode}`);
    expect(install.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(install.qrSvg).not.toMatch(/<script|href=/i);
    expect(install.iphoneUrl).toBe(`https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(install.lpa)}`);
    // The partner's APN from esim/query (the stand-in's, stand-ins/esim-access/esims.ts), for the get-connected checklist.
    expect(install.apn).toBe('internet.stand-in.invalid');
    expect(after.esim).toMatchObject({ id: order.id, status: 'ready', refundable: true, canTopUp: false, orderNumber: order.number });
    expect(after.esim!.usage!.totalBytes).toBeGreaterThan(0);
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);

    // The e-mail: once, in German, with the codes and the QR code as an inline image.
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);
    expect(mail.text).toContain(install.smdpAddress);
    expect(mail.text).toContain(install.activationCode);
    expect(mail.text).toContain('Bestellnummer');
    expect(mail.attachments.some((a) => a.contentType === 'image/png' && a.cid)).toBe(true);
    await bed.handler.fulfilment.run(order.id);
    await bed.handler.fulfilment.runDue();
    expect(bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email))).toHaveLength(1);

    // Only the owner: another account gets 404 and an empty list.
    const stranger = await signUp();
    expect((await call(`/orders/${order.id}?lang=de`, { token: stranger.idToken })).status).toBe(404);
    expect(await listEsims(stranger.idToken)).toEqual([]);
    expect((await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: stranger.idToken })).status).toBe(404);
    expect((await call('/esims?lang=de')).status).toBe(401);
    const mine = await listEsims(buyer.idToken);
    expect(mine.map((e) => [e.id, e.status, e.install?.apn])).toEqual([[order.id, 'ready', 'internet.stand-in.invalid']]);
  });

  it('sells and delivers a daily plan and an unlimited one like any other, ordering their own package at the partner (issue 22)', async () => {
    const buyer = await signUp();
    for (const id of ['de-1gb-daily-7d', 'de-unlimited-3gb-7d']) {
      const plan = plans.get(id)!;
      expect(plan.pkg.facts.data.kind, id).not.toBe('total');
      const order = await buy(buyer.idToken, orderFor(plan));
      expect(order.plan.id).toBe(id);
      expect((await delivered(buyer.idToken, order.id)).esim!.install!.lpa).toMatch(/^LPA:1\$/);
      const ordered = bed.stand.partner.requests.filter((r) => r.call === 'esim/order').map((r) => JSON.stringify(r.body));
      expect(
        ordered.some((body) => body.includes(plan.pkg.partnerCode)),
        id,
      ).toBe(true);
    }
  });

  it('orders from the partner once however often it is asked, and takes partner notifications as hints only', async () => {
    const buyer = await signUp();
    const before = bed.stand.partner.esimCount;
    const order = await buy(buyer.idToken);
    await Promise.all([bed.handler.fulfilment.run(order.id), bed.handler.fulfilment.run(order.id), bed.handler.fulfilment.runDue()]);
    await delivered(buyer.idToken, order.id);
    await bed.handler.fulfilment.run(order.id);
    expect(bed.stand.partner.esimCount - before).toBe(1);

    const notify = (token: string, body: unknown) => call(`/webhooks/partner/${token}`, { method: 'POST', body: JSON.stringify(body) });
    const ready = {
      notifyType: 'ORDER_STATUS',
      notifyId: `n-${order.id}`,
      content: { orderNo: 'nope', transactionId: order.id, orderStatus: 'GOT_RESOURCE' },
    };
    expect((await notify('wrong-token', ready)).status).toBe(404);
    expect((await notify(PARTNER_WEBHOOK_TOKEN, 'garbage')).status).toBe(400);
    expect(await (await notify(PARTNER_WEBHOOK_TOKEN, ready)).json()).toMatchObject({ outcome: 'handled' });
    expect(await (await notify(PARTNER_WEBHOOK_TOKEN, ready)).json()).toMatchObject({ outcome: 'replay' });
    // A forged 'the eSIM was cancelled' is checked with the partner, which says otherwise.
    const esim = (await listEsims(buyer.idToken))[0]!;
    const [row] = await bed.db.query<{ esim_tran_no: string }>('SELECT esim_tran_no FROM esims WHERE order_id = $1', [order.id]);
    await notify(PARTNER_WEBHOOK_TOKEN, {
      notifyType: 'ESIM_STATUS',
      notifyId: `c-${order.id}`,
      content: { esimTranNo: row!.esim_tran_no, iccid: esim.iccid, esimStatus: 'CANCEL', smdpStatus: 'DELETED' },
    });
    expect((await listEsims(buyer.idToken))[0]!.status).toBe('ready');
    expect(bed.stand.partner.esimCount - before).toBe(1);
  });

  it('delivers after a restart: paid while the partner could not be reached, delivered by the reconcile job of the next server', async () => {
    const buyer = await signUp();
    // The first server cannot reach the partner: the order is paid, and no partner order exists.
    await bed.api.close();
    await new Promise((r) => setTimeout(r, 300));
    const cut = bed.build({
      partners: esimAccessOnly(createEsimAccessPartner({ accessCode: 'x', secretKey: 'y', baseUrl: 'http://127.0.0.1:9', retries: 0 })),
    });
    bed.api = await serveApi(cut, bed.port);
    const before = bed.stand.partner.requests.filter((r) => r.call === 'esim/order').length;
    const order = await buy(buyer.idToken);
    const stuck = await waitFor(
      () => readOrder(buyer.idToken, order.id),
      (o) => o.state === 'provisioning',
    );
    expect(stuck.state).toBe('provisioning');
    await cut.fulfilment.settled();
    await bed.api.close();
    // The client's pooled connections to the closed server notice it.
    await new Promise((r) => setTimeout(r, 300));
    expect(bed.stand.partner.requests.filter((r) => r.call === 'esim/order').length).toBe(before);

    // The next server: the scheduler's call runs its job, which finds the order and delivers it, with the e-mail.
    bed.handler = bed.build({ reconcileToken: 'test-reconcile-token' });
    bed.api = await serveApi(bed.handler, bed.port);
    const reconcile = (token?: string) => call('/jobs/reconcile', { method: 'POST', ...(token && { token }) });
    expect((await reconcile()).status).toBe(404);
    expect((await reconcile('another-token')).status).toBe(404);
    const job = await reconcile('test-reconcile-token');
    expect(job.status).toBe(200);
    expect(((await job.json()) as { handled: number }).handled).toBeGreaterThanOrEqual(1);
    await reconciledTo(buyer.idToken, order.id, 'delivered', 10_000);
    expect((await delivered(buyer.idToken, order.id)).esim!.install).not.toBeNull();
    await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
  });

  it('refunds through Stripe, with an e-mail, when the partner fails for good', async () => {
    const buyer = await signUp();
    // As many failures as the delivery has tries (tests/support/delivery-stand-ins.ts: three).
    bed.stand.partner.failNext(FAILURES.outOfStock, { count: 3, call: 'esim/order' });
    const order = await buy(buyer.idToken);
    const refunded = await reconciledTo(buyer.idToken, order.id, 'refunded');
    expect(refunded.state).toBe('refunded');
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'fulfilment_failed', 'refunded']);
    await expectRefundedToBuyer(order, buyer);
  });

  const paymentIntent = async (orderId: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        orderId,
      ])
    )[0]?.payment_intent_id;
  /** Refunded as the buyer sees it: the whole payment back at Stripe, one e-mail without codes, shown refunded without codes. */
  async function expectRefundedToBuyer(
    order: { id: string; number: string; total: { amountMinor: number } },
    buyer: { email: string; idToken: string },
  ) {
    const refunds = await bed.stripe.refunds.list({ payment_intent: (await paymentIntent(order.id))! });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[order.total.amountMinor, 'succeeded']]);
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);
    expect(mail.attachments).toEqual([]);
    expect((await listEsims(buyer.idToken)).find((e) => e.id === order.id)).toMatchObject({
      status: 'refunded',
      install: null,
      refundable: false,
    });
  }

  it('sends the install codes by e-mail only to a verified address; an unverified buyer still sees them on the payment page (issue 29, defect 6)', async () => {
    const buyer = await signUp(undefined, { emailVerified: false });
    const order = await buy(buyer.idToken);
    const install = (await delivered(buyer.idToken, order.id)).esim!.install!;
    // The payment page and My eSIMs show the codes to the signed-in owner.
    expect(install.lpa).toMatch(/^LPA:1\$/);
    expect((await listEsims(buyer.idToken)).map((e) => e.install?.activationCode)).toEqual([install.activationCode]);
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);
    for (const code of [install.activationCode, install.lpa, 'esimsetup.apple.com']) expect(mail.text).not.toContain(code);
    expect(mail.attachments).toEqual([]);
    expect(mail.text).toContain(`${SITE}/de/my-esim`);
    expect(mail.text).toContain(`${SITE}/de/profile`);
    expect(mail.text).toContain('Bestellnummer');
  });

  it('refunds an unused eSIM on request (partner cancels, Stripe refunds, e-mail), and never an installed one', async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    const { esim } = await delivered(buyer.idToken, order.id);
    await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    // Delivered and never installed: the page offers the refund.
    expect(esim).toMatchObject({ status: 'ready', refundable: true });

    const response = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(response.status).toBe(200);
    expect(EsimView.parse(await response.json())).toMatchObject({ id: order.id, status: 'refunded', install: null, refundable: false });
    expect((await readOrder(buyer.idToken, order.id)).state).toBe('refunded');
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered', 'refund_requested', 'refunded']);
    expect(bed.stand.partner.requests.some((r) => r.call === 'esim/cancel' && r.status === 200)).toBe(true);
    await waitFor(
      async () => bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email)).length,
      (n) => n === 2,
    );
    expect(bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email)).map((m) => m.attachments.length)).toEqual([1, 0]);
    const again = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(again.status).toBe(409);
    expect(ApiError.parse(await again.json()).error.code).toBe('not_refundable');

    // Installed on a phone: no refund, even if the page still offered it (the refund is asked for
    // before the partner's 'installed' notification reached the shop).
    const second = await buy(buyer.idToken, orderFor(BIGGER));
    const installed = await delivered(buyer.idToken, second.id);
    expect(installed.esim).toMatchObject({ status: 'ready', refundable: true });
    const secondTranNo = tranNo(installed.esim!.iccid!);
    bed.stand.partner.markInstalled(secondTranNo);
    const refused = await call(`/esims/${second.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(refused.status).toBe(409);
    expect(ApiError.parse(await refused.json()).error.code).toBe('not_refundable');
    // Its view now says installed, and offers no refund: on the order and in My eSIMs.
    const after = await readOrder(buyer.idToken, second.id);
    expect(after.state).toBe('delivered');
    expect(after.esim).toMatchObject({ id: second.id, status: 'active', refundable: false });
    expect(after.esim!.install).not.toBeNull();
    expect((await listEsims(buyer.idToken)).find((e) => e.id === second.id)).toMatchObject({ status: 'active', refundable: false });
    // Nothing was undone for it: no refund asked for, no cancel at the partner, no money back.
    expect(await events(second.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
    expect(
      bed.stand.partner.requests.filter((r) => r.call === 'esim/cancel' && (r.body as { esimTranNo?: string }).esimTranNo === secondTranNo),
    ).toEqual([]);
    expect((await bed.stripe.refunds.list({ payment_intent: (await paymentIntent(second.id))! })).data).toEqual([]);
    const atPartner = await bed.stand.esimAccess.queryProfiles({ esimTranNo: secondTranNo });
    expect(atPartner).toMatchObject({ status: 'ready', profiles: [{ esimTranNo: secondTranNo, installed: true }] });
    expect(atPartner.status === 'ready' && atPartner.profiles[0]!.status).not.toBe('cancelled');
  });

  it('answers a refund whose cancel at the partner is slow (a rush) within seconds, shown refunding, and finishes it after', async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    await delivered(buyer.idToken, order.id);
    // The cancel waits longer than the answer may (BUYER_REFUND_ANSWER_MS): the partner's budget serving deliveries first.
    const cancelMs = BUYER_REFUND_ANSWER_MS + 5_000;
    bed.stand.partner.failNext({ delayMs: cancelMs }, { call: 'esim/cancel' });
    const pressed = Date.now();
    const response = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(Date.now() - pressed).toBeLessThan(cancelMs);
    expect(response.status).toBe(200);
    expect(EsimView.parse(await response.json())).toMatchObject({ id: order.id, status: 'refunding', refundable: false });
    // The refund goes on without the buyer: the partner cancels, Stripe refunds.
    await bed.handler.fulfilment.settled();
    expect((await readOrder(buyer.idToken, order.id)).state).toBe('refunded');
    const refunds = await bed.stripe.refunds.list({ payment_intent: (await paymentIntent(order.id))! });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[order.total.amountMinor, 'succeeded']]);
  }, 60_000);

  const tranNo = (iccid: string) => bed.stand.partner.esimTranNoOf(iccid)!;

  /** The API on the same port with another handler (the stand-ins' webhooks keep reaching it). */
  async function serveWith(next: ShopApi) {
    await bed.handler.fulfilment.settled();
    await bed.api.close();
    // The client's pooled connections to the closed server notice it.
    await new Promise((r) => setTimeout(r, 300));
    bed.handler = next;
    bed.api = await serveApi(bed.handler, bed.port);
  }
  const orderRow = async (id: string) =>
    (
      await bed.db.query<{
        state: string;
        uid: string | null;
        attempts: number;
        last_error: string | null;
        email_sent_at: Date | null;
        refund_reason: string | null;
        next_attempt_at: Date | null;
      }>(
        // The order's job (jobs/queue.ts; gone once it is done), the e-mail of its state (the outbox),
        // and its last error: its job's, or the one its delivery gave up with (the move's cause).
        `SELECT o.state, o.uid, coalesce(j.attempts, 0) AS attempts, r.reason AS refund_reason, j.run_at AS next_attempt_at,
           coalesce(j.last_error, (SELECT cause FROM order_events e WHERE e.order_id = o.id AND e.to_state = 'fulfilment_failed'
                                    ORDER BY e.id DESC LIMIT 1)) AS last_error,
           (SELECT sent_at FROM email_outbox x WHERE x.order_id = o.id
              AND x.kind = CASE WHEN o.state = 'refunded' THEN 'refund' ELSE 'order' END) AS email_sent_at
         FROM orders o LEFT JOIN jobs j ON j.key = 'order:' || o.id LEFT JOIN order_refund_reasons r ON r.order_id = o.id
         WHERE o.id = $1`,
        [id],
      )
    )[0]!;
  const partnerOrders = (id: string) =>
    bed.stand.partner.requests.filter((r) => r.call === 'esim/order' && (r.body as { transactionId?: string }).transactionId === id);
  const mailsTo = (email: string) => bed.stand.smtp.messages.filter((m) => m.to.includes(email));

  it("tops up an installed eSIM with one of the partner's top-ups of it, through the same checkout, and shows data use", async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    const { esim } = await delivered(buyer.idToken, order.id);
    // Not installed yet: no top-up.
    expect((await call(`/esims/${order.id}/top-ups?lang=de`, { token: buyer.idToken })).status).toBe(409);
    const refused = await call('/orders', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify(topUpRequest({ id: 'topup-1gb-7d', price: PLAN.price }, order.id)),
    });
    expect(refused.status).toBe(409);

    bed.stand.partner.markInstalled(tranNo(esim!.iccid!));
    bed.stand.partner.setUsage(tranNo(esim!.iccid!), 400 * 1024 ** 2);
    const active = await waitFor(
      () => listEsims(buyer.idToken),
      (list) => list[0]?.status === 'active' && list[0].usage?.usedBytes === 400 * 1024 ** 2,
    );
    expect(active[0]).toMatchObject({ status: 'active', canTopUp: true, refundable: false });
    const totalBefore = active[0]!.usage!.totalBytes;
    // Data use is kept up to 5 minutes: reading My eSIMs again does not ask the partner again.
    const usageCalls = () => bed.stand.partner.requests.filter((r) => r.call === 'esim/usage/query').length;
    const asked = usageCalls();
    await listEsims(buyer.idToken);
    await listEsims(buyer.idToken);
    expect(usageCalls()).toBe(asked);

    const offered = TopUpPlans.parse(await (await call(`/esims/${order.id}/top-ups?lang=de`, { token: buyer.idToken })).json()).plans;
    expect(offered.length).toBeGreaterThan(1);
    // The partner's own top-ups (src/server/top-ups.api.test.ts: exactly them, priced), not the catalogue's plans.
    expect(offered.every((p) => p.id.startsWith('topup-') && !plans.has(p.id))).toBe(true);
    const topUp = await buy(buyer.idToken, topUpRequest(offered[0]!, order.id));
    expect(topUp).toMatchObject({ kind: 'top_up', esimId: order.id });
    const done = await waitFor(
      () => readOrder(buyer.idToken, topUp.id),
      (o) => o.state === 'delivered',
    );
    expect(done.esim).toMatchObject({ id: order.id, status: 'active' });
    expect(done.esim!.usage!.totalBytes).toBe(totalBefore + offered[0]!.dataAmount.value * 2 ** 30);
    // Its own confirmation (BGB § 312f): the order, the terms and the waiver, the way to My eSIMs, no codes to install again.
    const confirmation = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.subject.includes(topUp.number), 10_000);
    expect(confirmation.text).toContain(TERMS_VERSION);
    expect(confirmation.text).toContain('§ 356 Abs. 5 BGB');
    expect(confirmation.text).toContain(`${SITE}/de/my-esim`);
    expect(confirmation.text).not.toContain('LPA:1$');
    expect(confirmation.attachments).toEqual([]);
    // The history lists the top-up beside the purchase; My eSIMs still one eSIM.
    const history = OrderList.parse(await (await call('/orders?lang=de', { token: buyer.idToken })).json()).orders;
    expect(history.map((o) => [o.kind, o.esimId])).toEqual([
      ['top_up', order.id],
      ['esim', order.id],
    ]);
    expect((await listEsims(buyer.idToken)).map((e) => e.id)).toEqual([order.id]);
  });

  it('delivers once through partner failures that the production adapter retries (3 retries, its backoff), with short time-outs', async () => {
    // The adapter as production builds it (src/server/partner/esim-access/adapter.ts): only the 30 s time-out is short here.
    await serveWith(bed.build({ partners: esimAccessOnly(bed.stand.adapter({ timeoutMs: 2_000 })) }));
    try {
      // A 500 (nothing applied), then success; no answer at all until the time-out, then success.
      for (const [failure, status] of [
        [FAILURES.serverError, 500],
        [FAILURES.timeout, 0],
      ] as const) {
        const buyer = await signUp();
        const before = bed.stand.partner.esimCount;
        bed.stand.partner.failNext(failure, { call: 'esim/order' });
        const order = await buy(buyer.idToken);
        const after = await delivered(buyer.idToken, order.id);
        expect(after.state).toBe('delivered');
        // The adapter's own retry, within the delivery's first try: one eSIM, and no failed try recorded on the order.
        expect(partnerOrders(order.id).map((r) => r.status)).toEqual([status, 200]);
        expect(bed.stand.partner.esimCount - before).toBe(1);
        expect(await orderRow(order.id)).toMatchObject({ attempts: 0, last_error: null });
        expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
        await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
        expect(mailsTo(buyer.email)).toHaveLength(1);
      }
    } finally {
      await serveWith(bed.build());
    }
  });

  /**
   * Runs `test` against a partner that takes the order and never allocates its profile (esim/query
   * answers 200010 for ever), with these delivery settings; the usual partner is back afterwards.
   */
  async function withStuckPartner(delivery: NonNullable<ShopApiOptions['delivery']>, test: (stuck: EsimAccessStandIn) => Promise<void>) {
    const stuck = await startEsimAccessStandIn({
      accessCode: 'stuck-access-code',
      secretKey: 'stuck-secret',
      allocationDelayMs: 24 * 3600_000,
    });
    try {
      await serveWith(
        bed.build({
          partners: esimAccessOnly(
            createEsimAccessPartner({ accessCode: 'stuck-access-code', secretKey: 'stuck-secret', baseUrl: stuck.url, retries: 0 }),
          ),
          delivery,
        }),
      );
      await test(stuck);
    } finally {
      await serveWith(bed.build());
      await stuck.close();
    }
  }

  it('refunds, with an e-mail, an order whose eSIM the partner never allocates', () =>
    withStuckPartner({ retryDelaysMs: [100, 200, 400], allocationPollMs: 100, allocationLimitMs: 1_000 }, async (stuck) => {
      const buyer = await signUp();
      const order = await buy(buyer.idToken);
      const refunded = await reconciledTo(buyer.idToken, order.id, 'refunded');
      expect(refunded.state).toBe('refunded');
      expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'fulfilment_failed', 'refunded']);
      // Ordered once, asked about until the limit, then given up with the reason.
      expect(stuck.requests.filter((r) => r.call === 'esim/order')).toHaveLength(1);
      expect(stuck.requests.filter((r) => r.call === 'esim/query' && r.errorCode === '200010').length).toBeGreaterThanOrEqual(3);
      expect((await orderRow(order.id)).last_error).toMatch(/not allocated within 1 s/);
      await expectRefundedToBuyer(order, buyer);
    }));

  // The tries are an hour apart, so only the promise (here 1.5 s after the payment) can end the wait.
  it('refunds, with its e-mail, an eSIM not delivered within the promised time, though retries are left', () =>
    withStuckPartner(
      { retryDelaysMs: [3600_000, 3600_000], allocationPollMs: 100, allocationLimitMs: 200, deliveryPromiseMs: 1_500 },
      async (stuck) => {
        const buyer = await signUp();
        const order = await buy(buyer.idToken);
        const paidAt = Date.now();
        await new Promise((r) => setTimeout(r, 500));
        await bed.handler.reconcile();
        expect((await orderRow(order.id)).state).toBe('provisioning');
        // The try left for an hour later is due at the promised time instead.
        expect((await orderRow(order.id)).next_attempt_at!.getTime()).toBeLessThanOrEqual(paidAt + 1_600);
        const refunded = await reconciledTo(buyer.idToken, order.id, 'refunded');
        expect(Date.now() - paidAt).toBeGreaterThanOrEqual(1_400);
        expect(refunded.state).toBe('refunded');
        const [failed] = await bed.db.query<{ cause: string }>(
          `SELECT cause FROM order_events WHERE order_id = $1 AND to_state = 'fulfilment_failed'`,
          [order.id],
        );
        expect(failed!.cause).toMatch(/^delivery_promise_missed/);
        // No eSIM was left at the partner that nobody receives, and the buyer has the money and the e-mail.
        expect(stuck.requests.filter((r) => r.call === 'esim/order')).toHaveLength(1);
        await expectRefundedToBuyer(order, buyer);
      },
    ));

  it('sends the order e-mail that failed later, from the reconcile job, exactly once', async () => {
    const buyer = await signUp();
    bed.stand.smtp.setDown(true);
    let orderId: string;
    try {
      const order = await buy(buyer.idToken);
      orderId = order.id;
      expect((await delivered(buyer.idToken, order.id)).state).toBe('delivered');
      // The relay turned the e-mail away (421): recorded on the order, due again, nothing sent.
      const failed = await waitFor(
        () => orderRow(order.id),
        (o) => o.last_error !== null,
      );
      expect(failed).toMatchObject({ state: 'delivered', email_sent_at: null });
      expect(failed.last_error).toMatch(/421/);
      await new Promise((r) => setTimeout(r, 150));
      await bed.handler.reconcile();
      expect(mailsTo(buyer.email)).toEqual([]);
    } finally {
      bed.stand.smtp.setDown(false);
    }
    // The relay is back: the job sends it, once, however often it runs.
    const sent = await waitFor(
      async () => (await bed.handler.reconcile(), mailsTo(buyer.email).length),
      (n) => n > 0,
    );
    expect(sent).toBe(1);
    for (let i = 0; i < 3; i++) await bed.handler.reconcile();
    await bed.handler.fulfilment.run(orderId!);
    const mails = mailsTo(buyer.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.attachments.some((a) => a.contentType === 'image/png' && a.cid)).toBe(true);
    expect((await orderRow(orderId!)).email_sent_at).not.toBeNull();
    expect(await bed.db.query('SELECT kind FROM order_emails WHERE order_id = $1', [orderId!])).toEqual([{ kind: 'order' }]);
  });

  it("takes no payment on a deleted account's order: its payment page was closed with the account", async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderFor()) })).json(),
    );
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    // The buyer's old tab pays on the page: Stripe has expired it.
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(409);
    await new Promise((r) => setTimeout(r, 300));
    await bed.handler.fulfilment.runDue();
    expect(await orderRow(created.order.id)).toMatchObject({ state: 'cancelled', uid: null });
    expect(await bed.db.query('SELECT id FROM payments WHERE order_id = $1', [created.order.id])).toEqual([]);
    expect(partnerOrders(created.order.id)).toEqual([]);
  });

  it("refunds a payment that reaches a deleted account's order after all (Stripe could not close its page), never delivering it to nobody", async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderFor()) })).json(),
    );
    // Stripe cannot be reached while the account is deleted: the page stays open (the job would close it later).
    bed.stripeStandIn.outage({ drop: true });
    try {
      expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    } finally {
      bed.stripeStandIn.outage(null);
    }
    expect((await bed.stripe.checkout.sessions.retrieve(new URL(created.checkoutUrl).pathname.split('/').pop()!)).status).toBe('open');
    // The old tab pays: the money reaches an order with no buyer.
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const end = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => orderRow(created.order.id)),
      (o) => o.state === 'refunded',
      15_000,
    );
    expect(end).toMatchObject({ state: 'refunded', uid: null, refund_reason: 'account_deleted' });
    expect(await events(created.order.id)).toEqual(['pending_payment', 'cancelled', 'paid', 'fulfilment_failed', 'refunded']);
    const refunds = await bed.stripe.refunds.list({ payment_intent: (await paymentIntent(created.order.id))! });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[created.order.total.amountMinor, 'succeeded']]);
    // No eSIM bought for nobody, and no e-mail to the address that was deleted.
    expect(partnerOrders(created.order.id)).toEqual([]);
    expect(mailsTo(buyer.email)).toEqual([]);
  });
});

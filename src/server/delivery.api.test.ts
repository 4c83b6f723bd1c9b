import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { FAILURES, startEsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../../stand-ins/stripe/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { PARTNER_WEBHOOK_TOKEN, startDeliveryStandIns, type DeliveryStandIns } from '../../tests/support/delivery-stand-ins.ts';
import { apiCaller, orderRequest, payOnStandIn, testShopApi, topUpRequest, waitFor } from '../../tests/support/shop-api.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ApiError, CreateOrderResponse, EsimList, EsimView, OrderList, OrderView, TERMS_VERSION, TopUpPlans, type CreateOrderRequest } from '../contract/shop-api.ts';
import type { ShopApi, ShopApiOptions } from './wiring.ts';
import type { Db } from './db/db.ts';
import { sellablePlans } from './orders/plans.ts';
import { createEsimAccessPartner } from './partner/esim-access/adapter.ts';
import { createStripe } from './payments/stripe.ts';

/**
 * Delivery over real HTTP with real parts (issue 15): the shop API on PostgreSQL (a server and
 * PGlite), Auth emulator tokens, the real Stripe SDK, eSIM Access adapter and nodemailer talking
 * to their stand-ins. Paid orders end delivered (codes to the owner only, one e-mail) or refunded.
 */
const catalogue = embeddedSnapshot();
const plans = sellablePlans(catalogue);
const PLAN = plans.get('de-1gb-7d')!;
const BIGGER = [...plans.values()].find((p) => p.destination.code === 'DE' && p.pkg.id !== PLAN.pkg.id)!;
const SITE = 'http://127.0.0.1:4329';

const orderFor = (plan = PLAN, overrides: Partial<CreateOrderRequest> = {}) => orderRequest(plan, overrides);

describe.each(databaseDrivers())('delivery on $name', (driver) => {
  let db: Db;
  let stand: DeliveryStandIns;
  let stripeStandIn: Awaited<ReturnType<typeof startStripeStandIn>>;
  let stripe: Stripe;
  let handler: ShopApi;
  let api: Awaited<ReturnType<typeof serveApi>>;
  let port: number;

  const build = (overrides: Partial<ShopApiOptions> = {}) => testShopApi({ catalogue, db, stripe, siteUrl: SITE, ...stand.options }, overrides);

  beforeAll(async () => {
    process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('authEmulatorHost');
    db = await driver.open();
    stand = await startDeliveryStandIns({ allocationDelayMs: 300 });
    api = await serveApi(() => Promise.resolve(new Response(null, { status: 503 })));
    port = Number(new URL(api.url).port);
    stripeStandIn = await startStripeStandIn({ port: 0, webhookUrl: `${api.url}/api/webhooks/stripe`, webhookSecret: STAND_IN_WEBHOOK_SECRET, retryDelaysMs: [100, 200, 400, 800, 1600] });
    stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: stripeStandIn.url });
    await api.close();
    handler = build();
    api = await serveApi(handler, port);
    stand.connect(`${api.url}/api`);
  });
  afterAll(async () => {
    await handler?.fulfilment.settled();
    await api?.close();
    await stripeStandIn?.close();
    await stand?.close();
    await db?.close();
  });

  const call = apiCaller(() => api.url);
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const listEsims = async (token: string) => EsimList.parse(await (await call('/esims?lang=de', { token })).json()).esims;
  const events = async (id: string) =>
    (await db.query<{ to_state: string }>('SELECT to_state FROM order_events WHERE order_id = $1 ORDER BY id', [id])).map((e) => e.to_state);

  /** Orders and pays with the test card, as the buyer's browser would. */
  async function buy(token: string, request = orderFor()) {
    const created = CreateOrderResponse.parse(await (await call('/orders', { method: 'POST', token, body: JSON.stringify(request) })).json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    return created.order;
  }
  const delivered = (token: string, id: string) => waitFor(() => readOrder(token, id), (o) => o.state === 'delivered' && !!o.esim?.install);

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
    expect(after.esim).toMatchObject({ id: order.id, status: 'ready', refundable: true, canTopUp: false, orderNumber: order.number });
    expect(after.esim!.usage!.totalBytes).toBeGreaterThan(0);
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);

    // The e-mail: once, in German, with the codes and the QR code as an inline image.
    const mail = await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);
    expect(mail.text).toContain(install.smdpAddress);
    expect(mail.text).toContain(install.activationCode);
    expect(mail.text).toContain('Bestellnummer');
    expect(mail.attachments.some((a) => a.contentType === 'image/png' && a.cid)).toBe(true);
    await handler.fulfilment.run(order.id);
    await handler.fulfilment.reconcile();
    expect(stand.smtp.messages.filter((m) => m.to.includes(buyer.email))).toHaveLength(1);

    // Only the owner: another account gets 404 and an empty list.
    const stranger = await signUp();
    expect((await call(`/orders/${order.id}?lang=de`, { token: stranger.idToken })).status).toBe(404);
    expect(await listEsims(stranger.idToken)).toEqual([]);
    expect((await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: stranger.idToken })).status).toBe(404);
    expect((await call('/esims?lang=de')).status).toBe(401);
    const mine = await listEsims(buyer.idToken);
    expect(mine.map((e) => [e.id, e.status])).toEqual([[order.id, 'ready']]);
  });

  it('orders from the partner once however often it is asked, and takes partner notifications as hints only', async () => {
    const buyer = await signUp();
    const before = stand.partner.esimCount;
    const order = await buy(buyer.idToken);
    await Promise.all([handler.fulfilment.run(order.id), handler.fulfilment.run(order.id), handler.fulfilment.reconcile()]);
    await delivered(buyer.idToken, order.id);
    await handler.fulfilment.run(order.id);
    expect(stand.partner.esimCount - before).toBe(1);

    const notify = (token: string, body: unknown) =>
      call(`/webhooks/partner/${token}`, { method: 'POST', body: JSON.stringify(body) });
    const ready = { notifyType: 'ORDER_STATUS', notifyId: `n-${order.id}`, content: { orderNo: 'nope', transactionId: order.id, orderStatus: 'GOT_RESOURCE' } };
    expect((await notify('wrong-token', ready)).status).toBe(404);
    expect((await notify(PARTNER_WEBHOOK_TOKEN, 'garbage')).status).toBe(400);
    expect(await (await notify(PARTNER_WEBHOOK_TOKEN, ready)).json()).toMatchObject({ outcome: 'handled' });
    expect(await (await notify(PARTNER_WEBHOOK_TOKEN, ready)).json()).toMatchObject({ outcome: 'replay' });
    // A forged 'the eSIM was cancelled' is checked with the partner, which says otherwise.
    const esim = (await listEsims(buyer.idToken))[0]!;
    const [row] = await db.query<{ esim_tran_no: string }>('SELECT esim_tran_no FROM esims WHERE order_id = $1', [order.id]);
    await notify(PARTNER_WEBHOOK_TOKEN, { notifyType: 'ESIM_STATUS', notifyId: `c-${order.id}`, content: { esimTranNo: row!.esim_tran_no, iccid: esim.iccid, esimStatus: 'CANCEL', smdpStatus: 'DELETED' } });
    expect((await listEsims(buyer.idToken))[0]!.status).toBe('ready');
    expect(stand.partner.esimCount - before).toBe(1);
  });

  it('delivers after a restart: paid while the partner could not be reached, delivered by the reconcile job of the next server', async () => {
    const buyer = await signUp();
    // The first server cannot reach the partner: the order is paid, and no partner order exists.
    await api.close();
    await new Promise((r) => setTimeout(r, 300));
    const cut = build({ partner: createEsimAccessPartner({ accessCode: 'x', secretKey: 'y', baseUrl: 'http://127.0.0.1:9', retries: 0 }) });
    api = await serveApi(cut, port);
    const before = stand.partner.requests.filter((r) => r.call === 'esim/order').length;
    const order = await buy(buyer.idToken);
    const stuck = await waitFor(() => readOrder(buyer.idToken, order.id), (o) => o.state === 'provisioning');
    expect(stuck.state).toBe('provisioning');
    await cut.fulfilment.settled();
    await api.close();
    // The client's pooled connections to the closed server notice it.
    await new Promise((r) => setTimeout(r, 300));
    expect(stand.partner.requests.filter((r) => r.call === 'esim/order').length).toBe(before);

    // The next server: the scheduler's call runs its job, which finds the order and delivers it, with the e-mail.
    handler = build({ reconcileToken: 'test-reconcile-token' });
    api = await serveApi(handler, port);
    const reconcile = (token?: string) => call('/jobs/reconcile', { method: 'POST', ...(token && { token }) });
    expect((await reconcile()).status).toBe(404);
    expect((await reconcile('another-token')).status).toBe(404);
    const job = await reconcile('test-reconcile-token');
    expect(job.status).toBe(200);
    expect(((await job.json()) as { handled: number }).handled).toBeGreaterThanOrEqual(1);
    await waitFor(() => handler.fulfilment.reconcile().then(() => readOrder(buyer.idToken, order.id)), (o) => o.state === 'delivered', 10_000);
    expect((await delivered(buyer.idToken, order.id)).esim!.install).not.toBeNull();
    await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
  });

  it('refunds through Stripe, with an e-mail, when the partner fails for good', async () => {
    const buyer = await signUp();
    // As many failures as the delivery has tries (tests/support/delivery-stand-ins.ts: three).
    stand.partner.failNext(FAILURES.outOfStock, { count: 3, call: 'esim/order' });
    const order = await buy(buyer.idToken);
    const refunded = await waitFor(
      () => handler.fulfilment.reconcile().then(() => readOrder(buyer.idToken, order.id)),
      (o) => o.state === 'refunded',
      15_000,
    );
    expect(refunded.state).toBe('refunded');
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'fulfilment_failed', 'refunded']);
    const refunds = await stripe.refunds.list({ payment_intent: (await paymentIntent(order.id))! });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[order.total.amountMinor, 'succeeded']]);
    const mail = await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);
    expect(mail.attachments).toEqual([]);
    // Shown as refunded, without codes.
    expect((await listEsims(buyer.idToken)).find((e) => e.id === order.id)).toMatchObject({ status: 'refunded', install: null, refundable: false });
  });

  const paymentIntent = async (orderId: string) =>
    (await db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [orderId]))[0]?.payment_intent_id;

  it('refunds an unused eSIM on request (partner cancels, Stripe refunds, e-mail), and never an installed one', async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    const { esim } = await delivered(buyer.idToken, order.id);
    await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    // Delivered and never installed: the page offers the refund.
    expect(esim).toMatchObject({ status: 'ready', refundable: true });

    const response = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(response.status).toBe(200);
    expect(EsimView.parse(await response.json())).toMatchObject({ id: order.id, status: 'refunded', install: null, refundable: false });
    expect((await readOrder(buyer.idToken, order.id)).state).toBe('refunded');
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered', 'refund_requested', 'refunded']);
    expect(stand.partner.requests.some((r) => r.call === 'esim/cancel' && r.status === 200)).toBe(true);
    await waitFor(async () => stand.smtp.messages.filter((m) => m.to.includes(buyer.email)).length, (n) => n === 2);
    expect(stand.smtp.messages.filter((m) => m.to.includes(buyer.email)).map((m) => m.attachments.length)).toEqual([1, 0]);
    const again = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(again.status).toBe(409);
    expect(ApiError.parse(await again.json()).error.code).toBe('not_refundable');

    // Installed on a phone: no refund, even if the page still offered it (the refund is asked for
    // before the partner's 'installed' notification reached the shop).
    const second = await buy(buyer.idToken, orderFor(BIGGER));
    const installed = await delivered(buyer.idToken, second.id);
    expect(installed.esim).toMatchObject({ status: 'ready', refundable: true });
    const secondTranNo = tranNo(installed.esim!.iccid!);
    stand.partner.markInstalled(secondTranNo);
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
    expect(stand.partner.requests.filter((r) => r.call === 'esim/cancel' && (r.body as { esimTranNo?: string }).esimTranNo === secondTranNo)).toEqual([]);
    expect((await stripe.refunds.list({ payment_intent: (await paymentIntent(second.id))! })).data).toEqual([]);
    const atPartner = await stand.options.partner.queryProfiles({ esimTranNo: secondTranNo });
    expect(atPartner).toMatchObject({ status: 'ready', profiles: [{ esimTranNo: secondTranNo, installed: true }] });
    expect(atPartner.status === 'ready' && atPartner.profiles[0]!.status).not.toBe('cancelled');
  });

  const tranNo = (iccid: string) => stand.partner.esimTranNoOf(iccid)!;

  /** The API on the same port with another handler (the stand-ins' webhooks keep reaching it). */
  async function serveWith(next: ShopApi) {
    await handler.fulfilment.settled();
    await api.close();
    // The client's pooled connections to the closed server notice it.
    await new Promise((r) => setTimeout(r, 300));
    handler = next;
    api = await serveApi(handler, port);
  }
  const orderRow = async (id: string) =>
    (await db.query<{ state: string; uid: string | null; attempts: number; last_error: string | null; email_sent_at: Date | null; refund_reason: string | null }>(
      'SELECT state, uid, attempts, last_error, email_sent_at, refund_reason FROM orders WHERE id = $1', [id]))[0]!;
  const partnerOrders = (id: string) =>
    stand.partner.requests.filter((r) => r.call === 'esim/order' && (r.body as { transactionId?: string }).transactionId === id);
  const mailsTo = (email: string) => stand.smtp.messages.filter((m) => m.to.includes(email));

  it("tops up an installed eSIM with one of the partner's top-ups of it, through the same checkout, and shows data use", async () => {
    const buyer = await signUp();
    const order = await buy(buyer.idToken);
    const { esim } = await delivered(buyer.idToken, order.id);
    // Not installed yet: no top-up.
    expect((await call(`/esims/${order.id}/top-ups?lang=de`, { token: buyer.idToken })).status).toBe(409);
    const refused = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(topUpRequest({ id: 'topup-1gb-7d', price: PLAN.price }, order.id)) });
    expect(refused.status).toBe(409);

    stand.partner.markInstalled(tranNo(esim!.iccid!));
    stand.partner.setUsage(tranNo(esim!.iccid!), 400 * 1024 ** 2);
    const active = await waitFor(() => listEsims(buyer.idToken), (list) => list[0]?.status === 'active' && list[0].usage?.usedBytes === 400 * 1024 ** 2);
    expect(active[0]).toMatchObject({ status: 'active', canTopUp: true, refundable: false });
    const totalBefore = active[0]!.usage!.totalBytes;
    // Data use is kept up to 5 minutes: reading My eSIMs again does not ask the partner again.
    const usageCalls = () => stand.partner.requests.filter((r) => r.call === 'esim/usage/query').length;
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
    const done = await waitFor(() => readOrder(buyer.idToken, topUp.id), (o) => o.state === 'delivered');
    expect(done.esim).toMatchObject({ id: order.id, status: 'active' });
    expect(done.esim!.usage!.totalBytes).toBe(totalBefore + offered[0]!.dataAmount.value * 2 ** 30);
    // Its own confirmation (BGB § 312f): the order, the terms and the waiver, the way to My eSIMs, no codes to install again.
    const confirmation = await stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.subject.includes(topUp.number), 10_000);
    expect(confirmation.text).toContain(TERMS_VERSION);
    expect(confirmation.text).toContain('§ 356 Abs. 5 BGB');
    expect(confirmation.text).toContain(`${SITE}/de/my-esim`);
    expect(confirmation.text).not.toContain('LPA:1$');
    expect(confirmation.attachments).toEqual([]);
    // The history lists the top-up beside the purchase; My eSIMs still one eSIM.
    const history = OrderList.parse(await (await call('/orders?lang=de', { token: buyer.idToken })).json()).orders;
    expect(history.map((o) => [o.kind, o.esimId])).toEqual([['top_up', order.id], ['esim', order.id]]);
    expect((await listEsims(buyer.idToken)).map((e) => e.id)).toEqual([order.id]);
  });

  it('delivers once through partner failures that the production adapter retries (3 retries, its backoff), with short time-outs', async () => {
    // The adapter as production builds it (src/server/partner/esim-access.ts): only the 30 s time-out is short here.
    await serveWith(build({ partner: stand.adapter({ timeoutMs: 2_000 }) }));
    try {
      // A 500 (nothing applied), then success; no answer at all until the time-out, then success.
      for (const [failure, status] of [[FAILURES.serverError, 500], [FAILURES.timeout, 0]] as const) {
        const buyer = await signUp();
        const before = stand.partner.esimCount;
        stand.partner.failNext(failure, { call: 'esim/order' });
        const order = await buy(buyer.idToken);
        const after = await delivered(buyer.idToken, order.id);
        expect(after.state).toBe('delivered');
        // The adapter's own retry, within the delivery's first try: one eSIM, and no failed try recorded on the order.
        expect(partnerOrders(order.id).map((r) => r.status)).toEqual([status, 200]);
        expect(stand.partner.esimCount - before).toBe(1);
        expect(await orderRow(order.id)).toMatchObject({ attempts: 0, last_error: null });
        expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
        await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
        expect(mailsTo(buyer.email)).toHaveLength(1);
      }
    } finally {
      await serveWith(build());
    }
  });

  it('refunds, with an e-mail, an order whose eSIM the partner never allocates', async () => {
    // A partner that takes the order and never allocates its profile (esim/query answers 200010 for ever).
    const stuck = await startEsimAccessStandIn({ accessCode: 'stuck-access-code', secretKey: 'stuck-secret', allocationDelayMs: 24 * 3600_000 });
    try {
      await serveWith(build({
        partner: createEsimAccessPartner({ accessCode: 'stuck-access-code', secretKey: 'stuck-secret', baseUrl: stuck.url, retries: 0 }),
        delivery: { retryDelaysMs: [100, 200, 400], allocationPollMs: 100, allocationLimitMs: 1_000 },
      }));
      const buyer = await signUp();
      const order = await buy(buyer.idToken);
      const refunded = await waitFor(() => handler.fulfilment.reconcile().then(() => readOrder(buyer.idToken, order.id)), (o) => o.state === 'refunded', 15_000);
      expect(refunded.state).toBe('refunded');
      expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'fulfilment_failed', 'refunded']);
      // Ordered once, asked about until the limit, then given up with the reason.
      expect(stuck.requests.filter((r) => r.call === 'esim/order')).toHaveLength(1);
      expect(stuck.requests.filter((r) => r.call === 'esim/query' && r.errorCode === '200010').length).toBeGreaterThanOrEqual(3);
      expect((await orderRow(order.id)).last_error).toMatch(/not allocated within 1 s/);
      const refunds = await stripe.refunds.list({ payment_intent: (await paymentIntent(order.id))! });
      expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[order.total.amountMinor, 'succeeded']]);
      const mail = await stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
      expect(mail.subject).toContain(order.number);
      expect(mail.attachments).toEqual([]);
      expect((await listEsims(buyer.idToken)).find((e) => e.id === order.id)).toMatchObject({ status: 'refunded', install: null, refundable: false });
    } finally {
      await serveWith(build());
      await stuck.close();
    }
  });

  it('sends the order e-mail that failed later, from the reconcile job, exactly once', async () => {
    const buyer = await signUp();
    stand.smtp.setDown(true);
    let orderId: string;
    try {
      const order = await buy(buyer.idToken);
      orderId = order.id;
      expect((await delivered(buyer.idToken, order.id)).state).toBe('delivered');
      // The relay turned the e-mail away (421): recorded on the order, due again, nothing sent.
      const failed = await waitFor(() => orderRow(order.id), (o) => o.last_error !== null);
      expect(failed).toMatchObject({ state: 'delivered', email_sent_at: null });
      expect(failed.last_error).toMatch(/421/);
      await new Promise((r) => setTimeout(r, 150));
      await handler.reconcile();
      expect(mailsTo(buyer.email)).toEqual([]);
    } finally {
      stand.smtp.setDown(false);
    }
    // The relay is back: the job sends it, once, however often it runs.
    const sent = await waitFor(async () => (await handler.reconcile(), mailsTo(buyer.email).length), (n) => n > 0);
    expect(sent).toBe(1);
    for (let i = 0; i < 3; i++) await handler.reconcile();
    await handler.fulfilment.run(orderId!);
    const mails = mailsTo(buyer.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.attachments.some((a) => a.contentType === 'image/png' && a.cid)).toBe(true);
    expect((await orderRow(orderId!)).email_sent_at).not.toBeNull();
    expect(await db.query('SELECT kind FROM order_emails WHERE order_id = $1', [orderId!])).toEqual([{ kind: 'order' }]);
  });

  it("takes no payment on a deleted account's order: its payment page was closed with the account", async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderFor()) })).json());
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    // The buyer's old tab pays on the page: Stripe has expired it.
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(409);
    await new Promise((r) => setTimeout(r, 300));
    await handler.fulfilment.reconcile();
    expect(await orderRow(created.order.id)).toMatchObject({ state: 'cancelled', uid: null });
    expect(await db.query('SELECT id FROM payments WHERE order_id = $1', [created.order.id])).toEqual([]);
    expect(partnerOrders(created.order.id)).toEqual([]);
  });

  it('refunds a payment that reaches a deleted account\'s order after all (Stripe could not close its page), never delivering it to nobody', async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderFor()) })).json());
    // Stripe cannot be reached while the account is deleted: the page stays open (the job would close it later).
    stripeStandIn.outage({ drop: true });
    try {
      expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    } finally {
      stripeStandIn.outage(null);
    }
    expect((await stripe.checkout.sessions.retrieve(new URL(created.checkoutUrl).pathname.split('/').pop()!)).status).toBe('open');
    // The old tab pays: the money reaches an order with no buyer.
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const end = await waitFor(() => handler.fulfilment.reconcile().then(() => orderRow(created.order.id)), (o) => o.state === 'refunded', 15_000);
    expect(end).toMatchObject({ state: 'refunded', uid: null, refund_reason: 'account_deleted' });
    expect(await events(created.order.id)).toEqual(['pending_payment', 'cancelled', 'paid', 'fulfilment_failed', 'refunded']);
    const refunds = await stripe.refunds.list({ payment_intent: (await paymentIntent(created.order.id))! });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[created.order.total.amountMinor, 'succeeded']]);
    // No eSIM bought for nobody, and no e-mail to the address that was deleted.
    expect(partnerOrders(created.order.id)).toEqual([]);
    expect(mailsTo(buyer.email)).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startPushServiceStandIn, type PushServiceStandIn } from '../../stand-ins/push-service/server.ts';
import { TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { pushSubscriber } from '../../tests/support/push-subscriber.ts';
import {
  orderRequest,
  partnerSettled,
  payOnStandIn,
  testCatalogue,
  topUpRequest,
  untilDelivered,
  waitFor,
} from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import {
  AutoTopUpLinkView,
  AutoTopUpView,
  CreateOrderResponse,
  OrderView,
  SaveCardAnswer,
  SavedCardAnswer,
  type AutoTopUpRequest,
} from '../contract/shop-api.ts';
import { parse } from 'csv-parse/sync';
import { OpsActionResult, OpsOrder, type OpsRole } from '../contract/ops-api.ts';
import { firebaseAccounts } from './auth.ts';
import { markCrossing } from './auto-top-ups/store.ts';
import { ordersCsv } from './ops/orders-csv.ts';
import { mailTranslations } from './mail/translations.ts';
import { createEsimStore } from './esims/store.ts';
import { createOrderStore } from './orders/store.ts';

/**
 * Automatic top-ups over HTTP (issue 49), on the real PostgreSQL server (the store's SQL runs on
 * both drivers in auto-top-ups/store.test.ts): a card saved on the Stripe stand-in's page, the
 * consent stored in the buyer's words, the partner stand-in's DATA_USAGE at 10 % left making one
 * off-session charge (however often it is seen, by however many instances), applied at the
 * partner or refunded; the bank's refusals with their e-mail, push and on-session link; the
 * limits; turning it off by the switch, the e-mail's link, removing the card and deleting the account.
 */
const { catalogue, plans, PLAN } = testCatalogue();
const messagesDe = JSON.parse(readFileSync(new URL('../../locales/de/esims.json', import.meta.url), 'utf8')).autoTopUp as {
  consentCheapest: string;
};
const SITE = 'http://127.0.0.1:4334';
const CARDS = { pays: '4242424242424242', alwaysAuthenticate: '4000002760003184', declined: '4000000000000341' };

/** An account with a back-office role, signed in again so its ID token carries the claim. */
async function staff(role: OpsRole) {
  const account = await signUp();
  await firebaseAccounts('demo-esim').setRole(account.uid, role);
  return { ...account, ...(await signIn(account.email)) };
}

let pushService: PushServiceStandIn;
beforeAll(async () => {
  pushService = await startPushServiceStandIn({ applicationServerKey: TEST_ALERTS.vapid.publicKey });
});
afterAll(() => pushService.close());

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('automatic top-ups on $name', (driver) => {
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: SITE,
    allocationDelayMs: 200,
    api: () => ({
      alerts: { ...TEST_ALERTS, usageBatchMs: 100 },
      pushServiceStandInOrigin: pushService.url,
      // Usage unread for a minute is read again, at every run of the reconcile job.
      reconcileTiming: { autoTopUpUsage: { everyMs: 0, maxAgeMs: 60_000 } },
    }),
  });
  const { call } = bed;
  const json = async <T>(response: Response, parse: (body: unknown) => T, status = 200) => {
    const body: unknown = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(status);
    return parse(body);
  };
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const tranNo = (orderId: string) => bed.stand.partner.tranNoOfTransaction(orderId)!;
  const mailsTo = (email: string) => bed.stand.smtp.messages.filter((m) => m.to.includes(email));
  const autoOrders = (esimId: string) =>
    bed.db.query<{ id: string; state: string; amount_minor: number }>(
      `SELECT id, state, amount_minor FROM orders WHERE kind = 'auto' AND top_up_of = $1 ORDER BY created_at`,
      [esimId],
    );
  const partnerTotal = async (orderId: string) => {
    const answer = await bed.stand.esimAccess.queryProfiles({ esimTranNo: tranNo(orderId) });
    return answer.status === 'ready' ? answer.profiles[0]!.totalBytes : NaN;
  };
  const customerOf = async (uid: string) =>
    (await bed.db.query<{ stripe_customer_id: string }>('SELECT stripe_customer_id FROM saved_cards WHERE uid = $1', [uid]))[0]
      ?.stripe_customer_id;
  const settled = async () => {
    await partnerSettled(bed.stand.partner);
    await bed.handler.alerts.settle();
    await bed.handler.autoTopUps.settled();
    await bed.handler.fulfilment.settled();
  };

  /** A buyer with a push device and an eSIM bought in German, delivered, installed and in use. */
  async function buyerWithEsim() {
    const buyer = await signUp();
    const device = pushSubscriber(pushService, 'de');
    expect(
      (await call('/me/push-subscriptions', { method: 'POST', token: buyer.idToken, body: JSON.stringify(device.subscription) })).status,
    ).toBe(204);
    const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(checkoutUrl, CARDS.pays)).status).toBe(303);
    await untilDelivered(() => readOrder(buyer.idToken, order.id));
    bed.stand.partner.markInstalled(tranNo(order.id));
    await waitFor(
      () => readOrder(buyer.idToken, order.id),
      (o) => o.esim?.status === 'active',
    );
    await settled();
    return { buyer, device, esimId: order.id };
  }

  /** Saves a card on the Stripe stand-in's page, as the buyer's browser would, and reports the return to the API. */
  async function saveCard(token: string, esimId: string, card: string) {
    const { url } = await json(await call('/me/card', { method: 'POST', token, body: JSON.stringify({ lang: 'de', esimId }) }), (b) =>
      SaveCardAnswer.parse(b),
    );
    const page = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'save', card }), redirect: 'manual' });
    expect(page.status).toBe(303);
    const back = new URL(page.headers.get('location')!);
    expect(`${back.origin}${back.pathname}${back.hash}`).toBe(`${SITE}/de/my-esim#auto-top-up-${esimId}`);
    const sessionId = back.searchParams.get('card_saved')!;
    return json(await call('/me/card/saved', { method: 'POST', token, body: JSON.stringify({ sessionId }) }), (b) =>
      SavedCardAnswer.parse(b),
    );
  }

  const view = async (token: string, esimId: string) =>
    json(await call(`/auto-top-ups/esims/${esimId}?lang=de`, { token }), (b) => AutoTopUpView.parse(b));
  const turnOn = async (token: string, esimId: string, request: Omit<AutoTopUpRequest, 'lang'>, status = 200) =>
    json(
      await call(`/auto-top-ups/esims/${esimId}`, { method: 'PUT', token, body: JSON.stringify({ ...request, lang: 'de' }) }),
      (b) => b,
      status,
    );

  /** The partner measures this share of the eSIM's data used now (its DATA_USAGE notification follows). */
  async function useData(esimId: string, share: number) {
    const total = await partnerTotal(esimId);
    bed.stand.partner.setUsage(tranNo(esimId), Math.ceil(share * total));
  }

  /** The link an e-mail carries to the site's automatic top-up page, and its token. */
  const linkIn = (text: string) => {
    const url = new URL(/https?:\/\/\S+\/de\/auto-top-up\?token=[^\s>)"]+/.exec(text)![0]);
    return url.searchParams.get('token')!;
  };

  it('saves a card on Stripe’s page, stores the consent in the buyer’s words, and at 10 % left charges one top-up off-session and applies it at the partner, once', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const before = await view(token, esimId);
    expect(before).toMatchObject({ setting: null, card: null, charges: [] });
    expect(before.offers.length).toBeGreaterThan(0);
    const offer = before.offers[0]!;

    const { card } = await saveCard(token, esimId, CARDS.pays);
    expect(card).toMatchObject({ brand: 'visa', last4: '4242' });
    // Only the card's id at Stripe and what the pages show are kept: no number.
    const [row] = await bed.db.query<Record<string, unknown>>('SELECT * FROM saved_cards WHERE uid = $1', [buyer.uid]);
    expect(JSON.stringify(row)).not.toContain('4242424242424242');

    const on = AutoTopUpView.parse(
      await turnOn(token, esimId, { packageId: offer.id, maxCount: 2, monthlyCapMinor: offer.price.amountMinor * 3 }),
    );
    expect(on.setting).toMatchObject({ enabled: true, packageId: offer.id, maxCount: 2 });
    // The consent in the German words the page shows, naming the package, its price, the count and the cap.
    expect(on.setting!.consentText).toMatch(/^Wenn|^Sobald|10 %/);
    expect(on.setting!.consentText).toContain('2');

    // 85 % used: nothing yet; 92 %: one top-up is due.
    await useData(esimId, 0.85);
    await settled();
    expect(await autoOrders(esimId)).toEqual([]);
    const totalBefore = await partnerTotal(esimId);
    await useData(esimId, 0.92);
    const [auto] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(auto).toMatchObject({ state: 'delivered', amount_minor: offer.price.amountMinor });
    // Charged once, off-session, on the saved card's Customer, for the top-up's price.
    const intents = await bed.stripe.paymentIntents.list({ customer: (await customerOf(buyer.uid))! });
    expect(intents.data.map((i) => [i.status, i.amount, i.metadata['orderId']])).toEqual([
      ['succeeded', offer.price.amountMinor, auto!.id],
    ]);
    // Applied once at the partner: its data added.
    expect(bed.stand.partner.topUpsApplied(auto!.id)).toBe(1);
    expect(await partnerTotal(esimId)).toBeGreaterThan(totalBefore);
    // The buyer's history lists it as an automatic top-up with its payment.
    const history = await json(await call('/orders?lang=de', { token }), (b) => b as { orders: OrderView[] });
    expect(history.orders.find((o) => o.id === auto!.id)).toMatchObject({
      kind: 'auto',
      state: 'delivered',
      paymentMethod: { brand: 'visa', last4: '4242' },
    });
    // In the accountant's export as what it is, with its price.
    const { number } = history.orders.find((o) => o.id === auto!.id)!;
    const csv = parse(await ordersCsv(bed.db, {}), { bom: true, columns: true }) as Record<string, string>[];
    expect(csv.find((row) => row.order === number)).toMatchObject({ kind: 'auto', amount_minor: String(offer.price.amountMinor) });
    // Its e-mail says it was bought automatically and how to turn them off.
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.text.includes('/de/auto-top-up?token='));
    expect(mail.text).toContain(mailTranslations('de').t('autoTopUp.turnOff'));

    // The same partner notification again: the eSIM's new round is below 90 %, nothing more.
    await useData(esimId, 0.5);
    await settled();
    expect(await autoOrders(esimId)).toHaveLength(1);
    expect((await view(token, esimId)).charges.map((c) => c.orderId)).toEqual([auto!.id]);

    // Support reads the eSIM's setting, its consent and each crossing in the back office, and turns it off.
    const support = await staff('support');
    const detail = await json(await call(`/ops/orders/${esimId}`, { token: support.idToken }), (b) => OpsOrder.parse(b));
    expect(detail.autoTopUp).toMatchObject({ enabled: true, maxCount: 2, consentText: on.setting!.consentText, consentLang: 'de' });
    expect(detail.autoTopUp!.crossings).toEqual([expect.objectContaining({ crossing: 'data:0', state: 'charged', orderId: auto!.id })]);
    const off = await call(`/ops/orders/${esimId}/auto-top-up/off`, {
      method: 'POST',
      token: support.idToken,
      body: JSON.stringify({ reason: 'buyer asked by phone', idempotencyKey: randomUUID() }),
    });
    expect(OpsActionResult.parse(await off.json())).toMatchObject({ outcome: 'done' });
    expect((await view(token, esimId)).setting?.enabled).toBe(false);
    const after = await json(await call(`/ops/orders/${esimId}`, { token: support.idToken }), (b) => OpsOrder.parse(b));
    expect(after.autoTopUp!.changes.map((c) => [c.by, c.change])).toEqual([
      ['buyer', expect.stringMatching(/^on: /)],
      [`operator:${support.email}`, 'off: buyer asked by phone'],
    ]);
  });

  it('turned on at checkout: the payment saves the card on the buyer’s Customer, the consent is stored, and at 10 % left the eSIM tops itself up', async () => {
    const buyer = await signUp();
    const token = buyer.idToken;
    const cap = PLAN.price.amountMinor * 2;
    const response = await call('/orders', {
      method: 'POST',
      token,
      body: JSON.stringify(orderRequest(PLAN, { autoTopUp: { maxCount: 2, monthlyCapMinor: cap } })),
    });
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    // Stripe's page for the buyer's Customer, saving the card for charges while they are away.
    const session = await bed.stripe.checkout.sessions.retrieve(new URL(checkoutUrl).pathname.split('/').pop()!, {
      expand: ['payment_intent'],
    });
    expect(session.customer).toBe(await customerOf(buyer.uid));
    expect((await payOnStandIn(checkoutUrl, CARDS.pays)).status).toBe(303);
    await untilDelivered(() => readOrder(token, order.id));
    expect(await json(await call('/me/card', { token }), (b) => SavedCardAnswer.parse(b))).toMatchObject({ card: { last4: '4242' } });
    bed.stand.partner.markInstalled(tranNo(order.id));
    await waitFor(
      () => readOrder(token, order.id),
      (o) => o.esim?.status === 'active',
    );
    const on = await view(token, order.id);
    expect(on.setting).toMatchObject({ enabled: true, packageId: null, maxCount: 2, monthlyCap: { amountMinor: cap } });
    expect(on.setting!.consentText).toContain(messagesDe.consentCheapest);

    await useData(order.id, 0.95);
    const [auto] = await waitFor(
      () => autoOrders(order.id),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(auto).toMatchObject({ state: 'delivered', amount_minor: on.offers[0]!.price.amountMinor });

    // A plan the partner does not top up cannot be ticked for: nothing opened.
    const fixed = [...plans.values()].find((p) => !p.pkg.facts.topUp && p.pkg.destination.length === 2)!;
    const refused = await call('/orders', {
      method: 'POST',
      token,
      body: JSON.stringify(orderRequest(fixed, { autoTopUp: { maxCount: 1, monthlyCapMinor: 1000 } })),
    });
    expect(refused.status).toBe(409);
  });

  it('changing the tick on the checkout page opens a new order: unticked, the payment saves no card and no consent is kept', async () => {
    const buyer = await signUp();
    const token = buyer.idToken;
    const place = async (autoTopUp?: { maxCount: number; monthlyCapMinor: number }) => {
      const response = await call('/orders', {
        method: 'POST',
        token,
        body: JSON.stringify(orderRequest(PLAN, autoTopUp && { autoTopUp })),
      });
      const body: unknown = await response.json();
      expect([200, 201], JSON.stringify(body)).toContain(response.status);
      const placed = CreateOrderResponse.parse(body);
      const session = await bed.stripe.checkout.sessions.retrieve(new URL(placed.checkoutUrl).pathname.split('/').pop()!);
      return { ...placed, session };
    };
    const limits = { maxCount: 1, monthlyCapMinor: PLAN.price.amountMinor };
    const plain = await place();
    // Ticked, and pressed twice at once: one order.
    const [ticked, twice] = await Promise.all([place(limits), place(limits)]);
    expect(twice.order.id).toBe(ticked.order.id);
    expect(ticked.order.id).not.toBe(plain.order.id);
    expect(ticked.session.customer).toBe(await customerOf(buyer.uid));
    // Pressed again, ticked as before: the same order and payment page.
    expect((await place(limits)).order.id).toBe(ticked.order.id);
    const unticked = await place();
    expect(unticked.order.id).not.toBe(ticked.order.id);
    expect(unticked.session.customer).toBeNull();
    // The ticked order's payment page is closed: it cannot be paid any more.
    await waitFor(
      () => bed.stripe.checkout.sessions.retrieve(ticked.session.id),
      (session) => session.status === 'expired',
    );
    expect((await readOrder(token, ticked.order.id)).state).toBe('cancelled');

    expect((await payOnStandIn(unticked.checkoutUrl, CARDS.pays)).status).toBe(303);
    await untilDelivered(() => readOrder(token, unticked.order.id));
    expect(await json(await call('/me/card', { token }), (b) => SavedCardAnswer.parse(b))).toEqual({ card: null });
    expect((await view(token, unticked.order.id)).setting).toBeNull();
  });

  it('a lost notification of 10 % left does not leave the eSIM to run out: the reconcile job reads its usage, and it is topped up once', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.pays);
    await turnOn(token, esimId, { packageId: offer.id, maxCount: 2, monthlyCapMinor: offer.price.amountMinor * 2 });

    // The partner's DATA_USAGE notification reaches nobody (every instance was down).
    bed.stand.partner.setWebhookUrl(undefined);
    await useData(esimId, 0.95);
    bed.stand.connect(`${bed.api.url}/api`);
    await settled();
    expect(await autoOrders(esimId)).toEqual([]);
    // Read a minute ago: not yet due again.
    await bed.handler.reconcile();
    await settled();
    expect(await autoOrders(esimId)).toEqual([]);

    // Two minutes on, the job reads the eSIM's usage at the partner, and finds the crossing.
    await bed.db.query(`UPDATE esims SET usage_checked_at = now() - interval '2 minutes' WHERE order_id = $1`, [esimId]);
    await bed.handler.reconcile();
    const [auto] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(bed.stand.partner.topUpsApplied(auto!.id)).toBe(1);
    // Topped up, it is below 90 % again: later runs charge nothing more.
    await bed.db.query(`UPDATE esims SET usage_checked_at = now() - interval '2 minutes' WHERE order_id = $1`, [esimId]);
    await bed.handler.reconcile();
    await settled();
    expect(await autoOrders(esimId)).toHaveLength(1);
  });

  it('a partner that does not list the top-ups is no "cannot be topped up": the panel and the switch answer 503 to try again, nothing is stored', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    bed.stand.partner.failNext({ status: 500 }, { call: 'package/list', count: 50 });
    const unavailable = async (response: Response) => json(response, (b) => (b as { error: { code: string } }).error.code, 503);
    expect(await unavailable(await call(`/auto-top-ups/esims/${esimId}?lang=de`, { token }))).toBe('partner_unavailable');
    const request = { packageId: null, maxCount: 1, monthlyCapMinor: PLAN.price.amountMinor * 4, lang: 'de' };
    const put = () => call(`/auto-top-ups/esims/${esimId}`, { method: 'PUT', token, body: JSON.stringify(request) });
    expect(await unavailable(await put())).toBe('partner_unavailable');
    expect(await bed.db.query('SELECT 1 FROM auto_top_up_settings WHERE esim_order_id = $1', [esimId])).toEqual([]);
    bed.stand.partner.recover('package/list');
    expect((await json(await put(), (b) => AutoTopUpView.parse(b))).setting).toMatchObject({ enabled: true, maxCount: 1 });
  });

  it('a charge under way is the job’s alone: a top-up bought by hand meanwhile is an order of its own, and one charged before they were turned off is applied', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.pays);
    await turnOn(token, esimId, { packageId: offer.id, maxCount: 2, monthlyCapMinor: offer.price.amountMinor * 2 });

    // Stripe cannot be reached: the crossing's order waits, being charged.
    bed.stripeStandIn!.outage({ drop: true });
    onTestFinished(() => bed.stripeStandIn!.outage(null));
    await useData(esimId, 0.95);
    const [auto] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders.length === 1,
    );
    expect(auto).toMatchObject({ state: 'pending_payment' });
    // The same top-up bought by hand now opens an order of its own (its payment page cannot be made yet).
    const byHand = await call('/orders', { method: 'POST', token, body: JSON.stringify(topUpRequest(offer, esimId)) });
    expect(byHand.status).toBe(502);
    const topUps = await bed.db.query<{ kind: string; state: string }>(
      `SELECT kind, state FROM orders WHERE top_up_of = $1 ORDER BY kind`,
      [esimId],
    );
    expect(topUps).toEqual([
      { kind: 'auto', state: 'pending_payment' },
      { kind: 'top_up', state: 'pending_payment' },
    ]);

    // Turned off; Stripe back. The try before had charged the card, its answer lost (made here as Stripe had made it).
    expect((await call(`/auto-top-ups/esims/${esimId}?lang=de`, { method: 'DELETE', token })).status).toBe(200);
    bed.stripeStandIn!.outage(null);
    const [card] = await bed.db.query<{ stripe_customer_id: string; payment_method_id: string }>(
      'SELECT stripe_customer_id, payment_method_id FROM saved_cards WHERE uid = $1',
      [buyer.uid],
    );
    await bed.stripe.paymentIntents.create({
      amount: auto!.amount_minor,
      currency: 'eur',
      customer: card!.stripe_customer_id,
      payment_method: card!.payment_method_id,
      off_session: true,
      confirm: true,
      metadata: { orderId: auto!.id },
    });
    await bed.db.query(`UPDATE jobs SET run_at = now() WHERE kind = 'auto_top_up'`);
    await bed.handler.autoTopUps.runDue();
    const [applied] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(bed.stand.partner.topUpsApplied(applied!.id)).toBe(1);
    expect(
      (await bed.stripe.paymentIntents.list({ customer: card!.stripe_customer_id })).data.filter((i) => i.metadata['orderId'] === auto!.id),
    ).toHaveLength(1);
  });

  it('one crossing seen by three instances at once and again after a restart makes one charge; the buyer’s limit of one stops the next and they are told', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.pays);
    await turnOn(token, esimId, { packageId: null, maxCount: 1, monthlyCapMinor: offer.price.amountMinor * 10 });

    // The usage as the partner reported it, stored; three instances check it at once.
    const esims = createEsimStore(bed.db);
    const esim = (await esims.ofOrder(bed.db, esimId))!;
    await bed.db.query('UPDATE esims SET used_bytes = $3 WHERE partner = $1 AND esim_tran_no = $2', [
      esim.partner,
      esim.esim_tran_no,
      Math.ceil(0.95 * esim.total_bytes),
    ]);
    const stored = (await esims.ofOrder(bed.db, esimId))!;
    const order = (await createOrderStore(bed.db).byId(bed.db, esimId))!;
    const others = [bed.build(), bed.build()];
    await Promise.all([bed.handler, ...others].map((api) => api.autoTopUps.crossed(order, stored, 'total')));
    await Promise.all([bed.handler, ...others].map((api) => api.autoTopUps.settled()));
    // A restarted instance sees it again.
    const restarted = bed.build();
    await restarted.autoTopUps.crossed(order, stored, 'total');
    await restarted.autoTopUps.runDue();
    await restarted.autoTopUps.settled();
    const [auto] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(await autoOrders(esimId)).toHaveLength(1);
    expect((await bed.stripe.paymentIntents.list({ customer: (await customerOf(buyer.uid))! })).data).toHaveLength(1);
    expect(bed.stand.partner.topUpsApplied(auto!.id)).toBe(1);
    for (const api of [...others, restarted]) await api.fulfilment.settled();

    // The next round crosses 10 % left: the buyer allowed one, so nothing is charged, and they are told.
    await useData(esimId, 0.95);
    // The limit's e-mail: the way to top up by hand, and the one-click link that turns them off.
    const told = await bed.stand.smtp.waitFor(
      (m) =>
        m.to.includes(buyer.email) && m.text.includes(`${SITE}/de/checkout?topUp=${esimId}`) && m.text.includes('/de/auto-top-up?token='),
      10_000,
    );
    expect(told.text).toContain('1');
    await settled();
    expect(await autoOrders(esimId)).toHaveLength(1);

    // Deleting the account deletes the saved card at Stripe too; the consent stays, as the record of the charge, without the account.
    const customer = (await customerOf(buyer.uid))!;
    expect((await call('/me', { method: 'DELETE', token })).status).toBe(204);
    expect(await bed.stripe.customers.retrieve(customer)).toMatchObject({ deleted: true });
    expect(await customerOf(buyer.uid)).toBeUndefined();
    expect(await bed.db.query('SELECT uid, enabled FROM auto_top_up_settings WHERE esim_order_id = $1', [esimId])).toEqual([
      { uid: null, enabled: false },
    ]);
  });

  it('when the bank asks for authentication nothing is charged: an e-mail and a push bring a link that pays the same top-up on-session', async () => {
    const { buyer, device, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.alwaysAuthenticate);
    await turnOn(token, esimId, { packageId: offer.id, maxCount: 2, monthlyCapMinor: offer.price.amountMinor * 2 });

    await useData(esimId, 0.93);
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && /\/de\/auto-top-up\?token=/.test(m.text), 10_000);
    const [auto] = await autoOrders(esimId);
    expect(auto).toMatchObject({ state: 'payment_failed', amount_minor: offer.price.amountMinor });
    // Nothing charged: the intent waits for a payment method.
    const intents = await bed.stripe.paymentIntents.list({ customer: (await customerOf(buyer.uid))! });
    expect(intents.data.map((i) => i.status)).toEqual(['requires_payment_method']);
    expect(bed.stand.partner.topUpsApplied(auto!.id)).toBe(0);
    // The push in the device's language, opening the same link.
    // (After the data alert's own push: 93 % used is past 80 % too.)
    const pushes = await waitFor(
      () => Promise.resolve(device.received()),
      (list) => list.some((m) => m.kind === 'auto_top_up'),
    );
    const push = pushes.find((m) => m.kind === 'auto_top_up')!;
    expect(push).toMatchObject({ kind: 'auto_top_up', lang: 'de', tag: `auto_top_up:${esimId}` });
    expect(push.url).toMatch(/^\/de\/auto-top-up\?token=/);

    const token2 = linkIn(mail.text);
    const link = await json(await call(`/auto-top-ups/link?token=${encodeURIComponent(token2)}&lang=de`), (b) =>
      AutoTopUpLinkView.parse(b),
    );
    expect(link).toMatchObject({ purpose: 'pay', state: 'payable', total: offer.price });
    // A link scanner's GET paid nothing; the reader's click opens Stripe's page for the same order and price.
    const { url } = await json(
      await call(`/auto-top-ups/link/pay?token=${encodeURIComponent(token2)}&lang=de`, { method: 'POST' }),
      (b) => b as { url: string },
    );
    expect((await payOnStandIn(url, CARDS.alwaysAuthenticate)).status).toBe(303);
    const paid = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'delivered',
    );
    expect(paid).toEqual([{ id: auto!.id, state: 'delivered', amount_minor: offer.price.amountMinor }]);
    expect(bed.stand.partner.topUpsApplied(auto!.id)).toBe(1);
    expect(
      await json(await call(`/auto-top-ups/link?token=${encodeURIComponent(token2)}&lang=de`), (b) => AutoTopUpLinkView.parse(b)),
    ).toMatchObject({
      state: 'paid',
    });
    // A forged link is refused.
    expect((await call(`/auto-top-ups/link/pay?token=${encodeURIComponent(`${token2}x`)}`, { method: 'POST' })).status).toBe(400);
  });

  it('three refusals in a row turn automatic top-ups off, and the buyer is told; the e-mail’s one-click link turns them off too', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.declined);
    await turnOn(token, esimId, { packageId: null, maxCount: 5, monthlyCapMinor: offer.price.amountMinor * 10 });

    await useData(esimId, 0.95);
    await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && /\/de\/auto-top-up\?token=/.test(m.text), 10_000);
    // Two more crossings (rounds the buyer topped up by hand), each declined.
    for (const crossing of ['data:1', 'data:2']) {
      await bed.db.transaction((tx) => markCrossing(tx, esimId, crossing));
      await bed.handler.autoTopUps.runDue();
    }
    expect((await autoOrders(esimId)).map((o) => o.state)).toEqual(['payment_failed', 'payment_failed', 'payment_failed']);
    const current = await view(token, esimId);
    expect(current.setting?.enabled).toBe(false);
    const last = mailsTo(buyer.email)
      .filter((m) => /\/de\/auto-top-up\?token=/.test(m.text))
      .at(-1)!;
    expect(last.text).toContain('3');
    // Nothing more is charged while they are off.
    await bed.db.transaction((tx) => markCrossing(tx, esimId, 'data:3'));
    await bed.handler.autoTopUps.runDue();
    expect(await autoOrders(esimId)).toHaveLength(3);

    // On again, then off with the e-mail's link (a POST after the reader's click; the GET only says what it is for).
    await turnOn(token, esimId, { packageId: null, maxCount: 5, monthlyCapMinor: offer.price.amountMinor * 10 });
    const offToken = [...last.text.matchAll(/\/de\/auto-top-up\?token=(\S+)/g)]
      .map((m) => decodeURIComponent(m[1]!))
      .find((t) => {
        return Buffer.from(t.split('.')[0]!, 'base64url').toString() === 'off';
      })!;
    expect(
      await json(await call(`/auto-top-ups/link?token=${encodeURIComponent(offToken)}&lang=de`), (b) => AutoTopUpLinkView.parse(b)),
    ).toMatchObject({
      purpose: 'off',
      enabled: true,
    });
    expect((await call(`/auto-top-ups/link/off?token=${encodeURIComponent(offToken)}`, { method: 'POST' })).status).toBe(200);
    expect((await view(token, esimId)).setting?.enabled).toBe(false);
  });

  it('a top-up the partner refuses is refunded in full; removing the card deletes the Customer at Stripe and turns automatic top-ups off', async () => {
    const { buyer, esimId } = await buyerWithEsim();
    const token = buyer.idToken;
    const offer = (await view(token, esimId)).offers[0]!;
    await saveCard(token, esimId, CARDS.pays);
    await turnOn(token, esimId, { packageId: offer.id, maxCount: 2, monthlyCapMinor: offer.price.amountMinor * 2 });
    bed.stand.partner.failNext({ errorCode: '200002', errorMsg: 'operation not allowed' }, { call: 'esim/topup' });
    await useData(esimId, 0.95);
    const [auto] = await waitFor(
      () => autoOrders(esimId),
      (orders) => orders[0]?.state === 'refunded',
      15_000,
    );
    expect(auto!.state).toBe('refunded');
    const [intent] = (await bed.stripe.paymentIntents.list({ customer: (await customerOf(buyer.uid))! })).data;
    const refunds = await bed.stripe.refunds.list({ payment_intent: intent!.id });
    expect(refunds.data.map((r) => [r.status, r.amount])).toEqual([['succeeded', offer.price.amountMinor]]);

    const customer = (await customerOf(buyer.uid))!;
    expect((await call('/me/card', { method: 'DELETE', token })).status).toBe(204);
    expect(await bed.stripe.customers.retrieve(customer)).toMatchObject({ deleted: true });
    expect(await json(await call('/me/card', { token }), (b) => SavedCardAnswer.parse(b))).toEqual({ card: null });
    expect((await view(token, esimId)).setting?.enabled).toBe(false);
  });
});

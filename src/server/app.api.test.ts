import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ApiError, CreateOrderResponse, OrderList, OrderView, type CreateOrderRequest } from '../contract/shop-api.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../../stand-ins/stripe/server.ts';
import { orderRequest, payOnStandIn, testShopApi, waitFor } from '../../tests/support/shop-api.ts';
import {
  checkoutEvent,
  checkoutSession,
  signedEvent,
  STAGE_OF,
  stripeId,
  type CheckoutEventType,
  type SessionFacts,
} from '../../tests/support/stripe-events.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { sellablePlans } from './orders/plans.ts';
import { OPEN_ORDER_LIFETIME_MS } from './orders/store.ts';
import { createStripe } from './payments/stripe.ts';
import { MAX_JSON_BODY_BYTES } from './validation.ts';

/**
 * The shop API over real HTTP, with real parts: PostgreSQL (a real server and PGlite), Firebase
 * ID tokens from the real Auth emulator, the real Stripe SDK talking to the Stripe stand-in,
 * whose hosted page is paid over HTTP and whose signed webhooks reach the API.
 */
const catalogue = embeddedSnapshot();
const plans = sellablePlans(catalogue);
const PLAN = plans.get('de-1gb-7d') ?? [...plans.values()][0]!;
const OTHER_PLAN = [...plans.values()].find((p) => p.pkg.id !== PLAN.pkg.id)!;
const SITE = 'http://127.0.0.1:4329';
/** Paid, and on its way to delivery or delivered (the eSIM partner's stand-in delivers in the background). */
const PAID = ['paid', 'provisioning', 'delivered'];

const orderFor = (plan = PLAN, overrides: Partial<CreateOrderRequest> = {}) => orderRequest(plan, overrides);

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('shop API on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, stripe: { retryDelaysMs: [100, 200, 400, 800, 1600, 3200] } });
  const { call } = bed;
  const order = (token: string, body: unknown) =>
    call('/orders', { method: 'POST', token, body: typeof body === 'string' ? body : JSON.stringify(body) });

  const pay = payOnStandIn;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());

  it('answers 401 in the error format without a valid ID token', async () => {
    for (const token of [undefined, 'not-a-token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']) {
      const response = await order(token as string, orderFor());
      expect(response.status).toBe(401);
      expect(ApiError.parse(await response.json()).error.code).toBe('unauthorized');
    }
    expect((await call('/orders')).status).toBe(401);
  });

  it('creates an order at the server price, opens a payment page, and a double click makes one order', async () => {
    const buyer = await signUp();
    const [first, second] = await Promise.all([order(buyer.idToken, orderFor()), order(buyer.idToken, orderFor())]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    const a = CreateOrderResponse.parse(await first.json());
    const b = CreateOrderResponse.parse(await second.json());
    expect(b.order.id).toBe(a.order.id);
    expect(b.checkoutUrl).toBe(a.checkoutUrl);
    expect(a.checkoutUrl.startsWith(bed.stripeStandIn.url)).toBe(true);
    // The providers' time apart from ours (the benchmark's own share): the accounts lookup and Stripe's.
    const created = first.status === 201 ? first : second;
    expect(created.headers.get('Server-Timing')).toMatch(/^accounts;dur=\d+(\.\d)?, stripe;dur=\d+(\.\d)?$/);
    expect(a.order).toMatchObject({
      state: 'pending_payment',
      total: PLAN.price,
      plan: { id: PLAN.pkg.id },
      destination: { code: PLAN.destination.code },
    });
    expect(a.order.number).toMatch(/^ES-\d{4}-\d{6}$/);
    const list = OrderList.parse(await (await call('/orders?lang=de', { token: buyer.idToken })).json());
    expect(list.orders.map((o) => o.id)).toEqual([a.order.id]);
    // One Checkout Session, in the buyer's language, VAT-inclusive, naming our order.
    const session = await bed.stripe.checkout.sessions.retrieve(new URL(a.checkoutUrl).pathname.split('/').pop()!);
    expect(session).toMatchObject({ client_reference_id: a.order.id, amount_total: PLAN.price.amountMinor, locale: 'de', currency: 'eur' });
    // VAT included in the price shown, computed by Stripe Tax for the buyer's country (docs/going-live.md: Taxes).
    expect(session.automatic_tax).toMatchObject({ enabled: true });
    expect(session.success_url).toBe(`${SITE}/de/payment-success?order=${a.order.id}`);
    expect(session.cancel_url).toBe(`${SITE}/de/checkout?plan=${PLAN.pkg.id}&cancelled=1`);
  });

  it('opens a payment page when the buyer retries minutes after Stripe was down: the session expires 30 min to 24 h from now', async () => {
    const buyer = await signUp();
    bed.stripeStandIn.outage({ drop: true });
    try {
      const down = await order(buyer.idToken, orderFor());
      expect(down.status).toBe(502);
      expect(ApiError.parse(await down.json()).error.code).toBe('payment_unavailable');
    } finally {
      bed.stripeStandIn.outage(null);
    }
    // The order stays open; the buyer comes back over 2 minutes later (its clock moved back in the database).
    const [open] = await bed.db.query<{ id: string }>(`SELECT id FROM orders WHERE uid = $1 AND state = 'pending_payment'`, [buyer.uid]);
    await bed.db.query(`UPDATE orders SET created_at = created_at - interval '150 seconds' WHERE id = $1`, [open!.id]);
    const retried = await order(buyer.idToken, orderFor());
    expect(retried.status).toBe(200);
    const { order: reused, checkoutUrl } = CreateOrderResponse.parse(await retried.json());
    expect(reused.id).toBe(open!.id);
    const session = await bed.stripe.checkout.sessions.retrieve(new URL(checkoutUrl).pathname.split('/').pop()!);
    const now = Math.floor(Date.now() / 1000);
    expect(session.expires_at - now).toBeGreaterThanOrEqual(30 * 60 - 5);
    expect(session.expires_at - now).toBeLessThanOrEqual(24 * 3600);
    // The session outlives the order's open time: a press that reuses this order never gets a dead page.
    expect(session.expires_at * 1000).toBeGreaterThan(new Date(reused.createdAt).getTime() + OPEN_ORDER_LIFETIME_MS);
  });

  it('never trusts the client price: a different one answers 409 with the current price and makes no order', async () => {
    const buyer = await signUp();
    const response = await order(buyer.idToken, orderFor(PLAN, { expectedPrice: { amountMinor: 1, currency: 'EUR' } }));
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: { code: string; price: unknown } };
    expect(body.error).toMatchObject({ code: 'price_changed', price: PLAN.price });
    expect(OrderList.parse(await (await call('/orders', { token: buyer.idToken })).json()).orders).toEqual([]);
  });

  it('answers malformed orders with 400 (never 500) and stores nothing', async () => {
    const buyer = await signUp();
    const bodies: unknown[] = [
      'not json',
      '',
      '[]',
      'null',
      '"x"',
      '{"planId":',
      { ...orderFor(), consents: { terms: true } },
      { ...orderFor(), consents: { terms: false, immediateStart: true } },
      { ...orderFor(), consents: undefined },
      { ...orderFor(), lang: 'xx' },
      { ...orderFor(), planId: 'x'.repeat(5000) },
      { ...orderFor(), planId: 42 },
      { ...orderFor(), expectedPrice: { amountMinor: -1, currency: 'EUR' } },
      { ...orderFor(), expectedPrice: '4.99' },
      { ...orderFor(), consents: { terms: 'true', immediateStart: 'true' } },
      { planId: PLAN.pkg.id },
    ];
    for (const body of bodies) {
      const response = await order(buyer.idToken, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(ApiError.parse(await response.json()).error.code).toBe('bad_request');
    }
    expect((await order(buyer.idToken, orderFor(PLAN, { planId: 'xx-unknown' }))).status).toBe(404);
    expect((await order(buyer.idToken, 'x'.repeat(70_000))).status).toBe(413);
    expect(OrderList.parse(await (await call('/orders', { token: buyer.idToken })).json()).orders).toEqual([]);
  });

  it('refuses a JSON body over the limit with 413 on every route that reads one, declared or streamed, and changes nothing', async () => {
    const buyer = await signUp();
    const subscription = {
      endpoint: 'https://fcm.googleapis.com/fcm/send/body-limit-test',
      keys: { p256dh: 'x'.repeat(87), auth: 'x'.repeat(22) },
      lang: 'en',
    };
    // Valid JSON each, padded past the limit with a field the schemas ignore (issue 29, defect 4).
    const pad = 'x'.repeat(MAX_JSON_BODY_BYTES);
    const routes: [string, string, unknown][] = [
      ['POST', '/orders', { ...orderFor(), pad }],
      ['PUT', '/me/alerts', { pad }],
      ['POST', '/me/push-subscriptions', { ...subscription, pad }],
      ['DELETE', '/me/push-subscriptions', { endpoint: subscription.endpoint, pad }],
    ];
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.subarray(i, i + 4096));
          controller.close();
        },
      });
    for (const [method, path, body] of routes) {
      const text = JSON.stringify(body);
      const declared = await call(path, { method, token: buyer.idToken, body: text });
      const streamed = await call(path, { method, token: buyer.idToken, body: chunked(text), duplex: 'half' } as RequestInit);
      for (const response of [declared, streamed]) {
        expect(response.status, `${method} ${path}`).toBe(413);
        expect(ApiError.parse(await response.json()).error.code).toBe('body_too_large');
      }
    }
    expect(OrderList.parse(await (await call('/orders', { token: buyer.idToken })).json()).orders).toEqual([]);
  });

  it('answers every odd request with JSON and a 4xx, never a 500', async () => {
    const buyer = await signUp();
    let seed = 14;
    const pick = <T>(items: readonly T[]) => items[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % items.length]!;
    const paths = [
      '/orders',
      '/orders/',
      `/orders/${crypto.randomUUID()}`,
      '/orders/%E0%A4%A',
      '/orders/..%2F..%2Fme',
      '/me',
      '/me/x',
      '/webhooks/stripe',
      '/orders?lang=%00',
      '/orders?lang=' + 'x'.repeat(3000),
      '/orders/constructor',
      '/__proto__',
    ];
    const bodies = [
      '',
      '{}',
      '[]',
      'null',
      '{"planId":{"$ne":1}}',
      '\u0000',
      'x'.repeat(20_000),
      JSON.stringify(orderFor(PLAN, { lang: 'xx' as 'de' })),
    ];
    for (let i = 0; i < 120; i++) {
      const method = pick(['GET', 'POST', 'DELETE', 'PUT', 'PATCH']);
      const response = await call(pick(paths), {
        method,
        ...(pick([true, false]) && { token: pick([buyer.idToken, 'x.y.z']) }),
        ...(method !== 'GET' && { body: pick(bodies) }),
        headers: { 'Content-Type': pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']) },
      });
      const text = await response.text();
      expect(response.status, `${method} ${response.url}`).toBeLessThan(500);
      if (response.status >= 400) expect(ApiError.safeParse(JSON.parse(text)).success, text).toBe(true);
    }
  });

  it("answers 404 for someone else's order and never lists it", async () => {
    const owner = await signUp();
    const other = await signUp();
    const { order: mine } = CreateOrderResponse.parse(await (await order(owner.idToken, orderFor())).json());
    for (const path of [`/orders/${mine.id}`, '/orders/not-a-uuid', `/orders/${crypto.randomUUID()}`]) {
      const response = await call(path, { token: other.idToken });
      expect(response.status).toBe(404);
      expect(ApiError.parse(await response.json()).error.code).toBe('not_found');
    }
    expect(OrderList.parse(await (await call('/orders', { token: other.idToken })).json()).orders).toEqual([]);
    expect((await call(`/orders/${mine.id}`, { token: owner.idToken })).status).toBe(200);
  });

  it('marks the order paid on the webhook after the test card pays, with method and receipt; a declined card changes nothing', async () => {
    const buyer = await signUp();
    const { order: created, checkoutUrl } = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor())).json());
    const declined = await pay(checkoutUrl, '4000 0000 0000 0002');
    expect(declined.status).toBe(402);
    expect((await readOrder(buyer.idToken, created.id)).state).toBe('pending_payment');

    const paid = await pay(checkoutUrl, '4242 4242 4242 4242');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${SITE}/de/payment-success?order=${created.id}`);
    const after = await waitFor(
      () => readOrder(buyer.idToken, created.id),
      (o) => PAID.includes(o.state),
    );
    expect(after).toMatchObject({ paymentMethod: { type: 'card', brand: 'visa', last4: '4242' }, checkoutUrl: null });
    expect(after.receiptUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/receipts\//);
    expect(after.paidAt).not.toBeNull();
    // Every change recorded, with its cause.
    const events = await bed.db.query<{ from_state: string | null; to_state: string; cause: string }>(
      'SELECT from_state, to_state, cause FROM order_events WHERE order_id = $1 ORDER BY id',
      [created.id],
    );
    expect(events.slice(0, 2).map((e) => [e.from_state, e.to_state])).toEqual([
      [null, 'pending_payment'],
      ['pending_payment', 'paid'],
    ]);
    expect(events[1]!.cause).toMatch(/^stripe:checkout\.session\.completed evt_/);
    // A new order of the same plan is a new purchase, not the paid one.
    const again = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor())).json());
    expect(again.order.id).not.toBe(created.id);
  });

  describe('the webhook', () => {
    /** A Checkout event about this session, shaped as Stripe sends it at the stage its type carries (tests/support/stripe-events.ts). */
    const event = (type: CheckoutEventType, facts: Omit<SessionFacts, 'stage'>, stage = STAGE_OF[type]) =>
      checkoutEvent(type, checkoutSession({ ...facts, stage, ...(stage === 'expired' && { payment_intent: null }) }));
    const deliver = (payload: string, signature: string | undefined, url = `${bed.api.url}/api`) =>
      fetch(`${url}/webhooks/stripe`, {
        method: 'POST',
        body: payload,
        headers: { 'Content-Type': 'application/json', ...(signature && { 'Stripe-Signature': signature }) },
      });
    /** Delivers it signed with the endpoint's secret, as Stripe would; answers the API's outcome. */
    async function send(e: Stripe.Event, url?: string) {
      const { payload, signature } = signedEvent(e, STAND_IN_WEBHOOK_SECRET);
      const response = await deliver(payload, signature, url);
      expect(response.status).toBe(200);
      return ((await response.json()) as { outcome: string }).outcome;
    }

    async function openOrder() {
      const buyer = await signUp();
      const { order: created, checkoutUrl } = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor())).json());
      // What Stripe's events about this order's session say: its id, our order id, the amount, and the PaymentIntent that pays it.
      const session = {
        id: new URL(checkoutUrl).pathname.split('/').pop()!,
        client_reference_id: created.id,
        amount_total: created.total.amountMinor,
        currency: 'eur',
        payment_intent: stripeId('pi'),
        customer_email: buyer.email,
      };
      return { buyer, created, session };
    }

    it('refuses forged events with 400 and changes nothing', async () => {
      const { buyer, created, session } = await openOrder();
      const genuine = event('checkout.session.completed', session);
      const { payload } = signedEvent(genuine, STAND_IN_WEBHOOK_SECRET);
      const forged = [
        undefined,
        'garbage',
        signedEvent(genuine, 'whsec_someone_else').signature,
        // A genuine signature of another body (the amount changed on the way).
        signedEvent(event('checkout.session.completed', { ...session, amount_total: 1 }), STAND_IN_WEBHOOK_SECRET).signature,
      ];
      for (const signature of forged) {
        const response = await deliver(payload, signature);
        expect(response.status).toBe(400);
        expect(ApiError.parse(await response.json()).error.code).toBe('bad_signature');
      }
      expect((await readOrder(buyer.idToken, created.id)).state).toBe('pending_payment');
    });

    it('handles a replayed event once', async () => {
      const { buyer, created, session } = await openOrder();
      const paid = event('checkout.session.completed', session);
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push(await send(paid));
      expect(outcomes).toEqual(['moved', 'replay', 'replay']);
      expect((await readOrder(buyer.idToken, created.id)).state).toSatisfy((state: string) => PAID.includes(state));
      const payments = await bed.db.query<{ payment_intent_id: string }>('SELECT payment_intent_id FROM payments WHERE order_id = $1', [
        created.id,
      ]);
      // The PaymentIntent the event names is the one kept to refund later.
      expect(payments).toEqual([{ payment_intent_id: session.payment_intent }]);
      const events = await bed.db.query<{ to_state: string }>('SELECT * FROM order_events WHERE order_id = $1', [created.id]);
      expect(events.filter((e) => e.to_state === 'paid')).toHaveLength(1);
    });

    it('keeps a paid order paid when an expiry arrives late, and counts a payment that arrives after an expiry', async () => {
      const first = await openOrder();
      for (const type of ['checkout.session.completed', 'checkout.session.expired', 'checkout.session.async_payment_failed'] as const) {
        await send(event(type, first.session));
      }
      expect((await readOrder(first.buyer.idToken, first.created.id)).state).toSatisfy((state: string) => PAID.includes(state));

      const second = await openOrder();
      for (const type of ['checkout.session.expired', 'checkout.session.completed'] as const) await send(event(type, second.session));
      expect((await readOrder(second.buyer.idToken, second.created.id)).state).toSatisfy((state: string) => PAID.includes(state));
      const events = await bed.db.query<{ to_state: string }>('SELECT to_state FROM order_events WHERE order_id = $1 ORDER BY id', [
        second.created.id,
      ]);
      expect(events.slice(0, 3).map((e) => e.to_state)).toEqual(['pending_payment', 'expired', 'paid']);
    });

    it('follows a delayed payment method: unpaid on completion, then failed or succeeded', async () => {
      const failing = await openOrder();
      // A bank debit: completed while its PaymentIntent is processing, then Stripe says how it ended.
      await send(event('checkout.session.completed', failing.session, 'processing'));
      await send(event('checkout.session.async_payment_failed', failing.session));
      expect((await readOrder(failing.buyer.idToken, failing.created.id)).state).toBe('payment_failed');

      const succeeding = await openOrder();
      await send(event('checkout.session.completed', succeeding.session, 'processing'));
      expect((await readOrder(succeeding.buyer.idToken, succeeding.created.id)).state).toBe('pending_payment');
      await send(event('checkout.session.async_payment_succeeded', succeeding.session));
      expect((await readOrder(succeeding.buyer.idToken, succeeding.created.id)).state).toSatisfy((state: string) => PAID.includes(state));
    });

    it('ignores a paid event whose amount is not the order amount', async () => {
      const { buyer, created, session } = await openOrder();
      expect(await send(event('checkout.session.completed', { ...session, amount_total: 1 }))).toBe('mismatch');
      expect((await readOrder(buyer.idToken, created.id)).state).toBe('pending_payment');
    });

    it('records and refunds at once a verified payment that matches no order (payment_mismatches), once however often it comes', async () => {
      // An account of ours whose own events reach no endpoint: the only events are the ones sent here.
      const quietStandIn = await startStripeStandIn({ port: 0, webhookSecret: STAND_IN_WEBHOOK_SECRET });
      const quietStripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: quietStandIn.url });
      const quietApi = await serveApi(testShopApi({ catalogue, db: bed.db, stripe: quietStripe, siteUrl: SITE, ...bed.stand.options }));
      try {
        // Paid sessions for no order of ours: an order id we never made, and a reference that is no order id at all.
        for (const reference of [crypto.randomUUID(), 'cart_4711']) {
          const created = await quietStripe.checkout.sessions.create({
            mode: 'payment',
            client_reference_id: reference,
            success_url: `${SITE}/ok`,
            expires_at: Math.floor(Date.now() / 1000) + 31 * 60,
            line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 777, product_data: { name: 'eSIM' } } }],
          });
          expect((await payOnStandIn(created.url!, '4242424242424242')).status).toBe(303);
          const paid = await quietStripe.checkout.sessions.retrieve(created.id);
          const intent = paid.payment_intent as string;
          expect(intent).toMatch(/^pi_/);
          const completed = event('checkout.session.completed', {
            id: created.id,
            client_reference_id: reference,
            amount_total: 777,
            currency: 'eur',
            payment_intent: intent,
          });

          expect(await send(completed, `${quietApi.url}/api`)).toBe('mismatch');
          const recorded = await bed.db.query(
            'SELECT order_id, payment_intent_id, amount_minor, currency, reason, refund_id IS NOT NULL AS refunded FROM payment_mismatches WHERE checkout_session_id = $1',
            [created.id],
          );
          expect(recorded).toEqual([
            { order_id: null, payment_intent_id: intent, amount_minor: 777, currency: 'EUR', reason: 'unknown_order', refunded: true },
          ]);
          const refunds = async () => (await quietStripe.refunds.list({ payment_intent: intent })).data.map((r) => [r.amount, r.status]);
          expect(await refunds()).toEqual([[777, 'succeeded']]);

          // Stripe sends it again (its retry, the same event), or another event about the same session: nothing more is given back.
          expect(await send(completed, `${quietApi.url}/api`)).toBe('replay');
          expect(
            await send(
              checkoutEvent('checkout.session.completed', completed.data.object as Stripe.Checkout.Session),
              `${quietApi.url}/api`,
            ),
          ).toBe('mismatch');
          expect(await bed.db.query('SELECT id FROM payment_mismatches WHERE checkout_session_id = $1', [created.id])).toHaveLength(1);
          expect(await refunds()).toEqual([[777, 'succeeded']]);
        }
      } finally {
        await quietApi.close();
        await quietStandIn.close();
      }
    });
  });

  it('loses nothing when the API is down between payment and webhook: the retried event marks it paid', async () => {
    const buyer = await signUp();
    const { order: created, checkoutUrl } = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor(OTHER_PLAN))).json());
    await bed.api.close();
    expect((await pay(checkoutUrl, '4242424242424242')).status).toBe(303);
    await new Promise((r) => setTimeout(r, 500));
    // A new server process on the same port and database.
    bed.api = await serveApi(bed.build(), bed.port);
    const after = await waitFor(
      () => readOrder(buyer.idToken, created.id),
      (o) => PAID.includes(o.state),
      15_000,
    );
    expect(PAID).toContain(after.state);
  });

  it('on account deletion cancels open orders, keeps paid ones without the person, and closes their payment pages', async () => {
    const buyer = await signUp();
    const paid = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor())).json());
    await pay(paid.checkoutUrl, '4242424242424242');
    await waitFor(
      () => readOrder(buyer.idToken, paid.order.id),
      (o) => o.state === 'delivered',
    );
    const open = CreateOrderResponse.parse(await (await order(buyer.idToken, orderFor(OTHER_PLAN))).json());

    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    // The account went with it: its token opens nothing any more.
    expect((await call('/orders', { token: buyer.idToken })).status).toBe(401);
    const rows = await bed.db.query<{ id: string; uid: string | null; email: string | null; state: string; amount_minor: number }>(
      'SELECT id, uid, email, state, amount_minor FROM orders WHERE id = ANY($1::uuid[]) ORDER BY created_at',
      [[paid.order.id, open.order.id]],
    );
    expect(rows).toEqual([
      { id: paid.order.id, uid: null, email: null, state: 'delivered', amount_minor: paid.order.total.amountMinor },
      { id: open.order.id, uid: null, email: null, state: 'cancelled', amount_minor: open.order.total.amountMinor },
    ]);
    const session = await bed.stripe.checkout.sessions.retrieve(new URL(open.checkoutUrl).pathname.split('/').pop()!);
    expect(session.status).toBe('expired');
  });

  it('still serves the catalogue, with prices', async () => {
    const response = await call(`/packages?regionId=${PLAN.destination.code}`);
    expect(response.status).toBe(200);
    const packages = (await response.json()) as { id: string; price?: unknown }[];
    expect(packages.find((p) => p.id === PLAN.pkg.id)?.price).toEqual(PLAN.price);
  });
});

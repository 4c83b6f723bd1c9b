import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { priceOnSnapshotRates } from '../../tests/support/prices.ts';
import { openAndPay, orderRequest, topUpRequest, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, EsimList, OrderView, PriceChangedError, TopUpPlans, type CreateOrderRequest } from '../contract/shop-api.ts';
import { formatPrice } from '../lib/format.ts';
import { auditOrders } from './orders/audit.ts';
import { priceIn } from '../pricing/price-in.ts';
import { sellablePlans } from './orders/plans.ts';

/**
 * Orders in the buyer's currency (issue 34): priced again by the server in the currency of the
 * price the page showed, charged in it at Stripe (yen without a minor unit), e-mailed and refunded
 * in it, and top-ups in the visitor's currency or else the eSIM's. The real stripe SDK against its stand-in.
 */
const catalogue = embeddedSnapshot();
const plans = sellablePlans(catalogue);
const PLAN = plans.get('de-1gb-7d')!;
const usd = priceIn(PLAN.prices, 'USD');
const jpy = priceIn(PLAN.prices, 'JPY');

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('orders in several currencies on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=en`, { token })).json());
  const postOrder = (token: string, request: CreateOrderRequest) =>
    call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
  const sessionOf = async (orderId: string) => {
    const [row] = await bed.db.query<{ checkout_session_id: string }>(
      'SELECT checkout_session_id FROM order_checkouts WHERE order_id = $1',
      [orderId],
    );
    return bed.stripe.checkout.sessions.retrieve(row!.checkout_session_id);
  };

  async function delivered(token: string, request: CreateOrderRequest) {
    const created = await openAndPay(() => postOrder(token, request), 201);
    const after = await waitFor(
      () => readOrder(token, created.order.id),
      (o) => o.state === 'delivered',
    );
    expect(after.state).toBe('delivered');
    return after;
  }

  it('charges an order in US dollars at the price the server gives it, e-mails and refunds it in dollars', async () => {
    const buyer = await signUp();
    const order = await delivered(buyer.idToken, orderRequest(PLAN, { lang: 'en', expectedPrice: usd }));
    expect(order.total).toEqual(usd);
    expect(usd).toEqual(priceOnSnapshotRates(PLAN.pkg.wholesaleUsdE4, 'USD'));
    const session = await sessionOf(order.id);
    expect([session.currency, session.amount_total]).toEqual(['usd', usd.amountMinor]);
    // Stripe may offer a currency we do not list on its own page; the session stays in dollars.
    expect(session.adaptive_pricing).toEqual({ enabled: true });
    // The order e-mail says the dollars, as the language writes them.
    const [mail] = await waitFor(
      async () => bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email)),
      (mails) => mails.length > 0,
    );
    expect(mail!.text).toContain(formatPrice(usd, 'en'));
    // The buyer's refund of the unused eSIM: the whole amount, in dollars.
    const [esim] = EsimList.parse(await (await call('/esims?lang=en', { token: buyer.idToken })).json()).esims;
    expect((await call(`/esims/${esim!.id}/refund?lang=en`, { method: 'POST', token: buyer.idToken })).status).toBe(200);
    const refunds = await waitFor(
      () =>
        bed.db.query<{ amount_minor: number; currency: string; status: string }>(
          'SELECT amount_minor, currency, status FROM refunds WHERE order_id = $1',
          [order.id],
        ),
      (rows) => rows[0]?.status === 'succeeded',
    );
    expect(refunds).toEqual([{ amount_minor: usd.amountMinor, currency: 'USD', status: 'succeeded' }]);
    const atStripe = await bed.stripe.refunds.list({ payment_intent: session.payment_intent as string });
    expect(atStripe.data.map((r) => [r.amount, r.currency])).toEqual([[usd.amountMinor, 'usd']]);
    expect(await auditOrders(bed.db)).toEqual([]);
  });

  it('charges yen as whole yen (no minor unit) and refunds part of it to the yen', async () => {
    const buyer = await signUp();
    const order = await delivered(buyer.idToken, orderRequest(PLAN, { lang: 'ja', expectedPrice: jpy }));
    expect(order.total).toEqual(jpy);
    expect(jpy.amountMinor % 10).toBe(0);
    const session = await sessionOf(order.id);
    // ¥370 is 370 at Stripe, not 37000.
    expect([session.currency, session.amount_total]).toEqual(['jpy', jpy.amountMinor]);
    const part = await bed.handler.fulfilment.requestRefund({
      orderId: order.id,
      amountMinor: 100,
      requestedBy: 'operator',
      operatorUid: 'op-1',
      reason: 'operator',
      note: 'goodwill',
      idempotencyKey: `yen-${order.id}`,
    });
    expect(part.refund).toMatchObject({ status: 'succeeded', amount_minor: 100, currency: 'JPY' });
    const atStripe = await bed.stripe.refunds.list({ payment_intent: session.payment_intent as string });
    expect(atStripe.data.map((r) => [r.amount, r.currency])).toEqual([[100, 'jpy']]);
  });

  it('answers 409 with the price in the same currency when the page showed another amount, and 400 for a currency it does not sell in', async () => {
    const buyer = await signUp();
    // The euro amount sent as dollars: stale.
    const stale = await postOrder(
      buyer.idToken,
      orderRequest(PLAN, { expectedPrice: { amountMinor: PLAN.price.amountMinor, currency: 'USD' } }),
    );
    expect(stale.status).toBe(409);
    expect(PriceChangedError.parse(await stale.json()).error.price).toEqual(usd);
    const swedish = await postOrder(buyer.idToken, orderRequest(PLAN, { expectedPrice: { amountMinor: 2500, currency: 'SEK' } }));
    expect(swedish.status).toBe(400);
    // One payment, one currency.
    const mixed = await call('/carts', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify({
        items: [
          { planId: PLAN.pkg.id, quantity: 1, expectedPrice: usd },
          { planId: 'fr-1gb-7d', quantity: 1, expectedPrice: plans.get('fr-1gb-7d')!.price },
        ],
        lang: 'en',
        consents: { terms: true, immediateStart: true },
      }),
    });
    expect(mixed.status).toBe(400);
    const [row] = await bed.db.query<{ count: number }>('SELECT count(*)::integer AS count FROM orders WHERE uid = $1', [buyer.uid]);
    expect(row!.count).toBe(0);
  });

  it("prices top-ups in the visitor's currency when asked, else in the eSIM's own, and sells one in yen", async () => {
    const buyer = await signUp();
    const order = await delivered(buyer.idToken, orderRequest(PLAN, { lang: 'en', expectedPrice: usd }));
    // Top-ups are for an eSIM on a phone.
    bed.stand.partner.markInstalled(bed.stand.partner.tranNoOfTransaction(order.id)!);
    const active = await waitFor(
      () => readOrder(buyer.idToken, order.id),
      (o) => o.esim?.status === 'active',
    );
    const esim = active.esim;
    const list = async (query: string) => {
      const response = await call(`/esims/${esim!.id}/top-ups?lang=en${query}`, { token: buyer.idToken });
      expect(response.status).toBe(200);
      return TopUpPlans.parse(await response.json()).plans;
    };
    const own = await list('');
    expect(own.every((p) => p.price.currency === 'USD')).toBe(true);
    const yen = await list('&currency=JPY');
    expect(yen.map((p) => p.id)).toEqual(own.map((p) => p.id));
    expect(yen.every((p) => p.price.currency === 'JPY' && p.price.amountMinor % 10 === 0)).toBe(true);
    expect((await call(`/esims/${esim!.id}/top-ups?lang=en&currency=SEK`, { token: buyer.idToken })).status).toBe(400);
    const response = await postOrder(buyer.idToken, topUpRequest(yen[0]!, esim!.id, { lang: 'ja' }));
    expect(response.status).toBe(201);
    expect(CreateOrderResponse.parse(await response.json()).order.total).toEqual(yen[0]!.price);
    const [topUp] = await bed.db.query<{ id: string; currency: string }>('SELECT id, currency FROM orders WHERE top_up_of = $1', [
      order.id,
    ]);
    expect(topUp!.currency).toBe('JPY');
    expect((await sessionOf(topUp!.id)).amount_total).toBe(yen[0]!.price.amountMinor);
  });
});

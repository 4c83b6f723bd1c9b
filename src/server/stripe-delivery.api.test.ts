import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, EsimList, OrderView } from '../contract/shop-api.ts';
import { auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';
import { OPEN_ORDER_LIFETIME_MS } from './orders/store.ts';

/**
 * Stripe as it really delivers (issue 24 item 6): webhooks late, twice and out of order; a payment
 * page that times out by itself; bank debits that succeed or fail after the session completed;
 * refunds that stay pending and fail. The Stripe stand-in does each (stand-ins/stripe/README.md),
 * and the shop ends every order right: one payment, one delivery, and 'refunded' (My eSIMs, the
 * e-mail) only once Stripe says the money went back.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4329';
const HOUR = 3600_000;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('Stripe delivering as Stripe does, on $name', (driver) => {
  // Debits settle 300 ms after the page (the "delayed" IBANs after three minutes on the stand-in's
  // clock); refunds only when a test says so (settleRefunds) or the clock passes an hour.
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: SITE,
    allocationDelayMs: 200,
    stripe: { debitSettleMs: 300, refundSettleMs: HOUR },
    api: (standIns) => ({ delivery: { ...standIns.options.delivery, refundPollMs: 300 } }),
  });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const myEsim = async (token: string, id: string) =>
    EsimList.parse(await (await call('/esims?lang=de', { token })).json()).esims.find((e) => e.id === id);
  const events = async (id: string) =>
    (await bed.db.query<{ to_state: string }>('SELECT to_state FROM order_events WHERE order_id = $1 ORDER BY id', [id])).map(
      (e) => e.to_state,
    );
  const emails = async (id: string, kind: 'order' | 'refund') =>
    Number(
      (await bed.db.query<{ n: number }>('SELECT count(*)::int AS n FROM order_emails WHERE order_id = $1 AND kind = $2', [id, kind]))[0]!
        .n,
    );
  const payments = (id: string) => bed.db.query<{ status: string }>('SELECT status FROM payments WHERE order_id = $1 ORDER BY id', [id]);
  const intentOf = async (id: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        id,
      ])
    )[0]!.payment_intent_id;
  const refundRow = async (id: string) =>
    (
      await bed.db.query<{ refund_id: string | null; refund_status: string | null; refund_failures: number }>(
        // The order's one refund row (refunds/store.ts): the buyer's.
        'SELECT stripe_refund_id AS refund_id, status AS refund_status, failures AS refund_failures FROM refunds WHERE order_id = $1',
        [id],
      )
    )[0]!;
  const findingsFor = async (id: string) => (await auditOrders(bed.db, new Date(Date.now() + HOUR))).filter((f) => f.orderId === id);
  /** Runs the reconcile job until the order reaches a state in `states`. */
  const settlesIn = (token: string, id: string, states: string[], ms = 15_000) =>
    waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(token, id)),
      (o) => states.includes(o.state),
      ms,
    );

  async function order(token: string) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) });
    const body: unknown = await response.json();
    expect(response.status, JSON.stringify(body)).toBeLessThan(300);
    return CreateOrderResponse.parse(body);
  }
  /** Pays on the stand-in's page by SEPA Direct Debit with one of Stripe's test IBANs. */
  const debit = (checkoutUrl: string, iban: string) =>
    fetch(checkoutUrl, { method: 'POST', body: new URLSearchParams({ action: 'debit', iban }), redirect: 'manual' });
  /** An order paid by card (one of Stripe's test cards: a plain Visa unless said), delivered and its e-mail sent. */
  async function deliveredEsim(token: string, card = '4242424242424242') {
    const created = await order(token);
    expect((await payOnStandIn(created.checkoutUrl, card)).status).toBe(303);
    const after = await waitFor(
      () => readOrder(token, created.order.id),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    expect(after.state).toBe('delivered');
    await waitFor(
      () => emails(created.order.id, 'order'),
      (n) => n === 1,
    );
    return created.order;
  }

  it('webhooks late, twice and newest first change nothing: one payment, one eSIM, one e-mail, delivered', async () => {
    const cardBuyer = await signUp();
    const debitBuyer = await signUp();
    const byCard = await order(cardBuyer.idToken);
    const byDebit = await order(debitBuyer.idToken);
    const before = bed.stand.partner.esimCount;
    // Every event twice, at once; held 800 ms and sent newest first: the debit's async_payment_succeeded
    // (300 ms after the page) comes before its checkout.session.completed.
    bed.stripeStandIn.deliveryRules({ copies: 2, reorderWindowMs: 800 });
    try {
      expect((await payOnStandIn(byCard.checkoutUrl, '4242424242424242')).status).toBe(303);
      expect((await debit(byDebit.checkoutUrl, 'DE89370400440532013000')).status).toBe(303);
      await bed.stripeStandIn.settled();
    } finally {
      bed.stripeStandIn.deliveryRules(null);
    }
    const sessionOf = (url: string) => new URL(url).pathname.split('/').pop()!;
    const delivered = bed.stripeStandIn.deliveries.filter((d) => {
      const record = bed.stripeStandIn.events.find((e) => e.event.id === d.id)!;
      return record.event.type.startsWith('checkout.') && record.event.data.object.id === sessionOf(byDebit.checkoutUrl);
    });
    expect(delivered.map((d) => [d.type, d.status])).toEqual([
      ['checkout.session.async_payment_succeeded', 200],
      ['checkout.session.async_payment_succeeded', 200],
      ['checkout.session.completed', 200],
      ['checkout.session.completed', 200],
    ]);

    for (const [buyer, created] of [
      [cardBuyer, byCard],
      [debitBuyer, byDebit],
    ] as const) {
      const id = created.order.id;
      const after = await waitFor(
        () => readOrder(buyer.idToken, id),
        (o) => o.state === 'delivered' && !!o.esim?.install,
      );
      expect(after.state).toBe('delivered');
      await waitFor(
        () => emails(id, 'order'),
        (n) => n === 1,
      );
      await bed.handler.fulfilment.runDue();
      expect(await events(id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
      expect((await payments(id)).map((p) => p.status)).toEqual(['paid']);
      expect(await emails(id, 'order')).toBe(1);
      const writes = await bed.db.query<{ outcome: string }>(
        `SELECT outcome FROM partner_writes WHERE order_id = $1 AND call = 'esim/order'`,
        [id],
      );
      expect(writes.map((w) => w.outcome)).toEqual(['applied']);
    }
    expect(bed.stand.partner.esimCount - before).toBe(2);
    expect((await readOrder(debitBuyer.idToken, byDebit.order.id)).paymentMethod).toMatchObject({ type: 'sepa_debit' });
  });

  it('a payment page that times out by itself sends checkout.session.expired, and its order expires', async () => {
    const buyer = await signUp();
    const created = await order(buyer.idToken);
    expect((await readOrder(buyer.idToken, created.order.id)).state).toBe('pending_payment');
    // The shop asks for a page that lives a little longer than an open order (app.ts): past it, on Stripe's clock.
    const past = OPEN_ORDER_LIFETIME_MS + 2 * 60_000;
    bed.stripeStandIn.advanceClock(past);
    try {
      const after = await waitFor(
        () => readOrder(buyer.idToken, created.order.id),
        (o) => o.state === 'expired',
      );
      expect(after.state).toBe('expired');
    } finally {
      bed.stripeStandIn.advanceClock(-past);
    }
    const [event] = await bed.db.query<{ cause: string }>(`SELECT cause FROM order_events WHERE order_id = $1 AND to_state = 'expired'`, [
      created.order.id,
    ]);
    expect(event!.cause).toMatch(/^stripe:checkout\.session\.expired evt_/);
    expect((await debit(created.checkoutUrl, 'DE89370400440532013000')).status).toBe(409);
    expect(await payments(created.order.id)).toEqual([]);
  });

  it('a bank debit that succeeds minutes later is delivered then, and one that fails ends payment_failed', async () => {
    const good = await signUp();
    const bad = await signUp();
    const later = await order(good.idToken);
    const never = await order(bad.idToken);
    // Stripe's "delayed" test IBANs: settled at least three minutes after the page.
    expect((await debit(later.checkoutUrl, 'DE08370400440532013003')).status).toBe(303);
    expect((await debit(never.checkoutUrl, 'DE78370400440532013004')).status).toBe(303);
    await bed.stripeStandIn.settled();
    // Completed, not paid: nothing is delivered on checkout.session.completed with payment_status 'unpaid'.
    await bed.handler.fulfilment.settled();
    expect((await readOrder(good.idToken, later.order.id)).state).toBe('pending_payment');
    expect((await readOrder(bad.idToken, never.order.id)).state).toBe('pending_payment');
    expect(await payments(later.order.id)).toEqual([]);

    bed.stripeStandIn.advanceClock(3 * 60_000);
    try {
      const delivered = await waitFor(
        () => readOrder(good.idToken, later.order.id),
        (o) => o.state === 'delivered' && !!o.esim?.install,
      );
      expect(delivered.state).toBe('delivered');
      expect(await events(later.order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
      const failed = await waitFor(
        () => readOrder(bad.idToken, never.order.id),
        (o) => o.state === 'payment_failed',
      );
      expect(failed.state).toBe('payment_failed');
      expect((await payments(never.order.id)).map((p) => p.status)).toEqual(['failed']);
      expect(await events(never.order.id)).toEqual(['pending_payment', 'payment_failed']);
    } finally {
      bed.stripeStandIn.advanceClock(-3 * 60_000);
    }
  });

  it("a refund that stays pending and fails is never 'refunded' to the buyer; it is asked again, and refunded with one e-mail once it succeeds", async () => {
    const buyer = await signUp();
    const bought = await deliveredEsim(buyer.idToken);
    const intent = await intentOf(bought.id);
    bed.stripeStandIn.refundPaths(intent, ['pending_then_failed', 'pending_then_succeeded']);

    const asked = await call(`/esims/${bought.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(asked.status).toBe(200);
    expect(((await asked.json()) as { status: string }).status).toBe('refunding');
    const pending = async () => {
      await bed.handler.fulfilment.runDue();
      expect((await readOrder(buyer.idToken, bought.id)).state).toBe('refund_requested');
      expect((await myEsim(buyer.idToken, bought.id))!.status).toBe('refunding');
      expect(await emails(bought.id, 'refund')).toBe(0);
    };
    await pending();
    expect(await refundRow(bought.id)).toMatchObject({ refund_status: 'pending', refund_failures: 0 });

    // Stripe: refund.updated (failed), charge.refund.updated, refund.failed.
    bed.stripeStandIn.settleRefunds();
    await bed.stripeStandIn.settled();
    await bed.handler.fulfilment.settled();
    await pending();
    // Asked again after a wait (the first retry delay): a second refund, pending in turn.
    const second = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => bed.stripe.refunds.list({ payment_intent: intent })),
      (list) => list.data.length === 2,
    );
    expect(second.data.map((r) => r.status)).toEqual(['pending', 'failed']);
    await pending();
    expect(await refundRow(bought.id)).toMatchObject({ refund_id: second.data[0]!.id, refund_status: 'pending', refund_failures: 1 });

    bed.stripeStandIn.settleRefunds();
    await bed.stripeStandIn.settled();
    const refunded = await settlesIn(buyer.idToken, bought.id, ['refunded']);
    expect(refunded.state).toBe('refunded');
    await waitFor(
      () => emails(bought.id, 'refund'),
      (n) => n === 1,
    );
    await bed.handler.fulfilment.runDue();
    expect(await emails(bought.id, 'refund')).toBe(1);
    expect((await myEsim(buyer.idToken, bought.id))!.status).toBe('refunded');
    expect(await events(bought.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered', 'refund_requested', 'refunded']);
    expect(await findingsFor(bought.id)).toEqual([]);
  });

  it('a refund that fails after it succeeded (card 5126) is owed again: asked again, no second e-mail', async () => {
    const buyer = await signUp();
    const bought = await deliveredEsim(buyer.idToken, '4000000000005126');
    const intent = await intentOf(bought.id);
    // The card's own path first, then a refund that holds.
    bed.stripeStandIn.refundPaths(intent, ['succeeded_then_failed', 'succeeded']);
    await call(`/esims/${bought.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect((await settlesIn(buyer.idToken, bought.id, ['refunded'])).state).toBe('refunded');
    await waitFor(
      () => emails(bought.id, 'refund'),
      (n) => n === 1,
    );

    bed.stripeStandIn.settleRefunds();
    await bed.stripeStandIn.settled();
    await bed.handler.fulfilment.settled();
    const again = await settlesIn(buyer.idToken, bought.id, ['refunded']);
    expect(again.state).toBe('refunded');
    expect((await bed.stripe.refunds.list({ payment_intent: intent })).data.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    expect(await refundRow(bought.id)).toMatchObject({ refund_status: 'succeeded', refund_failures: 1 });
    expect(await events(bought.id)).toEqual([
      'pending_payment',
      'paid',
      'provisioning',
      'delivered',
      'refund_requested',
      'refunded',
      'refund_requested',
      'refunded',
    ]);
    await bed.handler.fulfilment.runDue();
    expect(await emails(bought.id, 'refund')).toBe(1);
    expect(await findingsFor(bought.id)).toEqual([]);
  });

  // Last: its late events (20 s) are still queued at the stand-in when the describe ends.
  it('a pending refund whose webhook is late is read at Stripe by the reconcile job (card 7726)', async () => {
    const buyer = await signUp();
    const bought = await deliveredEsim(buyer.idToken, '4000000000007726');
    await call(`/esims/${bought.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect((await readOrder(buyer.idToken, bought.id)).state).toBe('refund_requested');
    expect(await refundRow(bought.id)).toMatchObject({ refund_status: 'pending' });

    const { refund_id: refundId } = await refundRow(bought.id);
    bed.stripeStandIn.deliveryRules({ delayMs: 20_000 });
    try {
      bed.stripeStandIn.settleRefunds();
      const refunded = await settlesIn(buyer.idToken, bought.id, ['refunded'], 10_000);
      expect(refunded.state).toBe('refunded');
    } finally {
      bed.stripeStandIn.deliveryRules(null);
    }
    // Not one event of its settling had reached the shop: the job read the refund at Stripe.
    const told = bed.stripeStandIn.deliveries
      .filter((d) => d.type !== 'refund.created')
      .map((d) => bed.stripeStandIn.events.find((e) => e.event.id === d.id)!.event.data.object.id);
    expect(told).not.toContain(refundId);
    await waitFor(
      () => emails(bought.id, 'refund'),
      (n) => n === 1,
    );
    expect((await myEsim(buyer.idToken, bought.id))!.status).toBe('refunded');
    expect(await findingsFor(bought.id)).toEqual([]);
  });
});

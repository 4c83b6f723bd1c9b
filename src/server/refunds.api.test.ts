import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';
import { RefundRefused, type RefundRequest } from './refunds/refund-command.types.ts';

/**
 * Refunds as rows of their own (issue 30 item 5): an operator's refunds of a delivered order, in
 * part and several, never beyond what was paid (also two at once), a double click once, and
 * Stripe's lost answer settled by reading Stripe; the real stripe SDK against the stand-in.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const HOUR = 3600_000;

// On both drivers (tests/support/databases.ts): the embedded default's whole purchase → delivery → refund path, and two refunds at once.
describe.each(databaseDrivers())('refunds on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=en`, { token })).json());
  const intentOf = async (id: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        id,
      ])
    )[0]!.payment_intent_id;
  const atStripe = async (id: string) => (await bed.stripe.refunds.list({ payment_intent: await intentOf(id), limit: 100 })).data;
  const rows = (id: string) =>
    bed.db.query<{ amount_minor: number; status: string; stripe_refund_id: string | null }>(
      'SELECT amount_minor, status, stripe_refund_id FROM refunds WHERE order_id = $1 ORDER BY created_at, id',
      [id],
    );
  const refund = (orderId: string, amountMinor: number | undefined, key: string): RefundRequest => ({
    orderId,
    ...(amountMinor !== undefined && { amountMinor }),
    requestedBy: 'operator',
    operatorUid: 'op-1',
    reason: 'operator',
    note: 'goodwill',
    idempotencyKey: key,
  });

  async function deliveredEsim(token: string) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) });
    const created = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const after = await waitFor(
      () => readOrder(token, created.order.id),
      (o) => o.state === 'delivered',
    );
    expect(after.state).toBe('delivered');
    return created.order;
  }

  it('refunds a delivered order in parts, several times, never beyond what was paid; the order stays delivered', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    const paid = order.total.amountMinor;
    const first = await bed.handler.fulfilment.requestRefund(refund(order.id, 50, 'click-1'));
    expect(first.refund).toMatchObject({ status: 'succeeded', amount_minor: 50, requested_by: 'operator', operator_uid: 'op-1' });
    const second = await bed.handler.fulfilment.requestRefund(refund(order.id, 60, 'click-2'));
    expect(second.refund.status).toBe('succeeded');
    // More than is left: refused, nothing asked of Stripe.
    await expect(bed.handler.fulfilment.requestRefund(refund(order.id, paid - 109, 'click-3'))).rejects.toMatchObject({
      code: 'exceeds_payment',
    });
    expect((await atStripe(order.id)).map((r) => r.amount).sort()).toEqual([50, 60]);
    expect((await readOrder(buyer.idToken, order.id)).state).toBe('delivered');
    expect(await rows(order.id)).toHaveLength(2);
    const causes = await bed.db.query<{ from_state: string; to_state: string; cause: string }>(
      `SELECT from_state, to_state, cause FROM order_events WHERE order_id = $1 AND cause LIKE 'refund %'`,
      [order.id],
    );
    expect(causes.map((c) => [c.from_state, c.to_state])).toEqual([
      ['delivered', 'delivered'],
      ['delivered', 'delivered'],
    ]);
    // The rest (no amount): exactly what is left.
    const rest = await bed.handler.fulfilment.requestRefund(refund(order.id, undefined, 'click-4'));
    expect(rest.refund).toMatchObject({ status: 'succeeded', amount_minor: paid - 110 });
    expect((await atStripe(order.id)).reduce((sum, r) => sum + r.amount, 0)).toBe(paid);
    expect((await auditOrders(bed.db, new Date(Date.now() + HOUR))).filter((f) => f.orderId === order.id)).toEqual([]);
  });

  it('two refunds at once cannot together exceed the payment; the same key twice refunds once', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    const paid = order.total.amountMinor;
    const both = await Promise.allSettled([
      bed.handler.fulfilment.requestRefund(refund(order.id, paid - 50, 'a')),
      bed.handler.fulfilment.requestRefund(refund(order.id, paid - 50, 'b')),
    ]);
    expect(both.map((b) => b.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = both.find((b) => b.status === 'rejected')!.reason as unknown;
    expect(refused).toBeInstanceOf(RefundRefused);
    // A double click: one row, one refund at Stripe.
    const clicks = await Promise.all([
      bed.handler.fulfilment.requestRefund(refund(order.id, 50, 'double')),
      bed.handler.fulfilment.requestRefund(refund(order.id, 50, 'double')),
    ]);
    expect(clicks[0].refund.id).toBe(clicks[1].refund.id);
    expect(clicks.map((c) => c.created).sort()).toEqual([false, true]);
    expect((await atStripe(order.id)).map((r) => r.amount).sort((x, y) => x - y)).toEqual([50, paid - 50]);
  });

  it('a refund whose Stripe answer was lost is settled by reading Stripe, never asked twice', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    // Stripe unreachable: the row is written, its ask fails before anything reached Stripe.
    bed.stripeStandIn.outage({ drop: true });
    let asked;
    try {
      asked = await bed.handler.fulfilment.requestRefund(refund(order.id, 150, 'lost'));
    } finally {
      bed.stripeStandIn.outage(null);
    }
    expect(asked.refund.status).toBe('requested');
    // The next ask reached Stripe and its answer was lost: Stripe holds the refund, the row does not know it.
    await bed.stripe.refunds.create(
      { payment_intent: await intentOf(order.id), amount: 150, metadata: { reference: asked.refund.id, reason: 'operator' } },
      { idempotencyKey: `refund-${asked.refund.id}-2` },
    );
    const settled = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => rows(order.id)),
      (r) => r[0]?.status === 'succeeded',
    );
    const stripe = await atStripe(order.id);
    expect(stripe).toHaveLength(1);
    expect(settled[0]).toMatchObject({ status: 'succeeded', stripe_refund_id: stripe[0]!.id, amount_minor: 150 });
  });

  it('refuses a refund asked by nobody and one of an order never paid', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    await expect(
      bed.handler.fulfilment.requestRefund({ ...refund(order.id, 10, 'nobody'), operatorUid: undefined } as unknown as RefundRequest),
    ).rejects.toMatchObject({ code: 'asked_by_nobody' });
    const open = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) })).json(),
    );
    await expect(bed.handler.fulfilment.requestRefund(refund(open.order.id, 10, 'unpaid'))).rejects.toMatchObject({ code: 'not_paid' });
    expect(await rows(open.order.id)).toEqual([]);
  });
});

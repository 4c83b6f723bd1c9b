import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { buyerOrders, openAndPay, payOnStandIn, testCatalogue, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { ApiError, CreateOrderResponse, type CreateOrderRequest } from '../contract/shop-api.ts';
import { auditOrders } from './orders/audit.ts';
import type { SellablePlan } from './orders/plans.ts';

/**
 * An eSIM bought for the wrong destination, exchanged (issue 32 item 5) through the real API, the
 * Stripe SDK against its stand-in and the partner's stand-in: the old eSIM is refunded in full
 * only once the new one is delivered, by the refund rules, and never when it was installed meanwhile.
 */
const { catalogue, plans, PLAN } = testCatalogue();
const OTHER_PLACE = [...plans.values()].find((p) => p.destination.code !== PLAN.destination.code)!;
const SAME_PLACE = [...plans.values()].find((p) => p.destination.code === PLAN.destination.code && p.pkg.id !== PLAN.pkg.id)!;
const HOUR = 3600_000;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('exchange on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const { readOrder, open, delivered } = buyerOrders(call);
  const buy = async (token: string, plan: SellablePlan, overrides: Partial<CreateOrderRequest> = {}) =>
    (await openAndPay(() => open(token, plan, overrides), 201)).order;
  const refusal = async (response: Response) => {
    expect(response.status).toBe(409);
    const body = (await response.json()) as ApiError & { error: { reason: string } };
    return `${body.error.code}:${body.error.reason}`;
  };
  const refundsOf = (id: string) =>
    bed.db.query<{ reason: string; requested_by: string; amount_minor: number; status: string }>(
      'SELECT reason, requested_by, amount_minor, status FROM refunds WHERE order_id = $1',
      [id],
    );
  const intentOf = async (id: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        id,
      ])
    )[0]!.payment_intent_id;

  it('refunds the unused eSIM in full once the one for the meant destination is delivered, cancelling it at the partner', async () => {
    const buyer = await signUp();
    const wrong = await buy(buyer.idToken, PLAN);
    const before = await delivered(buyer.idToken, wrong.id);
    expect(before.esim).toMatchObject({ status: 'ready', refundable: true });

    const meant = await buy(buyer.idToken, OTHER_PLACE, { exchangeOf: wrong.id });
    await delivered(buyer.idToken, meant.id);
    const old = await waitFor(
      () => readOrder(buyer.idToken, wrong.id),
      (o) => o.state === 'refunded',
    );
    expect(old.esim).toMatchObject({ status: 'refunded', install: null });
    // The buyer's own refund, for the whole payment, with the exchange as its reason.
    expect(await refundsOf(wrong.id)).toEqual([
      { reason: 'exchanged', requested_by: 'buyer', amount_minor: wrong.total.amountMinor, status: 'succeeded' },
    ]);
    const atStripe = (await bed.stripe.refunds.list({ payment_intent: await intentOf(wrong.id) })).data;
    expect(atStripe.map((r) => r.amount)).toEqual([wrong.total.amountMinor]);
    // The new one is untouched, and the old eSIM was cancelled at the partner before the money went back.
    expect((await readOrder(buyer.idToken, meant.id)).state).toBe('delivered');
    expect(await refundsOf(meant.id)).toEqual([]);
    const oldTranNo = bed.stand.partner.tranNoOfTransaction(wrong.id)!;
    expect(
      bed.stand.partner.requests.some(
        (r) => r.call === 'esim/cancel' && r.status === 200 && (r.body as { esimTranNo?: string }).esimTranNo === oldTranNo,
      ),
    ).toBe(true);
    // The refund e-mail for the old order, after the new order's e-mail.
    await waitFor(
      async () => bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email)).length,
      (n) => n === 3,
    );
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
    // Exchanged once: that eSIM cannot be exchanged again.
    expect(await refusal(await open(buyer.idToken, OTHER_PLACE, { exchangeOf: wrong.id }))).toBe('not_exchangeable:not_refundable');
  });

  it('refuses, opening no order, an exchange for the same destination, of an eSIM not the buyer’s, or installed', async () => {
    const buyer = await signUp();
    const wrong = await buy(buyer.idToken, PLAN);
    await delivered(buyer.idToken, wrong.id);
    const count = async () => (await bed.db.query('SELECT 1 FROM orders WHERE uid = $1', [buyer.uid])).length;
    const orders = await count();
    expect(await refusal(await open(buyer.idToken, SAME_PLACE, { exchangeOf: wrong.id }))).toBe('not_exchangeable:same_destination');
    const stranger = await signUp();
    expect(await refusal(await open(stranger.idToken, OTHER_PLACE, { exchangeOf: wrong.id }))).toBe('not_exchangeable:not_refundable');
    expect(await count()).toBe(orders);

    // Installed after the exchange was paid for, before the new eSIM arrived: the old one stays the buyer's, nothing refunded (terms).
    const response = await open(buyer.idToken, OTHER_PLACE, { exchangeOf: wrong.id });
    const created = CreateOrderResponse.parse(await response.json());
    bed.stand.partner.markInstalled(bed.stand.partner.tranNoOfTransaction(wrong.id)!);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(buyer.idToken, created.order.id);
    await bed.handler.fulfilment.settled();
    await bed.handler.fulfilment.runDue();
    expect((await readOrder(buyer.idToken, wrong.id)).state).toBe('delivered');
    expect((await refundsOf(wrong.id)).filter((r) => r.status !== 'cancelled')).toEqual([]);
    expect((await bed.stripe.refunds.list({ payment_intent: await intentOf(wrong.id) })).data).toEqual([]);
    // And the installed eSIM is no longer exchangeable.
    expect(await refusal(await open(buyer.idToken, OTHER_PLACE, { exchangeOf: wrong.id }))).toBe('not_exchangeable:not_refundable');
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { buyerOrders, payOnStandIn, testCatalogue, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { OpsActionResult } from '../contract/ops-api.ts';
import { ApiError, CreateOrderResponse, EsimView, type CreateOrderRequest } from '../contract/shop-api.ts';
import { firebaseAccounts } from './auth.ts';
import { auditOrders } from './orders/audit.ts';
import type { SellablePlan } from './orders/plans.ts';

/**
 * One eSIM, one outcome (issue 46 items 1 and 2), through the real API, the Stripe SDK against its
 * stand-in and the partner's stand-in: a purchase ends kept, refunded, replaced or exchanged, never
 * two, whichever the buyer presses first and in whatever order, and an exchange of a replacement is
 * refused when it is opened instead of becoming a delivery that cannot finish.
 */
const { catalogue, plans, PLAN } = testCatalogue();
const OTHER_PLACE = [...plans.values()].find((p) => p.destination.code !== PLAN.destination.code)!;
const HOUR = 3600_000;
const accounts = firebaseAccounts('demo-esim');

// On both drivers (tests/support/databases.ts): a refund and a replacement at the same moment, decided in the database.
describe.each(databaseDrivers())('one outcome per purchase on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const { readOrder, open, delivered } = buyerOrders(call);
  async function opened(token: string, plan: SellablePlan, overrides: Partial<CreateOrderRequest> = {}) {
    const response = await open(token, plan, overrides);
    expect(response.status).toBe(201);
    return CreateOrderResponse.parse(await response.json());
  }
  async function deliveredEsim(token: string) {
    const created = await opened(token, PLAN);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(token, created.order.id);
    return created.order;
  }
  /** Installed and deleted before it carried data: refundable and replaceable both. */
  async function deletedUnused(token: string) {
    const order = await deliveredEsim(token);
    const tranNo = bed.stand.partner.tranNoOfTransaction(order.id)!;
    bed.stand.partner.installTo(tranNo, 'DOWNLOAD');
    bed.stand.partner.installTo(tranNo, 'DELETED');
    await waitFor(
      () => readOrder(token, order.id),
      (o) => o.esim?.installStep === 'deleted' && o.esim.refundable && o.esim.replaceable,
    );
    return order;
  }
  const replace = (token: string, id: string) => call(`/esims/${id}/replace?lang=en`, { method: 'POST', token });
  const refund = (token: string, id: string) => call(`/esims/${id}/refund?lang=en`, { method: 'POST', token });
  const intentOf = async (id: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        id,
      ])
    )[0]!.payment_intent_id;
  const refundedAtStripe = async (id: string) =>
    (await bed.stripe.refunds.list({ payment_intent: await intentOf(id) })).data.reduce((sum, r) => sum + r.amount, 0);
  const replacementOf = async (id: string) =>
    (await bed.db.query<{ id: string }>(`SELECT order_id AS id FROM order_links WHERE of_order_id = $1 AND link = 'replacement'`, [id]))[0]
      ?.id;
  const outcomeOf = async (id: string) =>
    (await bed.db.query<{ outcome: string }>('SELECT outcome FROM purchase_outcomes WHERE order_id = $1 AND voided_at IS NULL', [id]))[0]
      ?.outcome ?? 'kept';
  const settled = () => new Promise((resolve) => setTimeout(resolve, 1_500));

  it('the review’s case: an exchange opened, then a replacement, then the exchange paid: replaced, never also refunded', async () => {
    const buyer = await signUp();
    const first = await deletedUnused(buyer.idToken);
    const exchange = await opened(buyer.idToken, OTHER_PLACE, { exchangeOf: first.id });
    const replaced = await replace(buyer.idToken, first.id);
    expect(replaced.status).toBe(200);
    const replacement = EsimView.parse(await replaced.json());
    await delivered(buyer.idToken, replacement.id);
    expect((await payOnStandIn(exchange.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(buyer.idToken, exchange.order.id);
    await settled();

    // The buyer paid for the first eSIM and the exchange's, and holds the replacement and the exchange's: nothing back.
    expect(await outcomeOf(first.id)).toBe('replaced');
    expect(await refundedAtStripe(first.id)).toBe(0);
    expect((await readOrder(buyer.idToken, first.id)).state).toBe('delivered');
    const events = await bed.db.query<{ cause: string }>('SELECT cause FROM order_events WHERE order_id = $1', [exchange.order.id]);
    expect(events.map((e) => e.cause).join('\n')).toMatch(/exchange_not_refunded: .*replaced/);
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('a refund and a replacement pressed at the same moment: exactly one of them, whichever is decided first', async () => {
    for (let i = 0; i < 3; i++) {
      // A buyer each time: refunds and replacements share a few a minute per buyer.
      const buyer = await signUp();
      const order = await deletedUnused(buyer.idToken);
      const [refunded, replaced] = await Promise.all([refund(buyer.idToken, order.id), replace(buyer.idToken, order.id)]);
      const outcome = await outcomeOf(order.id);
      expect(outcome === 'refunded' || outcome === 'replaced').toBe(true);
      if (outcome === 'refunded') {
        expect(replaced.status).toBe(409);
        expect(await replacementOf(order.id)).toBeUndefined();
        await waitFor(
          () => refundedAtStripe(order.id),
          (back) => back === order.total.amountMinor,
        );
      } else {
        expect(refunded.status).toBe(409);
        expect(ApiError.parse(await refunded.json()).error.code).toBe('not_refundable');
        expect(await replacementOf(order.id)).toBeDefined();
        await settled();
        expect(await refundedAtStripe(order.id)).toBe(0);
      }
    }
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('refunded first: no replacement, and an exchange paid meanwhile refunds nothing more', async () => {
    const buyer = await signUp();
    const first = await deletedUnused(buyer.idToken);
    const exchange = await opened(buyer.idToken, OTHER_PLACE, { exchangeOf: first.id });
    expect((await refund(buyer.idToken, first.id)).status).toBe(200);
    expect((await replace(buyer.idToken, first.id)).status).toBe(409);
    expect((await payOnStandIn(exchange.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(buyer.idToken, exchange.order.id);
    await waitFor(
      () => readOrder(buyer.idToken, first.id),
      (o) => o.state === 'refunded',
    );
    await settled();
    expect(await refundedAtStripe(first.id)).toBe(first.total.amountMinor);
    expect(await outcomeOf(first.id)).toBe('refunded');
    expect(await replacementOf(first.id)).toBeUndefined();
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('exchanged first: the replacement is refused once the exchange’s refund is decided', async () => {
    const buyer = await signUp();
    const first = await deliveredEsim(buyer.idToken);
    const exchange = await opened(buyer.idToken, OTHER_PLACE, { exchangeOf: first.id });
    expect((await payOnStandIn(exchange.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(buyer.idToken, exchange.order.id);
    await waitFor(
      () => outcomeOf(first.id),
      (outcome) => outcome === 'exchanged',
    );
    expect((await replace(buyer.idToken, first.id)).status).toBe(409);
    await waitFor(
      () => refundedAtStripe(first.id),
      (back) => back === first.total.amountMinor,
    );
    expect(await replacementOf(first.id)).toBeUndefined();
  });

  it('an operator: a whole refund of a kept eSIM is its outcome (no replacement after it); a part of a replaced one changes none', async () => {
    const account = await signUp();
    await accounts.setRole(account.uid, 'admin');
    const admin = await signIn(account.email);
    const operatorRefund = async (orderId: string, amountMinor?: number) => {
      const body = { reason: 'support ticket', amountMinor, idempotencyKey: randomUUID() };
      const response = await call(`/ops/orders/${orderId}/refunds`, { method: 'POST', token: admin.idToken, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      return OpsActionResult.parse(await response.json()).outcome;
    };
    const buyer = await signUp();
    const kept = await deletedUnused(buyer.idToken);
    expect(await operatorRefund(kept.id)).toBe('done');
    expect(await outcomeOf(kept.id)).toBe('refunded');
    expect((await replace(buyer.idToken, kept.id)).status).toBe(409);
    expect(await replacementOf(kept.id)).toBeUndefined();

    const other = await signUp();
    const first = await deletedUnused(other.idToken);
    const replacement = EsimView.parse(await (await replace(other.idToken, first.id)).json());
    await delivered(other.idToken, replacement.id);
    expect(await operatorRefund(first.id, 100)).toBe('done');
    await waitFor(
      () => refundedAtStripe(first.id),
      (back) => back === 100,
    );
    expect(await outcomeOf(first.id)).toBe('replaced');
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('a replacement is neither refunded, replaced nor exchanged by its buyer: 409 with the reason, no order opened', async () => {
    const buyer = await signUp();
    const first = await deletedUnused(buyer.idToken);
    const replacement = EsimView.parse(await (await replace(buyer.idToken, first.id)).json());
    const after = await delivered(buyer.idToken, replacement.id);
    expect(after.esim).toMatchObject({ refundable: false, replaceable: false });
    expect((await replace(buyer.idToken, replacement.id)).status).toBe(409);
    expect((await refund(buyer.idToken, replacement.id)).status).toBe(409);
    const refused = await open(buyer.idToken, OTHER_PLACE, { exchangeOf: replacement.id });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as ApiError & { error: { reason: string } };
    expect(`${body.error.code}:${body.error.reason}`).toBe('not_exchangeable:replacement');
    expect(await bed.db.query(`SELECT 1 FROM order_links WHERE of_order_id = $1 AND link = 'exchange'`, [replacement.id])).toEqual([]);
    expect(await outcomeOf(first.id)).toBe('replaced');
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });
});

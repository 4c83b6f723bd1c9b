import { describe, expect, it } from 'vitest';
import { FAILURES } from '../../stand-ins/esim-access/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, testCatalogue, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { ApiError, CreateOrderResponse, EsimView, OrderView } from '../contract/shop-api.ts';
import { auditOrders } from './orders/audit.ts';

/**
 * An eSIM replaced at our cost (issue 32 item 3) through the real API, the Stripe SDK against its
 * stand-in and the partner's stand-in: never downloaded (cancelled at the partner first) or deleted
 * before it carried data (nothing to cancel), a new eSIM of the same plan with nothing paid, once;
 * a lost partner answer settled by reading; a replacement that cannot be delivered refunds the
 * order it replaces instead.
 */
const { catalogue, PLAN } = testCatalogue();
const HOUR = 3600_000;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('replacement on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=en`, { token })).json());
  const delivered = (token: string, id: string) =>
    waitFor(
      () => readOrder(token, id),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
  async function deliveredEsim(token: string) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) });
    const created = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    await delivered(token, created.order.id);
    return created.order;
  }
  const replace = (token: string, id: string) => call(`/esims/${id}/replace?lang=en`, { method: 'POST', token });
  const row = async (id: string) =>
    (
      await bed.db.query<{ amount_minor: number; replaces: string | null; state: string }>(
        `SELECT o.amount_minor, x.of_order_id AS replaces, o.state
         FROM orders o LEFT JOIN order_links x ON x.order_id = o.id AND x.link = 'replacement' WHERE o.id = $1`,
        [id],
      )
    )[0]!;
  const payments = async (id: string) => (await bed.db.query('SELECT 1 FROM payments WHERE order_id = $1', [id])).length;
  const cancels = (tranNo: string) =>
    bed.stand.partner.requests.filter((r) => r.call === 'esim/cancel' && (r.body as { esimTranNo?: string }).esimTranNo === tranNo);
  const ordersAtPartner = (transactionId: string) =>
    bed.stand.partner.requests.filter((r) => r.call === 'esim/order' && r.status === 200 && JSON.stringify(r.body).includes(transactionId))
      .length;
  const intentOf = async (id: string) =>
    (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`, [
        id,
      ])
    )[0]!.payment_intent_id;
  const mailsTo = (email: string) => bed.stand.smtp.messages.filter((m) => m.to.includes(email));

  it('replaces a never-downloaded eSIM with a new one of the same plan, at our cost, once: the old one cancelled first', async () => {
    const buyer = await signUp();
    const old = await deliveredEsim(buyer.idToken);
    const oldTranNo = bed.stand.partner.tranNoOfTransaction(old.id)!;
    const response = await replace(buyer.idToken, old.id);
    expect(response.status).toBe(200);
    const replacement = EsimView.parse(await response.json());
    expect(replacement.id).not.toBe(old.id);
    const after = await delivered(buyer.idToken, replacement.id);
    expect(after.esim).toMatchObject({ status: 'ready' });
    expect(after.plan.id).toBe(PLAN.pkg.id);
    // Recorded as ours: nothing paid, no payment, naming the order it replaces.
    expect(await row(replacement.id)).toMatchObject({ amount_minor: 0, replaces: old.id, state: 'delivered' });
    expect(await payments(replacement.id)).toBe(0);
    // The old eSIM was cancelled at the partner (which refunds us); nothing was refunded to the buyer.
    expect(cancels(oldTranNo).map((r) => r.status)).toEqual([200]);
    expect((await bed.stripe.refunds.list({ payment_intent: await intentOf(old.id) })).data).toEqual([]);
    const oldNow = await readOrder(buyer.idToken, old.id);
    expect(oldNow.state).toBe('delivered');
    expect(oldNow.esim).toMatchObject({ status: 'replaced', install: null, refundable: false });
    // Its own e-mail with the new codes.
    await waitFor(
      async () => mailsTo(buyer.email).length,
      (n) => n === 2,
    );
    // Asked again: the same replacement, no second eSIM.
    const again = EsimView.parse(await (await replace(buyer.idToken, old.id)).json());
    expect(again.id).toBe(replacement.id);
    expect(ordersAtPartner(replacement.id)).toBe(1);
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  /** A delivered eSIM downloaded and then deleted from the phone before it carried data, once the shop `sees` it so. */
  async function deletedBeforeData(token: string, sees: (o: OrderView) => boolean) {
    const esim = await deliveredEsim(token);
    const tranNo = bed.stand.partner.tranNoOfTransaction(esim.id)!;
    bed.stand.partner.installTo(tranNo, 'DOWNLOAD');
    bed.stand.partner.installTo(tranNo, 'DELETED');
    await waitFor(() => readOrder(token, esim.id), sees);
    return { esim, tranNo };
  }

  it('replaces, or refunds, an eSIM deleted from the phone before it carried data, with nothing to cancel; not one in use', async () => {
    const buyer = await signUp();
    const { esim: deleted, tranNo } = await deletedBeforeData(buyer.idToken, (o) => o.esim?.installStep === 'deleted');
    const response = await replace(buyer.idToken, deleted.id);
    expect(response.status).toBe(200);
    const replacement = EsimView.parse(await response.json());
    await delivered(buyer.idToken, replacement.id);
    expect(cancels(tranNo)).toEqual([]);
    expect(await row(replacement.id)).toMatchObject({ amount_minor: 0, replaces: deleted.id });

    // Or refunded in full, at our cost (the partner gives nothing back for a downloaded eSIM).
    const { esim: second, tranNo: secondTranNo } = await deletedBeforeData(buyer.idToken, (o) => o.esim?.refundable === true);
    expect((await call(`/esims/${second.id}/refund?lang=en`, { method: 'POST', token: buyer.idToken })).status).toBe(200);
    await waitFor(
      () => readOrder(buyer.idToken, second.id),
      (o) => o.state === 'refunded',
    );
    expect((await bed.stripe.refunds.list({ payment_intent: await intentOf(second.id) })).data.map((r) => r.amount)).toEqual([
      second.total.amountMinor,
    ]);
    expect(cancels(secondTranNo)).toEqual([]);

    // In use on a phone: neither replaced nor refunded; someone else's: not found.
    const used = await deliveredEsim(buyer.idToken);
    const usedTranNo = bed.stand.partner.tranNoOfTransaction(used.id)!;
    bed.stand.partner.setUsage(usedTranNo, 1_000_000);
    const refused = await replace(buyer.idToken, used.id);
    expect(refused.status).toBe(409);
    expect(ApiError.parse(await refused.json()).error.code).toBe('not_replaceable');
    const stranger = await signUp();
    expect((await replace(stranger.idToken, deleted.id)).status).toBe(404);
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('settles a lost answer to the replacement’s partner order by reading the partner: one eSIM', async () => {
    const buyer = await signUp();
    const old = await deliveredEsim(buyer.idToken);
    const before = bed.stand.partner.esimCount;
    bed.stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/order' });
    const replacement = EsimView.parse(await (await replace(buyer.idToken, old.id)).json());
    const after = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(buyer.idToken, replacement.id)),
      (o) => o.state === 'delivered' && !!o.esim?.install,
      15_000,
    );
    expect(after.state).toBe('delivered');
    // Applied at the partner, its answer lost: settled by reading (and a repeat of the same
    // transactionId answers the same partner order), so one eSIM was bought for it.
    expect(bed.stand.partner.esimCount - before).toBe(1);
    expect(bed.stand.partner.tranNoOfTransaction(replacement.id)).toBe(
      bed.stand.partner.esimTranNoOf((await readOrder(buyer.idToken, replacement.id)).esim!.iccid!),
    );
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });

  it('refunds the replaced order in full when its replacement cannot be delivered', async () => {
    const buyer = await signUp();
    const old = await deliveredEsim(buyer.idToken);
    // As many failures as the delivery has tries (tests/support/delivery-stand-ins.ts: three).
    bed.stand.partner.failNext(FAILURES.outOfStock, { count: 3, call: 'esim/order' });
    const replacement = EsimView.parse(await (await replace(buyer.idToken, old.id)).json());
    const refunded = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(buyer.idToken, old.id)),
      (o) => o.state === 'refunded',
      15_000,
    );
    expect(refunded.esim).toMatchObject({ status: 'refunded' });
    expect((await bed.stripe.refunds.list({ payment_intent: await intentOf(old.id) })).data.map((r) => r.amount)).toEqual([
      old.total.amountMinor,
    ]);
    expect(await row(replacement.id)).toMatchObject({ state: 'refunded', amount_minor: 0 });
    // The refund e-mail names the order that was paid for.
    const refundMail = await waitFor(
      async () => mailsTo(buyer.email).find((m) => m.text.includes(old.number)),
      (m) => m !== undefined && mailsTo(buyer.email).length === 2,
    );
    expect(refundMail).toBeDefined();
    expect(await auditOrders(bed.db, new Date(Date.now() + HOUR))).toEqual([]);
  });
});

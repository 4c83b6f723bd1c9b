import { describe, expect, it } from 'vitest';
import { FAILURES } from '../../stand-ins/esim-access/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { PARTNER_WEBHOOK_TOKEN } from '../../tests/support/delivery-stand-ins.ts';
import { orderRequest, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { AUDIT_GRACE_MS, auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';
import { buyersRefund } from './refunds/refund-command.ts';

/**
 * Found by the fault-injection run (seed 202026, `npm test`'s short run): a cancel the partner
 * applied whose answer was lost, and whose read-back failed too, stayed 'sent' in partner_writes
 * for ever when the partner's CANCEL notification marked the eSIM cancelled before the next try
 * (that try skipped the cancel, so nobody settled the write): the audit's partner_write_unsettled.
 * And by the run with both partners (seed 828539577): the same when the eSIM was deleted from the
 * phone before it carried data between two tries (the next try had nothing to cancel).
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4329';

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('a cancel read back from the partner on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 100, stripe: { retryDelaysMs: [100, 200, 400] } });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  /** A new buyer's paid order, delivered with its install codes, its run over. */
  async function deliveredOrder() {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) })).json(),
    );
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const id = created.order.id;
    await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(buyer.idToken, id)),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    await bed.handler.fulfilment.settled();
    return { buyer, id };
  }

  it('an eSIM the partner shows cancelled settles the cancel whose answer was lost: no write left unsettled', async () => {
    const { buyer, id } = await deliveredOrder();

    // The partner's notifications wait (a slow webhook); the cancel is applied and its answer lost,
    // and the read-back that should settle it fails as well: the try ends, the write still 'sent'.
    bed.stand.partner.setWebhookUrl(undefined);
    bed.stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/cancel' });
    bed.stand.partner.failNext({ status: 500 }, { call: 'esim/query' });
    await bed.handler.fulfilment.requestRefund(buyersRefund(id));
    const sent = await bed.db.query<{ outcome: string }>(
      `SELECT outcome FROM partner_writes WHERE order_id = $1 AND call = 'esim/cancel'`,
      [id],
    );
    expect(sent.map((w) => w.outcome)).toEqual(['sent']);

    // The partner's CANCEL notification arrives before the next try: the shop reads the eSIM cancelled.
    const cancel = bed.stand.partner.notifications.findLast(
      (n) => n.body.notifyType === 'ESIM_STATUS' && n.body.content['esimStatus'] === 'CANCEL',
    );
    expect(cancel).toBeDefined();
    const answer = await fetch(`${bed.api.url}/api/webhooks/partner/${PARTNER_WEBHOOK_TOKEN}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(cancel!.body),
    });
    expect(answer.status).toBe(200);
    bed.stand.connect(`${bed.api.url}/api`);

    const after = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(buyer.idToken, id)),
      (o) => o.state === 'refunded',
    );
    expect(after.state).toBe('refunded');
    const writes = await bed.db.query<{ outcome: string; detail: string }>(
      `SELECT outcome, detail FROM partner_writes WHERE order_id = $1 AND call = 'esim/cancel'`,
      [id],
    );
    expect(writes).toEqual([{ outcome: 'applied', detail: 'read back: cancelled' }]);
    // The audit, as if its grace for work in flight were over, finds nothing about this order.
    const findings = await auditOrders(bed.db, new Date(Date.now() + AUDIT_GRACE_MS + 60_000));
    expect(findings.filter((f) => f.orderId === id)).toEqual([]);
  });

  it('a cancel in doubt of an eSIM deleted from the phone before it carried data is settled by reading it, and the refund goes on', async () => {
    const { buyer, id } = await deliveredOrder();

    // The cancel fails in doubt (a 500, nothing applied) and so does its read-back: the write stays 'sent'.
    bed.stand.partner.failNext({ status: 500 }, { call: 'esim/cancel' });
    bed.stand.partner.failNext({ status: 500 }, { call: 'esim/query' });
    await bed.handler.fulfilment.requestRefund(buyersRefund(id));
    const outcomes = async () =>
      bed.db.query<{ outcome: string; detail: string | null }>(
        `SELECT outcome, detail FROM partner_writes WHERE order_id = $1 AND call = 'esim/cancel'`,
        [id],
      );
    expect((await outcomes()).map((w) => w.outcome)).toEqual(['sent']);

    // Meanwhile the traveller's phone downloads the eSIM and deletes it, before it carried data: nothing to cancel.
    const tranNo = bed.stand.partner.tranNoOfTransaction(id)!;
    bed.stand.partner.installTo(tranNo, 'DOWNLOAD');
    bed.stand.partner.installTo(tranNo, 'DELETED');
    await waitFor(
      async () => (await bed.db.query<{ install_step: string }>('SELECT install_step FROM esims WHERE order_id = $1', [id]))[0],
      (row) => row?.install_step === 'deleted',
    );

    const after = await waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(buyer.idToken, id)),
      (o) => o.state === 'refunded',
    );
    expect(after.state).toBe('refunded');
    expect(await outcomes()).toEqual([{ outcome: 'refused', detail: expect.stringMatching(/^read back: .*deleted from the phone/) }]);
    const findings = await auditOrders(bed.db, new Date(Date.now() + AUDIT_GRACE_MS + 60_000));
    expect(findings.filter((f) => f.orderId === id)).toEqual([]);
  });
});

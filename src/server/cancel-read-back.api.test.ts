import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { FAILURES } from '../../stand-ins/esim-access/server.ts';
import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../../stand-ins/stripe/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { PARTNER_WEBHOOK_TOKEN, startDeliveryStandIns, type DeliveryStandIns } from '../../tests/support/delivery-stand-ins.ts';
import { apiCaller, orderRequest, payOnStandIn, testShopApi, waitFor } from '../../tests/support/shop-api.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import type { ShopApi } from './wiring.ts';
import type { Db } from './db/db.ts';
import { AUDIT_GRACE_MS, auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';
import { createStripe } from './payments/stripe.ts';

/**
 * Found by the fault-injection run (seed 202026, `npm test`'s short run): a cancel the partner
 * applied whose answer was lost, and whose read-back failed too, stayed 'sent' in partner_writes
 * for ever when the partner's CANCEL notification marked the eSIM cancelled before the next try
 * (that try skipped the cancel, so nobody settled the write): the audit's partner_write_unsettled.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4329';

describe.each(databaseDrivers())('a cancel read back from the partner on $name', (driver) => {
  let db: Db;
  let stand: DeliveryStandIns;
  let stripeStandIn: Awaited<ReturnType<typeof startStripeStandIn>>;
  let stripe: Stripe;
  let handler: ShopApi;
  let api: Awaited<ReturnType<typeof serveApi>>;

  beforeAll(async () => {
    process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('authEmulatorHost');
    db = await driver.open();
    stand = await startDeliveryStandIns({ allocationDelayMs: 100 });
    api = await serveApi(() => Promise.resolve(new Response(null, { status: 503 })));
    const port = Number(new URL(api.url).port);
    stripeStandIn = await startStripeStandIn({ webhookUrl: `${api.url}/api/webhooks/stripe`, webhookSecret: STAND_IN_WEBHOOK_SECRET, retryDelaysMs: [100, 200, 400] });
    stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: stripeStandIn.url });
    await api.close();
    handler = testShopApi({ catalogue, db, stripe, siteUrl: SITE, ...stand.options });
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

  it('an eSIM the partner shows cancelled settles the cancel whose answer was lost: no write left unsettled', async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) })).json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const id = created.order.id;
    await waitFor(() => handler.fulfilment.reconcile().then(() => readOrder(buyer.idToken, id)), (o) => o.state === 'delivered' && !!o.esim?.install);
    await handler.fulfilment.settled();

    // The partner's notifications wait (a slow webhook); the cancel is applied and its answer lost,
    // and the read-back that should settle it fails as well: the try ends, the write still 'sent'.
    stand.partner.setWebhookUrl(undefined);
    stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/cancel' });
    stand.partner.failNext({ status: 500 }, { call: 'esim/query' });
    await handler.fulfilment.requestRefund(id);
    const sent = await db.query<{ outcome: string }>(`SELECT outcome FROM partner_writes WHERE order_id = $1 AND call = 'esim/cancel'`, [id]);
    expect(sent.map((w) => w.outcome)).toEqual(['sent']);

    // The partner's CANCEL notification arrives before the next try: the shop reads the eSIM cancelled.
    const cancel = stand.partner.notifications.findLast((n) => n.body.notifyType === 'ESIM_STATUS' && n.body.content['esimStatus'] === 'CANCEL');
    expect(cancel).toBeDefined();
    const answer = await fetch(`${api.url}/api/webhooks/partner/${PARTNER_WEBHOOK_TOKEN}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(cancel!.body) });
    expect(answer.status).toBe(200);
    stand.connect(`${api.url}/api`);

    const after = await waitFor(() => handler.fulfilment.reconcile().then(() => readOrder(buyer.idToken, id)), (o) => o.state === 'refunded');
    expect(after.state).toBe('refunded');
    const writes = await db.query<{ outcome: string; detail: string }>(`SELECT outcome, detail FROM partner_writes WHERE order_id = $1 AND call = 'esim/cancel'`, [id]);
    expect(writes).toEqual([{ outcome: 'applied', detail: 'read back: cancelled' }]);
    // The audit, as if its grace for work in flight were over, finds nothing about this order.
    const findings = await auditOrders(db, new Date(Date.now() + AUDIT_GRACE_MS + 60_000));
    expect(findings.filter((f) => f.orderId === id)).toEqual([]);
  });
});

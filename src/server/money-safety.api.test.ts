import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { FAILURES, startEsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { offeredTopUps, orderRequest, payOnStandIn, topUpRequest, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ApiError, CreateOrderResponse, OrderView, type CreateOrderRequest } from '../contract/shop-api.ts';
import type { ShopApi } from './wiring.ts';
import { auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';
import { createEsimAccessPartner } from './partner/esim-access/adapter.ts';
import { buyersRefund } from './refunds/refund-command.ts';

/**
 * Money under faults (issue 20): answers lost after the partner applied a write, a second API
 * instance on the same database, a profile that belongs to another order, a partner price above
 * the price sold. Each ends with the buyer delivered or refunded exactly once.
 */
const catalogue = embeddedSnapshot();
const plans = sellablePlans(catalogue);
const PLAN = plans.get('de-1gb-7d')!;
const BIGGER = [...plans.values()].find((p) => p.destination.code === 'DE' && p.pkg.id !== PLAN.pkg.id)!;
const SITE = 'http://127.0.0.1:4329';

// On both drivers (tests/support/databases.ts): two API instances claiming work on one database, top-ups at the same moment.
describe.each(databaseDrivers())('money under faults on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 200 });
  const { call } = bed;
  /** Another API process on the same port (the client's pooled connections to the old one notice it first). */
  async function restartApi(next: ShopApi) {
    await bed.api.close();
    await new Promise((r) => setTimeout(r, 300));
    bed.api = await serveApi(next, Number(new URL(bed.api.url).port));
  }
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const events = async (id: string) =>
    (await bed.db.query<{ to_state: string }>('SELECT to_state FROM order_events WHERE order_id = $1 ORDER BY id', [id])).map(
      (e) => e.to_state,
    );
  const tranNo = (orderId: string) => bed.stand.partner.tranNoOfTransaction(orderId)!;
  const partnerStatus = async (orderId: string) =>
    (await bed.stand.esimAccess.queryProfiles({ esimTranNo: tranNo(orderId) })) as {
      status: 'ready';
      profiles: { status: string; totalBytes: number }[];
    };
  const refundsOf = async (orderId: string) => {
    const [payment] = await bed.db.query<{ payment_intent_id: string }>(
      `SELECT payment_intent_id FROM payments WHERE order_id = $1 AND status = 'paid'`,
      [orderId],
    );
    return (await bed.stripe.refunds.list({ payment_intent: payment!.payment_intent_id })).data;
  };
  /** Runs the reconcile job until the order reaches a state in `states`. */
  const settlesIn = (token: string, id: string, states: string[], ms = 15_000) =>
    waitFor(
      () => bed.handler.fulfilment.runDue().then(() => readOrder(token, id)),
      (o) => states.includes(o.state),
      ms,
    );

  async function buy(token: string, request: CreateOrderRequest = orderRequest(PLAN)) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
    const body: unknown = await response.json();
    expect(response.status, JSON.stringify(body)).toBeLessThan(300);
    const created = CreateOrderResponse.parse(body);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    return created.order;
  }
  const deliveredEsim = async (token: string, request?: CreateOrderRequest) => {
    const order = await buy(token, request);
    const after = await waitFor(
      () => readOrder(token, order.id),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    expect(after.state).toBe('delivered');
    return order;
  };

  /** Runs `work` while the partner's notifications reach nobody (they are only hints, and get lost). */
  async function withoutPartnerNotifications<T>(work: () => Promise<T>): Promise<T> {
    bed.stand.partner.setWebhookUrl(undefined);
    try {
      return await work();
    } finally {
      bed.stand.connect(`${bed.api.url}/api`);
    }
  }

  /** A delivered eSIM the buyer installed, once the partner's notification has reached the shop. */
  const installedEsim = async (token: string) => {
    const order = await deliveredEsim(token);
    bed.stand.partner.markInstalled(tranNo(order.id));
    await waitFor(
      () => readOrder(token, order.id),
      (o) => o.esim?.status === 'active',
    );
    return order;
  };

  it('a cancel whose answer was lost still ends refunded: the partner is read, not guessed', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    bed.stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/cancel' });
    // Its CANCEL notification is lost too: only a read of the partner can tell.
    const after = await withoutPartnerNotifications(async () => {
      await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
      return settlesIn(buyer.idToken, order.id, ['refunded', 'delivered']);
    });
    expect(after.state).toBe('refunded');
    expect((await partnerStatus(order.id)).profiles[0]!.status).toBe('cancelled');
    expect((await refundsOf(order.id)).map((r) => r.amount)).toEqual([order.total.amountMinor]);
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered', 'refund_requested', 'refunded']);
  });

  it('an eSIM cancelled at the partner before a crash was recorded is refunded on the next try', async () => {
    const buyer = await signUp();
    const order = await deliveredEsim(buyer.idToken);
    // The refund was under way: the partner applied the cancel, and the process died before it wrote anything down.
    const after = await withoutPartnerNotifications(async () => {
      await bed.stand.esimAccess.cancelProfile(tranNo(order.id));
      await bed.handler.fulfilment.requestRefund(buyersRefund(order.id));
      return settlesIn(buyer.idToken, order.id, ['refunded', 'delivered']);
    });
    expect(after.state).toBe('refunded');
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it.each(['same', 'refuse'] as const)(
    'an order whose answer was lost is delivered once, whatever a repeated order answers (%s)',
    async (answer) => {
      bed.stand.partner.setRepeatedOrderAnswer(answer);
      try {
        const buyer = await signUp();
        const before = bed.stand.partner.esimCount;
        bed.stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/order' });
        const order = await buy(buyer.idToken);
        const after = await settlesIn(buyer.idToken, order.id, ['delivered', 'refunded']);
        expect(after.state).toBe('delivered');
        expect(bed.stand.partner.esimCount - before).toBe(1);
        const writes = await bed.db.query<{ outcome: string }>(
          `SELECT outcome FROM partner_writes WHERE order_id = $1 AND call = 'esim/order'`,
          [order.id],
        );
        expect(writes.map((w) => w.outcome)).toEqual(['applied']);
      } finally {
        bed.stand.partner.setRepeatedOrderAnswer('same');
      }
    },
  );

  it('a top-up whose answer was lost is not sent again once the partner shows it applied, and sent again when it shows it was not', async () => {
    const buyer = await signUp();
    const base = await installedEsim(buyer.idToken);
    const totalBefore = (await partnerStatus(base.id)).profiles[0]!.totalBytes;
    // Two of the partner's own top-ups of this eSIM (whole gigabytes).
    const [small, larger] = await offeredTopUps(bed.api.url, buyer.idToken, base.id);
    const added = small!.dataAmount.value * 2 ** 30;

    // Applied, answer lost.
    bed.stand.partner.failNext(FAILURES.lostAnswer, { call: 'esim/topup' });
    const first = await buy(buyer.idToken, topUpRequest(small!, base.id));
    expect((await settlesIn(buyer.idToken, first.id, ['delivered', 'refunded'])).state).toBe('delivered');
    expect(bed.stand.partner.topUpsApplied(first.id)).toBe(1);

    // Refused before it was applied (a 503): the read shows nothing added, so it is sent again, once.
    bed.stand.partner.failNext({ status: 503 }, { call: 'esim/topup' });
    const second = await buy(buyer.idToken, topUpRequest(larger!, base.id));
    expect((await settlesIn(buyer.idToken, second.id, ['delivered', 'refunded'])).state).toBe('delivered');
    expect(bed.stand.partner.topUpsApplied(second.id)).toBe(1);
    const addedToo = larger!.dataAmount.value * 2 ** 30;
    expect((await partnerStatus(base.id)).profiles[0]!.totalBytes).toBe(totalBefore + added + addedToo);
    const writes = await bed.db.query<{ outcome: string }>(`SELECT outcome FROM partner_writes WHERE order_id = $1 ORDER BY id`, [
      second.id,
    ]);
    expect(writes.map((w) => w.outcome)).toEqual(['refused', 'applied']);
  });

  it("two top-ups of one eSIM at the same moment, one answer lost before it was applied: each applied once, none delivered on the other's data", async () => {
    const buyer = await signUp();
    const base = await installedEsim(buyer.idToken);
    const totalBefore = (await partnerStatus(base.id)).profiles[0]!.totalBytes;
    const [small, larger] = await offeredTopUps(bed.api.url, buyer.idToken, base.id);
    // The partner reads slowly, so both deliveries are under way at once; the first top-up sent
    // loses its connection before the partner applied it (issue 29, defect 1).
    bed.stand.partner.failNext({ delayMs: 400 }, { call: 'esim/query', count: 4 });
    bed.stand.partner.failNext({ drop: true }, { call: 'esim/topup' });
    const both = await Promise.all([small!, larger!].map((plan) => buy(buyer.idToken, topUpRequest(plan, base.id))));
    for (const topUp of both) {
      expect((await settlesIn(buyer.idToken, topUp.id, ['delivered', 'refunded'])).state).toBe('delivered');
      expect(bed.stand.partner.topUpsApplied(topUp.id), topUp.id).toBe(1);
    }
    const added = (small!.dataAmount.value + larger!.dataAmount.value) * 2 ** 30;
    expect((await partnerStatus(base.id)).profiles[0]!.totalBytes).toBe(totalBefore + added);
    // Each write read the totals while it alone could change them: no two applied writes saw the same total.
    const applied = await bed.db.query<{ before_total_bytes: string }>(
      `SELECT before_total_bytes FROM partner_writes WHERE order_id IN ($1, $2) AND outcome = 'applied'`,
      [both[0]!.id, both[1]!.id],
    );
    expect(new Set(applied.map((w) => Number(w.before_total_bytes))).size).toBe(2);
  });

  it('two API instances on one database never work on one order at once: the claim is renewed while a slow partner answers', async () => {
    // Both instances hold an order 300 ms unless renewed; the partner takes 1.5 s to top up.
    const short = { ...bed.stand.options.delivery, leaseMs: 300 };
    const first = bed.build({ delivery: short });
    const second = bed.build({ delivery: short });
    await restartApi(first);
    try {
      const buyer = await signUp();
      const base = await installedEsim(buyer.idToken);
      const [cheapest] = await offeredTopUps(bed.api.url, buyer.idToken, base.id);
      bed.stand.partner.failNext({ delayMs: 1_500 }, { call: 'esim/topup' });
      const topUp = await buy(buyer.idToken, topUpRequest(cheapest!, base.id));
      const deadline = Date.now() + 2_500;
      while (Date.now() < deadline) {
        await second.fulfilment.runDue();
        await new Promise((r) => setTimeout(r, 100));
      }
      await first.fulfilment.settled();
      await second.fulfilment.settled();
      expect((await readOrder(buyer.idToken, topUp.id)).state).toBe('delivered');
      expect(bed.stand.partner.topUpsApplied(topUp.id)).toBe(1);
      expect((await events(topUp.id)).filter((s) => s === 'delivered')).toHaveLength(1);
    } finally {
      await restartApi(bed.handler);
    }
  });

  it("a profile that is another order's is an error the order survives: retried, then refunded, never 'delivered' without an eSIM", async () => {
    const first = await signUp();
    const taken = await deliveredEsim(first.idToken);
    const [{ partner_order_no: takenPartnerOrder }] = (await bed.db.query<{ partner_order_no: string }>(
      'SELECT partner_order_no FROM order_sourcing WHERE order_id = $1',
      [taken.id],
    )) as [{ partner_order_no: string }];

    // The second order's first partner call fails; before its next try, it points at the first order's partner order.
    const buyer = await signUp();
    bed.stand.partner.failNext({ status: 500 }, { call: 'esim/order' });
    const order = await buy(buyer.idToken);
    await waitFor(
      () => bed.db.query<{ last_error: string | null }>('SELECT last_error FROM jobs WHERE order_id = $1', [order.id]),
      ([o]) => !!o?.last_error,
    );
    await bed.db.query('UPDATE order_sourcing SET partner_order_no = $2 WHERE order_id = $1', [order.id, takenPartnerOrder]);

    const after = await settlesIn(buyer.idToken, order.id, ['refunded', 'delivered']);
    expect(after.state).toBe('refunded');
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'fulfilment_failed', 'refunded']);
    // The delivery's last error goes with its move to fulfilment_failed (the job ended with the refund).
    const [row] = await bed.db.query<{ last_error: string }>(
      `SELECT cause AS last_error FROM order_events WHERE order_id = $1 AND to_state = 'fulfilment_failed'`,
      [order.id],
    );
    expect(row!.last_error).toContain("already another order's");
    expect(await refundsOf(order.id)).toHaveLength(1);
    // The first buyer keeps their eSIM.
    expect((await readOrder(first.idToken, taken.id)).esim?.install).toBeTruthy();
  });

  it('orders from the partner at the price sold: a partner price rise is refused by the partner and ends in a refund with its reason', async () => {
    const buyer = await signUp();
    const pkg = bed.stand.partner.packages.find((p) => p.packageCode === BIGGER.pkg.partnerCode)! as { price: number };
    const sold = pkg.price;
    pkg.price = sold + 10_000;
    try {
      const order = await buy(buyer.idToken, orderRequest(BIGGER));
      const after = await settlesIn(buyer.idToken, order.id, ['refunded', 'delivered']);
      expect(after.state).toBe('refunded');
      const sent = bed.stand.partner.requests.filter(
        (r) => r.call === 'esim/order' && (r.body as { transactionId?: string }).transactionId === order.id,
      );
      expect(sent.length).toBeGreaterThan(0);
      expect((sent[0]!.body as { packageInfoList: { price: number }[] }).packageInfoList[0]!.price).toBe(sold);
      // The delivery's last error goes with its move to fulfilment_failed (the job ended with the refund).
      const [row] = await bed.db.query<{ last_error: string }>(
        `SELECT cause AS last_error FROM order_events WHERE order_id = $1 AND to_state = 'fulfilment_failed'`,
        [order.id],
      );
      expect(row!.last_error).toContain('200005');
      expect(await refundsOf(order.id)).toHaveLength(1);
    } finally {
      pkg.price = sold;
    }
  });

  it('a payment whose webhook Stripe gave up delivering is found by the reconcile job at Stripe, and delivered', async () => {
    const buyer = await signUp();
    const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    const created = CreateOrderResponse.parse(await response.json());
    // The API is down while the buyer pays, longer than the stand-in retries its webhook (Stripe: 3 days).
    await bed.payWhileDown(created.checkoutUrl);
    expect((await readOrder(buyer.idToken, created.order.id)).state).toBe('pending_payment');
    // A couple of minutes later the job asks Stripe about the page itself.
    await bed.db.query(`UPDATE orders SET created_at = created_at - interval '3 minutes' WHERE id = $1`, [created.order.id]);
    const after = await waitFor(
      () => bed.handler.reconcile().then(() => readOrder(buyer.idToken, created.order.id)),
      (o) => o.state === 'delivered',
    );
    expect(after.state).toBe('delivered');
    expect(after.paymentMethod).toMatchObject({ type: 'card' });
    expect(await events(created.order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered']);
  });

  it('a payment that does not match its order, or matches no order, is given back and recorded, never kept', async () => {
    const buyer = await signUp();
    const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    const created = CreateOrderResponse.parse(await response.json());
    // The order's amount is not what its payment page charges (a bug, a tampered row): the payment cannot pay for it.
    await bed.db.query('UPDATE orders SET amount_minor = amount_minor + 100 WHERE id = $1', [created.order.id]);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    // A session of ours for an order the shop does not know.
    const stranger = await bed.stripe.checkout.sessions.create({
      mode: 'payment',
      client_reference_id: randomUUID(),
      success_url: `${SITE}/ok`,
      expires_at: Math.floor(Date.now() / 1000) + 31 * 60,
      line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 777, product_data: { name: 'x' } } }],
    });
    expect((await payOnStandIn(stranger.url!, '4242424242424242')).status).toBe(303);

    const mismatches = await waitFor(
      () =>
        bed.handler
          .reconcile()
          .then(() =>
            bed.db.query<{ checkout_session_id: string; reason: string; refund_id: string | null; amount_minor: number }>(
              'SELECT checkout_session_id, reason, refund_id, amount_minor FROM payment_mismatches WHERE checkout_session_id = ANY($1::text[]) ORDER BY id',
              [[new URL(created.checkoutUrl).pathname.split('/').pop(), stranger.id]],
            ),
          ),
      (rows) => rows.length === 2 && rows.every((r) => r.refund_id),
    );
    expect(mismatches.map((m) => [m.reason, !!m.refund_id])).toEqual([
      ['amount_differs', true],
      ['unknown_order', true],
    ]);
    for (const m of mismatches) {
      const session = await bed.stripe.checkout.sessions.retrieve(m.checkout_session_id);
      const refunds = (await bed.stripe.refunds.list({ payment_intent: session.payment_intent as string })).data;
      expect(refunds.map((r) => r.amount)).toEqual([m.amount_minor]);
    }
    // The order was not paid by it: nothing is delivered for it.
    expect((await readOrder(buyer.idToken, created.order.id)).state).toBe('pending_payment');
  });

  it('an order still being prepared when its buyer deletes the account is refunded, not delivered to nobody', async () => {
    const buyer = await signUp();
    bed.stand.partner.failNext({ delayMs: 600 }, { call: 'esim/order' });
    const order = await buy(buyer.idToken);
    await waitFor(
      () => bed.db.query<{ state: string }>('SELECT state FROM orders WHERE id = $1', [order.id]),
      ([o]) => o?.state === 'provisioning',
    );
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    await waitFor(
      () =>
        bed.handler.fulfilment.runDue().then(() => bed.db.query<{ state: string }>('SELECT state FROM orders WHERE id = $1', [order.id])),
      ([o]) => o?.state === 'refunded',
      15_000,
    );
    expect(await events(order.id)).toEqual(['pending_payment', 'paid', 'provisioning', 'delivered', 'refund_requested', 'refunded']);
    expect((await partnerStatus(order.id)).profiles[0]!.status).toBe('cancelled');
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it("stops selling cleanly when the partner's prepaid balance runs dry: the buyer refunded, orders paused with a clear answer, the audit names it, selling resumes once topped up", async () => {
    const buyer = await signUp();
    bed.stand.partner.setBalance(PLAN.pkg.wholesaleUsdE4 - 1);
    const order = await buy(buyer.idToken);
    const after = await settlesIn(buyer.idToken, order.id, ['refunded', 'delivered']);
    expect(after.state).toBe('refunded');
    expect(await refundsOf(order.id)).toHaveLength(1);
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email), 10_000);
    expect(mail.subject).toContain(order.number);

    // No more money taken that would only be given back.
    const paused = await call('/orders', { method: 'POST', token: (await signUp()).idToken, body: JSON.stringify(orderRequest(BIGGER)) });
    expect(paused.status).toBe(503);
    expect(ApiError.parse(await paused.json()).error.code).toBe('sales_paused');
    const findings = await auditOrders(bed.db);
    expect(findings.filter((f) => f.invariant === 'sales_paused').map((f) => f.orderId)).toEqual([order.id]);

    // Topped up: the next balance check (at most once a minute) resumes selling.
    bed.stand.partner.setBalance(1_000_000_000);
    await bed.db.query('UPDATE sales_pauses SET checked_at = NULL');
    await bed.handler.reconcile();
    expect((await auditOrders(bed.db)).filter((f) => f.invariant === 'sales_paused')).toEqual([]);
    expect((await deliveredEsim(buyer.idToken, orderRequest(BIGGER))).id).toBeTruthy();
  });
});

describe('the eSIM Access stand-in', () => {
  it('never hands out an esimTranNo twice, not even after a restart on the same day', async () => {
    const account = { accessCode: 'a', secretKey: 'k', allocationDelayMs: 0 };
    const seen = new Set<string>();
    for (let run = 0; run < 2; run++) {
      const standIn = await startEsimAccessStandIn(account);
      const partner = createEsimAccessPartner({ ...account, baseUrl: standIn.url, retries: 0 });
      const code = standIn.packages[0]!.packageCode;
      for (let i = 0; i < 3; i++) {
        await partner.orderEsim({ transactionId: `run-${run}-${i}`, partnerCode: code, count: 1 });
        const tranNo = standIn.tranNoOfTransaction(`run-${run}-${i}`)!;
        expect(seen.has(tranNo)).toBe(false);
        seen.add(tranNo);
      }
      await standIn.close();
    }
    expect(seen.size).toBe(6);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { firebaseAccounts } from './auth.ts';
import { OpsActionResult, OpsDashboard, OpsOrder, OpsOrderList } from '../contract/ops-api.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { openAndPay, orderRequest, topUpRequest } from '../../tests/support/shop-api.ts';
import { testCatalogue, untilDelivered, untilInstalled, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { FAILURES, startEsimGoStandIn, type EsimGoStandIn } from '../../stand-ins/esim-go/server.ts';
import type { Snapshot } from '../catalogue/schema.ts';
import { EsimList, OrderView, TopUpPlans, type CreateOrderRequest } from '../contract/shop-api.ts';
import { createEsimGoPartner } from './partner/esim-go/adapter.ts';
import { partnerRegistry, ESIM_ACCESS } from './partner/registry.ts';
import { ESIM_GO } from './partner/esim-go/config.ts';
import { esimGoModule } from './partner/esim-go/module.ts';
import { releasePartnerOrphans } from './reconcile/partner-orphans.ts';
import { pauseSales } from './orders/sales-pause.ts';

/**
 * The shop with both partners (issue 48 items 1 and 4): an order goes to the cheapest partner whose
 * margin holds, recorded with that partner's code and price; its eSIM is that partner's, and every
 * later call for it (usage, the diagnosis, a top-up, the refund's cancel, the partner's callbacks)
 * goes to that partner, never to the other. Over HTTP, with both partners' stand-ins.
 */
const SITE = 'http://127.0.0.1:4341';
const API_KEY = 'test-esim-go-api-key';
const GO_BUNDLE = 'esim_1GB_7D_DE_V2';
const base = testCatalogue();
let esimGo: EsimGoStandIn;
/** How long eSIM Go's deliveries under way would take at its budget's rate, as this instance's registry is told (a rush, for the routing test). */
let goBacklogSeconds = 0;

/** The test catalogue, with eSIM Go offering Germany 1 GB 7 days at its stand-in's price, below eSIM Access's. */
function withEsimGoOffer(catalogue: Snapshot, goUsd: number): Snapshot {
  return {
    ...catalogue,
    packages: catalogue.packages.map((pkg) =>
      pkg.id === base.PLAN.pkg.id
        ? {
            ...pkg,
            offers: [
              { partner: ESIM_ACCESS, partnerCode: pkg.partnerCode, wholesaleUsdE4: pkg.wholesaleUsdE4 },
              { partner: ESIM_GO, partnerCode: GO_BUNDLE, wholesaleUsdE4: Math.round(goUsd * 10_000) },
            ],
          }
        : pkg,
    ),
  };
}
/** eSIM Go's price of the plan, USD: a fifth below eSIM Access's, in cents as eSIM Go prices. */
const GO_USD = Math.round((base.PLAN.pkg.wholesaleUsdE4 * 0.8) / 100) / 100;
const catalogue = withEsimGoOffer(base.catalogue, GO_USD);

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('two partners on $name', (driver) => {
  beforeAll(async () => {
    esimGo = await startEsimGoStandIn({ apiKey: API_KEY });
    esimGo.setPrice(GO_BUNDLE, GO_USD);
  });
  // Registered before the test bed's, so it runs after the bed's own (hooks after tests run in reverse).
  afterAll(async () => esimGo?.close());
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: SITE,
    allocationDelayMs: 200,
    api: (stand) => ({
      partners: partnerRegistry(
        {
          [ESIM_ACCESS]: stand.esimAccess,
          [ESIM_GO]: createEsimGoPartner({ apiKey: API_KEY, baseUrl: esimGo.url, retries: 0 }),
        },
        { budgets: { [ESIM_GO]: { secondsFor: () => goBacklogSeconds } } },
      ),
      partnerCallbacks: { [ESIM_GO]: esimGoModule.fromEnv({ ESIM_GO_API_KEY: API_KEY })!.callbacks! },
    }),
  });
  // eSIM Go's callbacks reach the API under test (signed with the key it was built with).
  beforeAll(() => esimGo.setCallbackUrl(`${bed.api.url}/api/webhooks/esim-go`));
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const postOrder = (token: string, request: CreateOrderRequest) =>
    call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
  const sourcing = async (orderId: string) =>
    (
      await bed.db.query<{ partner: string; partner_code: string; wholesale_usd_e4: number }>(
        'SELECT partner, partner_code, wholesale_usd_e4 FROM order_sourcing WHERE order_id = $1',
        [orderId],
      )
    )[0];
  /** eSIM Access's calls naming this transaction or eSIM. */
  const atEsimAccess = (orderId: string) => bed.stand.partner.requests.filter((r) => JSON.stringify(r.body ?? {}).includes(orderId));
  const goCalls = (iccid: string) => esimGo.requests.filter((r) => r.path.includes(iccid) || JSON.stringify(r.body ?? {}).includes(iccid));

  it('orders from the cheaper partner, and every later call for its eSIM goes to that partner', async () => {
    const buyer = await signUp();
    const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
    const read = () => readOrder(buyer.idToken, order.id);
    const delivered = await untilDelivered(read);

    // Sourced at eSIM Go, with its code and its price of the moment; the eSIM is eSIM Go's, labelled with our order.
    expect(await sourcing(order.id)).toEqual({ partner: ESIM_GO, partner_code: GO_BUNDLE, wholesale_usd_e4: Math.round(GO_USD * 10_000) });
    const iccid = esimGo.iccidOfTransaction(order.id)!;
    expect(iccid).toBeDefined();
    expect(await bed.db.query('SELECT partner, iccid FROM esims WHERE order_id = $1', [order.id])).toEqual([{ partner: ESIM_GO, iccid }]);
    expect(delivered.esim?.install?.lpa).toMatch(/^LPA:1\$/);
    expect(esimGo.ordersPlaced().filter((o) => o.iccids.includes(iccid))).toHaveLength(1);
    expect(atEsimAccess(order.id)).toEqual([]);
    // The back office names the order's partner.
    const support = await signUp();
    await firebaseAccounts('demo-esim').setRole(support.uid, 'support');
    const { idToken } = await signIn(support.email);
    const page = OpsOrder.parse(await (await call(`/ops/orders/${order.id}`, { token: idToken })).json());
    expect(page.order).toMatchObject({ partner: 'eSIM Go', partnerOrderNo: expect.any(String) });
    // Its list filters by partner, and names each order's.
    const opsList = async (partner: string) =>
      OpsOrderList.parse(await (await call(`/ops/orders?partner=${partner}`, { token: idToken })).json());
    const atGo = await opsList(ESIM_GO);
    expect(atGo.partners).toEqual([
      { id: ESIM_ACCESS, name: 'eSIM Access' },
      { id: ESIM_GO, name: 'eSIM Go' },
    ]);
    expect(atGo.orders.find((o) => o.id === order.id)?.partner).toBe('eSIM Go');
    expect(atGo.orders.every((o) => o.partner === 'eSIM Go')).toBe(true);
    expect((await opsList(ESIM_ACCESS)).orders.map((o) => o.id)).not.toContain(order.id);

    // The phone installs it and uses data: eSIM Go's signed callbacks reach the shop, which reads eSIM Go back.
    await untilInstalled(read, () => esimGo.installEsim(iccid, 'Installed'));
    esimGo.useData(iccid, 300 * 1_000_000);
    // The install, the first use and the use so far: each answered by the shop.
    const answered = await waitFor(
      async () => esimGo.callbacks.filter((c) => c.body.includes(iccid)),
      (callbacks) => callbacks.length >= 3 && callbacks.every((c) => c.status !== null),
    );
    expect(answered.map((c) => [c.status, JSON.parse(c.body).alertType])).toEqual([
      [200, 'ProfileStatusChange'],
      [200, 'FirstUse'],
      [200, 'Utilisation'],
    ]);

    // My eSIMs' data use and the diagnosis read eSIM Go.
    const before = goCalls(iccid).length;
    await bed.db.query(`UPDATE esims SET usage_checked_at = now() - interval '1 hour', state_read_at = NULL WHERE order_id = $1`, [
      order.id,
    ]);
    const listed = EsimList.parse(await (await call('/esims?lang=de', { token: buyer.idToken })).json()).esims;
    expect(listed.find((e) => e.id === order.id)?.usage?.usedBytes).toBeGreaterThan(0);
    expect((await call(`/esims/${order.id}/diagnosis?lang=de`, { token: buyer.idToken })).status).toBe(200);
    expect(goCalls(iccid).length).toBeGreaterThan(before);

    // Its top-ups are eSIM Go's, and the one bought is applied there.
    const offered = TopUpPlans.parse(await (await call(`/esims/${order.id}/top-ups?lang=de`, { token: buyer.idToken })).json());
    expect(offered.plans.length).toBeGreaterThan(0);
    const { order: topUp } = await openAndPay(() => postOrder(buyer.idToken, topUpRequest(offered.plans[0]!, order.id)));
    await untilDelivered(() => readOrder(buyer.idToken, topUp.id));
    expect((await sourcing(topUp.id))?.partner).toBe(ESIM_GO);
    expect(esimGo.ordersPlaced().filter((o) => o.iccids.includes(iccid))).toHaveLength(2);
    expect(atEsimAccess(order.id).concat(atEsimAccess(topUp.id))).toEqual([]);
  });

  it('cancels an unused eSIM at its own partner when its buyer asks for the refund', async () => {
    const buyer = await signUp();
    const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
    await untilDelivered(() => readOrder(buyer.idToken, order.id));
    const iccid = esimGo.iccidOfTransaction(order.id)!;
    const balance = esimGo.balance;

    const refund = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(refund.status).toBe(200);
    await waitFor(
      async () => (await readOrder(buyer.idToken, order.id)).state,
      (state) => state === 'refunded',
    );
    // eSIM Go refunded the unused bundle to our balance; eSIM Access was never asked.
    expect(esimGo.balance).toBeCloseTo(balance + GO_USD, 2);
    expect(esimGo.esim(iccid)?.inAccount).toBe(false);
    expect(atEsimAccess(order.id)).toEqual([]);
  });

  it('fails over to the other partner when the cheaper one refuses (out of balance), with one eSIM and the refusal on record, and pauses only that partner until it is topped up', async () => {
    const buyer = await signUp();
    const balance = esimGo.balance;
    esimGo.setBalance(0);
    try {
      const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      const delivered = await untilDelivered(() => readOrder(buyer.idToken, order.id));
      expect(delivered.esim?.install?.lpa).toMatch(/^LPA:1\$/);
      // Delivered by eSIM Access at its own price; eSIM Go sold nothing.
      expect(await sourcing(order.id)).toEqual({
        partner: ESIM_ACCESS,
        partner_code: base.PLAN.pkg.partnerCode,
        wholesale_usd_e4: base.PLAN.pkg.wholesaleUsdE4,
      });
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      expect(bed.stand.partner.tranNoOfTransaction(order.id)).toBeDefined();
      expect(
        await bed.db.query('SELECT partner, outcome FROM partner_writes WHERE order_id = $1 AND call = $2 ORDER BY id', [
          order.id,
          'esim/order',
        ]),
      ).toEqual([
        { partner: ESIM_GO, outcome: 'refused' },
        { partner: ESIM_ACCESS, outcome: 'applied' },
      ]);

      // eSIM Go alone is paused for want of balance: the shop still sells, and the next order goes
      // to eSIM Access from the start, nothing sent to eSIM Go.
      expect(await bed.db.query('SELECT partner FROM sales_pauses WHERE cleared_at IS NULL')).toEqual([{ partner: ESIM_GO }]);
      const admin = await signUp();
      await firebaseAccounts('demo-esim').setRole(admin.uid, 'admin');
      const { idToken } = await signIn(admin.email);
      const dashboard = OpsDashboard.parse(await (await call('/ops/dashboard', { token: idToken })).json());
      expect(dashboard.salesPause).toBeNull();
      expect(dashboard.partners.map((p) => [p.name, p.balanceUsd, p.pausedSince !== null])).toEqual([
        ['eSIM Access', expect.any(Number), false],
        ['eSIM Go', 0, true],
      ]);
      const sentToGo = esimGo.requests.length;
      const { order: next } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      await untilDelivered(() => readOrder(buyer.idToken, next.id));
      expect((await sourcing(next.id))?.partner).toBe(ESIM_ACCESS);
      expect(esimGo.requests.slice(sentToGo).filter((r) => r.call.startsWith('POST'))).toEqual([]);

      // Topped up: the reconcile job reads eSIM Go's balance (at most once a minute) and orders go to it again.
      esimGo.setBalance(balance);
      await bed.db.query(`UPDATE sales_pauses SET checked_at = now() - interval '2 minutes' WHERE cleared_at IS NULL`);
      await bed.handler.reconcile();
      expect(await bed.db.query('SELECT partner FROM sales_pauses WHERE cleared_at IS NULL')).toEqual([]);
      const { order: resumed } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      await untilDelivered(() => readOrder(buyer.idToken, resumed.id));
      expect((await sourcing(resumed.id))?.partner).toBe(ESIM_GO);
    } finally {
      esimGo.setBalance(balance);
      await bed.db.query('UPDATE sales_pauses SET cleared_at = now() WHERE cleared_at IS NULL');
    }
  });

  it('sends an order to the other partner once its own, read back, does not hold it and its last send has been quiet for a minute: one eSIM', async () => {
    const buyer = await signUp();
    // eSIM Go's transactions never arrive (each connection drops before it acts); its reads answer.
    esimGo.failNext(
      { drop: true },
      { count: 1_000, call: 'POST /orders', where: (body) => (body as { type?: string }).type === 'transaction' },
    );
    try {
      const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      const writes = () =>
        bed.db.query<{ partner: string; outcome: string; detail: string | null }>(
          `SELECT partner, outcome, detail FROM partner_writes WHERE order_id = $1 AND call = 'esim/order' ORDER BY id`,
          [order.id],
        );
      const job = async () =>
        (await bed.db.query<{ last_error: string | null }>('SELECT last_error FROM jobs WHERE order_id = $1', [order.id]))[0];
      // Its first try over: the transaction sent and dropped.
      await waitFor(job, (row) => Boolean(row?.last_error));
      const transactionsToGo = () =>
        esimGo.requests.filter((r) => r.call === 'POST /orders' && (r.body as { type?: string }).type === 'transaction').length;
      const sentToGo = transactionsToGo();
      expect(sentToGo).toBeGreaterThan(0);
      // First sent two minutes ago, and sent again 30 s ago, as if every try since had failed as these
      // do: that last send may still be on its way, so the next try sends nothing, here or elsewhere.
      await bed.db.query(
        `UPDATE partner_writes SET sent_at = sent_at - interval '2 minutes', last_sent_at = now() - interval '30 seconds' WHERE order_id = $1`,
        [order.id],
      );
      const waiting = await waitFor(
        async () => {
          await bed.handler.reconcile();
          return job();
        },
        (row) => /may still be on its way/.test(row?.last_error ?? ''),
      );
      expect(waiting?.last_error).toMatch(/may still be on its way/);
      expect(transactionsToGo()).toBe(sentToGo);
      expect(bed.stand.partner.tranNoOfTransaction(order.id)).toBeUndefined();
      expect((await writes()).map((w) => w.outcome)).toEqual(['sent']);
      // Quiet for a minute since: its next try sends it to eSIM Access.
      await bed.db.query(`UPDATE partner_writes SET last_sent_at = now() - interval '2 minutes' WHERE order_id = $1`, [order.id]);
      await untilDelivered(async () => {
        await bed.handler.reconcile();
        return readOrder(buyer.idToken, order.id);
      });
      expect(await sourcing(order.id)).toMatchObject({ partner: ESIM_ACCESS });
      expect(await writes()).toEqual([
        { partner: ESIM_GO, outcome: 'refused', detail: 'read back: no order' },
        { partner: ESIM_ACCESS, outcome: 'applied', detail: expect.any(String) },
      ]);
      // One eSIM: eSIM Go sold none, eSIM Access one.
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      expect(esimGo.ordersPlaced().filter((o) => o.iccids.some((iccid) => esimGo.esim(iccid)?.customerRef === order.id))).toEqual([]);
      expect(bed.stand.partner.tranNoOfTransaction(order.id)).toBeDefined();
    } finally {
      esimGo.recover();
    }
  });

  it('sends an order to the other partner in the same try when its own is down (its connection refused: nothing reached it), one eSIM', async () => {
    const buyer = await signUp();
    const sentToGo = esimGo.requests.length;
    await esimGo.setReachable(false);
    try {
      const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      const delivered = await untilDelivered(() => readOrder(buyer.idToken, order.id));
      expect(delivered.esim?.install?.lpa).toMatch(/^LPA:1\$/);
      expect(await sourcing(order.id)).toMatchObject({ partner: ESIM_ACCESS });
      expect(
        await bed.db.query(`SELECT partner, outcome, detail FROM partner_writes WHERE order_id = $1 AND call = 'esim/order' ORDER BY id`, [
          order.id,
        ]),
      ).toEqual([
        { partner: ESIM_GO, outcome: 'refused', detail: expect.stringMatching(/not sent/) },
        { partner: ESIM_ACCESS, outcome: 'applied', detail: expect.any(String) },
      ]);
      // Delivered in its first try: no try failed, none waited for eSIM Go.
      expect(await bed.db.query('SELECT attempts FROM jobs WHERE order_id = $1', [order.id])).toEqual([{ attempts: 0 }]);
    } finally {
      await esimGo.setReachable(true);
    }
    // Nothing reached eSIM Go meanwhile.
    expect(esimGo.requests.length).toBe(sentToGo);
  });

  it('refunds to eSIM Go’s balance the eSIM a lost answer bought that no order claims, once, leaving the order’s own', async () => {
    const buyer = await signUp();
    // The transaction is applied, its answer lost before the label: the delivery buys again.
    esimGo.failNext(FAILURES.lostAnswer, { call: 'POST /orders', where: (body) => (body as { type?: string }).type === 'transaction' });
    const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
    await untilDelivered(async () => {
      await bed.handler.reconcile();
      return readOrder(buyer.idToken, order.id);
    });
    const iccid = esimGo.iccidOfTransaction(order.id)!;
    const lost = esimGo.ordersPlaced().find((o) => !o.iccids.includes(iccid) && !esimGo.esim(o.iccids[0]!)?.customerRef)!;
    expect(lost).toBeDefined();

    // An hour on, the reconcile job's sweep: the unlabelled eSIM is released and refunded, on record.
    const partners = partnerRegistry({
      [ESIM_ACCESS]: bed.stand.esimAccess,
      [ESIM_GO]: createEsimGoPartner({ apiKey: API_KEY, baseUrl: esimGo.url, retries: 0 }),
    });
    const anHourOn = new Date(Date.now() + 2 * 60 * 60_000);
    const balance = esimGo.balance;
    // The release is applied, its answer lost: the sweep fails, the orphan on record and unsettled.
    esimGo.failNext(FAILURES.lostAnswer, {
      call: 'DELETE /esims/{iccid}/bundles/{name}',
      where: (_body, query) => query.get('type') !== 'validate',
    });
    await expect(releasePartnerOrphans(bed.db, partners, anHourOn)).rejects.toThrow(/no answer/);
    expect(esimGo.balance).toBeCloseTo(balance + lost.total, 2);
    expect(await bed.db.query('SELECT outcome FROM partner_orphans WHERE partner_order_no = $1', [lost.orderReference])).toEqual([
      { outcome: null },
    ]);
    // The next sweep no longer finds it among the orphans (it left the account), reads it back: released.
    expect(await releasePartnerOrphans(bed.db, partners, anHourOn)).toBe(1);
    expect(esimGo.balance).toBeCloseTo(balance + lost.total, 2);
    expect(
      await bed.db.query('SELECT partner, esim_key, partner_order_no, outcome FROM partner_orphans WHERE partner_order_no = $1', [
        lost.orderReference,
      ]),
    ).toEqual([{ partner: ESIM_GO, esim_key: `${lost.iccids[0]}:`, partner_order_no: lost.orderReference, outcome: 'released' }]);
    // The order's own eSIM is untouched, and a second sweep releases nothing more.
    expect(esimGo.esim(iccid)).toMatchObject({ customerRef: order.id, inAccount: true });
    expect(await releasePartnerOrphans(bed.db, partners, anHourOn)).toBe(0);
    expect(esimGo.balance).toBeCloseTo(balance + lost.total, 2);
  });

  it("spreads a rush: while the cheaper partner's requests wait too long for its budget, a paid order goes to the other, nothing sent to the busy one", async () => {
    const buyer = await signUp();
    // Placed while eSIM Go is idle: sourced there; paid once its requests wait 5 s (a sale-day queue).
    const placed = await postOrder(buyer.idToken, orderRequest(base.PLAN));
    const { order } = await openAndPay(async () => {
      expect(await sourcing((await placed.clone().json()).order.id)).toMatchObject({ partner: ESIM_GO });
      goBacklogSeconds = 5;
      return placed;
    });
    try {
      await untilDelivered(() => readOrder(buyer.idToken, order.id));
      // Delivered by eSIM Access, at its price; eSIM Go was never asked for it.
      expect(await sourcing(order.id)).toEqual({
        partner: ESIM_ACCESS,
        partner_code: base.PLAN.pkg.partnerCode,
        wholesale_usd_e4: base.PLAN.pkg.wholesaleUsdE4,
      });
      expect(atEsimAccess(order.id).map((r) => r.call)).toContain('esim/order');
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      expect(esimGo.requests.filter((r) => JSON.stringify(r).includes(order.id))).toEqual([]);
      // A new order while the queue lasts is placed at eSIM Access already.
      const next = await (await postOrder(buyer.idToken, orderRequest(base.PLAN))).json();
      expect(await sourcing(next.order.id)).toMatchObject({ partner: ESIM_ACCESS });
    } finally {
      goBacklogSeconds = 0;
    }
    // The queue gone: the cheaper partner again.
    const after = await (await postOrder((await signUp()).idToken, orderRequest(base.PLAN))).json();
    expect(await sourcing(after.order.id)).toMatchObject({ partner: ESIM_GO });
  });

  it('sends a paid order to the other partner before anything is sent when its own was paused after the order was placed', async () => {
    const buyer = await signUp();
    try {
      const { order } = await openAndPay(async () => {
        const placed = await postOrder(buyer.idToken, orderRequest(base.PLAN));
        // Placed at eSIM Go; eSIM Go then runs dry for another order before this one is paid.
        await pauseSales(bed.db, ESIM_GO, 10_000);
        return placed;
      });
      await untilDelivered(() => readOrder(buyer.idToken, order.id));
      expect((await sourcing(order.id))?.partner).toBe(ESIM_ACCESS);
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      // Nothing was sent to eSIM Go for it: its only write is eSIM Access's.
      expect(await bed.db.query('SELECT partner, outcome FROM partner_writes WHERE order_id = $1', [order.id])).toEqual([
        { partner: ESIM_ACCESS, outcome: 'applied' },
      ]);
    } finally {
      await bed.db.query('UPDATE sales_pauses SET cleared_at = now() WHERE cleared_at IS NULL');
    }
  });

  it('delivers a stuck order through the other partner on an operator’s word, only once nothing can be at its own', async () => {
    const buyer = await signUp();
    const support = await signUp();
    await firebaseAccounts('demo-esim').setRole(support.uid, 'support');
    const { idToken } = await signIn(support.email);
    const act = async (orderId: string, key: string) =>
      OpsActionResult.parse(
        await (
          await call(`/ops/orders/${orderId}/deliver-elsewhere`, {
            method: 'POST',
            token: idToken,
            body: JSON.stringify({ reason: 'eSIM Go keeps failing', idempotencyKey: key }),
          })
        ).json(),
      );
    // eSIM Go answers every order with a server error: the order waits, its write not known to be applied or not.
    esimGo.failNext(FAILURES.serverError, { call: 'POST /orders', count: 1_000 });
    try {
      const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      await waitFor(
        () => bed.db.query(`SELECT 1 FROM partner_writes WHERE order_id = $1 AND outcome = 'sent'`, [order.id]),
        (rows) => rows.length > 0,
      );
      expect(await act(order.id, `first-${order.id}`)).toMatchObject({
        outcome: 'refused',
        detail: expect.stringContaining('eSIM Go may hold'),
      });
      expect((await sourcing(order.id))?.partner).toBe(ESIM_GO);

      // Read back at eSIM Go, holding nothing (what the delivery's next try records when eSIM Go answers it).
      await bed.db.query(`UPDATE partner_writes SET outcome = 'refused' WHERE order_id = $1 AND outcome = 'sent'`, [order.id]);
      const result = await act(order.id, `second-${order.id}`);
      expect(result).toMatchObject({ outcome: 'done', detail: expect.stringContaining('eSIM Go → eSIM Access') });
      const delivered = await untilDelivered(() => readOrder(buyer.idToken, order.id));
      expect(delivered.esim?.install?.lpa).toMatch(/^LPA:1\$/);
      expect((await sourcing(order.id))?.partner).toBe(ESIM_ACCESS);
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      expect(
        await bed.db.query(`SELECT action, reason, outcome FROM operator_actions WHERE order_id = $1 ORDER BY id`, [order.id]),
      ).toEqual([
        { action: 'deliver_elsewhere', reason: 'eSIM Go keeps failing', outcome: 'refused' },
        { action: 'deliver_elsewhere', reason: 'eSIM Go keeps failing', outcome: 'done' },
      ]);
    } finally {
      esimGo.recover();
    }
  });

  it('refunds as before when no partner can deliver: both refuse', async () => {
    const buyer = await signUp();
    const balance = esimGo.balance;
    const accessBalance = await bed.stand.esimAccess.balance();
    esimGo.setBalance(0);
    bed.stand.partner.setBalance(0);
    try {
      const { order } = await openAndPay(() => postOrder(buyer.idToken, orderRequest(base.PLAN)));
      await waitFor(
        async () => (await readOrder(buyer.idToken, order.id)).state,
        (state) => state === 'refunded',
        20_000,
      );
      expect(esimGo.iccidOfTransaction(order.id)).toBeUndefined();
      expect(bed.stand.partner.tranNoOfTransaction(order.id)).toBeUndefined();
    } finally {
      esimGo.setBalance(balance);
      bed.stand.partner.setBalance(accessBalance);
      await bed.db.query('UPDATE sales_pauses SET cleared_at = now() WHERE cleared_at IS NULL');
    }
  });
});

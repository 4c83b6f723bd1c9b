import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { FAILURES } from '../../stand-ins/esim-access/server.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { esimAccessOnly, PARTNER_WEBHOOK_TOKEN } from '../../tests/support/delivery-stand-ins.ts';
import { callEsimAccess } from '../../tests/support/esim-access-requests.ts';
import { waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { TERMS_VERSION } from '../contract/shop-api.ts';
import { sellablePlans } from './orders/plans.ts';
import { createOrderStore } from './orders/store.ts';
import { createEsimAccessPartner } from './partner/esim-access/adapter.ts';

/**
 * The eSIM partner's webhook over HTTP (issue 20, item 6): its secret token never reaches a log,
 * a notification is recorded handled only once its work is done (a failed one is handled when
 * the partner delivers it again), and 'the profiles are ready' is answered at once while the
 * delivery goes on in the background. The API runs on PostgreSQL (a server and PGlite) with the
 * eSIM Access and SMTP stand-ins; no payment provider is needed (orders are made paid directly).
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4329';
/** The stand-ins' account (tests/support/delivery-stand-ins.ts). */
const ACCOUNT = { accessCode: 'test-access-code', secretKey: 'test-secret-key' };
/** How long the adapter waits for a partner that does not answer. */
const PARTNER_TIMEOUT_MS = 4_000;
const RECONCILE_TOKEN = 'test-reconcile-token';

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('partner webhook on $name', (driver) => {
  // No Stripe: no test here pays or refunds. The partner stand-in's own notifications are not
  // sent anywhere: each test sends the ones it means.
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: SITE,
    allocationDelayMs: 100,
    stripe: false,
    partnerNotifications: false,
    api: (standIns) => ({
      partners: esimAccessOnly(
        createEsimAccessPartner({ ...ACCOUNT, baseUrl: standIns.partner.url, retries: 0, timeoutMs: PARTNER_TIMEOUT_MS }),
      ),
      reconcileToken: RECONCILE_TOKEN,
    }),
  });
  const { call } = bed;
  const notify = (body: unknown) => call(`/webhooks/partner/${PARTNER_WEBHOOK_TOKEN}`, { method: 'POST', body: JSON.stringify(body) });
  const store = () => createOrderStore(bed.db);
  const orderRow = async (id: string) => (await store().byId(bed.db, id))!;
  /** The order's job (jobs/queue.ts): its failed tries and last error; none once it is done. */
  const jobOf = async (id: string) =>
    (
      await bed.db.query<{ attempts: number; last_error: string | null }>('SELECT attempts, last_error FROM jobs WHERE order_id = $1', [id])
    )[0] ?? {
      attempts: 0,
      last_error: null,
    };

  /** A paid order of a German plan, as the Stripe webhook leaves it. */
  async function paidOrder(): Promise<string> {
    const { pkg } = PLAN;
    const { order } = await store().openOrder({
      uid: `buyer-${randomUUID()}`,
      email: 'buyer@example.test',
      emailVerified: true,
      plan: {
        id: pkg.id,
        metadata: pkg.metadata,
        validity: pkg.validity,
        validityUnit: pkg.validityUnit,
        supportedCountries: pkg.supportedCountries,
      },
      destination: PLAN.destination.code,
      partner: 'esim-access',
      partnerCode: pkg.partnerCode,
      wholesaleUsdE4: pkg.wholesaleUsdE4,
      price: PLAN.price,
      lang: 'de',
      termsVersion: TERMS_VERSION,
      consentedAt: new Date(),
      topUpOf: null,
      tripStartsOn: null,
      exchangeOf: null,
    });
    await bed.db.transaction((tx) => store().move(tx, order.id, 'paid', 'test: paid'));
    return order.id;
  }

  /** Runs the delivery until the order is delivered (the reconcile job's way); answers its eSIM's esimTranNo. */
  async function deliver(id: string): Promise<string> {
    const state = await waitFor(
      () => bed.handler.fulfilment.runDue().then(async () => (await orderRow(id)).state),
      (s) => s === 'delivered',
      15_000,
    );
    expect(state).toBe('delivered');
    const [esim] = await bed.db.query<{ esim_tran_no: string }>('SELECT esim_tran_no FROM esims WHERE order_id = $1', [id]);
    return esim!.esim_tran_no;
  }

  const statusNotification = (esimTranNo: string) => ({
    notifyType: 'ESIM_STATUS',
    notifyId: `status-${randomUUID()}`,
    content: { esimTranNo, esimStatus: 'IN_USE', smdpStatus: 'ENABLED' },
  });
  const queriesOf = (esimTranNo: string) =>
    bed.stand.partner.requests.filter((r) => r.call === 'esim/query' && (r.body as { esimTranNo?: string }).esimTranNo === esimTranNo)
      .length;

  // Issue 20, item 7: lengths were compared in characters and the secrets in UTF-8 bytes, so a
  // non-ASCII guess as long as the secret threw (500), and 404 or 500 told the secret's length.
  const lengths = (secret: string) => [1, secret.length - 1, secret.length, secret.length + 1, secret.length * 2];

  it('answers 404, never 500, to a wrong webhook token of any script and length', async () => {
    const ready = {
      notifyType: 'ORDER_STATUS',
      notifyId: `n-${randomUUID()}`,
      content: { orderNo: 'B-1', transactionId: randomUUID(), orderStatus: 'GOT_RESOURCE' },
    };
    for (const length of lengths(PARTNER_WEBHOOK_TOKEN)) {
      for (const unit of ['a', 'é', '日', '😀']) {
        const token = unit.repeat(length);
        const response = await call(`/webhooks/partner/${encodeURIComponent(token)}`, { method: 'POST', body: JSON.stringify(ready) });
        expect([response.status, `${length}×${unit}`]).toEqual([404, `${length}×${unit}`]);
        expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
      }
    }
    expect(
      bed.stand.partner.requests.filter((r) => (r.body as { transactionId?: string }).transactionId === ready.content.transactionId),
    ).toEqual([]);
  });

  it("answers 404, never 500, to a wrong reconcile job's bearer token of any script and length", async () => {
    // A header carries Latin-1 only: 'é' and 'ß' are two bytes each in UTF-8.
    for (const length of lengths(RECONCILE_TOKEN)) {
      for (const unit of ['a', 'é', 'ß']) {
        const response = await call('/jobs/reconcile', { method: 'POST', token: unit.repeat(length) });
        expect([response.status, `${length}×${unit}`]).toEqual([404, `${length}×${unit}`]);
      }
    }
    expect((await call('/jobs/reconcile', { method: 'POST', token: RECONCILE_TOKEN })).status).toBe(200);
  });

  it('never logs its secret token when a notification fails: the route pattern instead', async () => {
    const esimTranNo = await deliver(await paidOrder());
    bed.stand.partner.failNext(FAILURES.serverError, { call: 'esim/query' });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    let logged: string;
    let status: number;
    try {
      status = (await notify(statusNotification(esimTranNo))).status;
      logged = errors.mock.calls
        .map((args) => args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 5 }))).join(' '))
        .join('\n');
    } finally {
      errors.mockRestore();
    }
    expect(status).toBe(500);
    // The failure was logged, naming the route, not the URL that carries the token.
    expect(logged).toContain('/api/webhooks/partner/:token');
    expect(logged).not.toContain(PARTNER_WEBHOOK_TOKEN);
  });

  it('records a notification handled only after its work: one that failed is handled when the partner sends it again', async () => {
    const id = await paidOrder();
    const esimTranNo = await deliver(id);
    const notification = statusNotification(esimTranNo);
    bed.stand.partner.failNext(FAILURES.serverError, { call: 'esim/query' });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect((await notify(notification)).status).toBeGreaterThanOrEqual(500);
    } finally {
      vi.restoreAllMocks();
    }
    const asked = queriesOf(esimTranNo);

    // The traveller installed it meanwhile; the partner sends the same notification again.
    bed.stand.partner.markInstalled(esimTranNo);
    const again = await notify(notification);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ received: true, outcome: 'handled' });
    // Handled: the partner was asked again, and what it said is stored.
    expect(queriesOf(esimTranNo)).toBe(asked + 1);
    const [esim] = await bed.db.query<{ installed: boolean }>('SELECT installed FROM esims WHERE esim_tran_no = $1', [esimTranNo]);
    expect(esim!.installed).toBe(true);
    // Now it is done, a third delivery is a replay and asks nothing.
    expect(await (await notify(notification)).json()).toMatchObject({ outcome: 'replay' });
    expect(queriesOf(esimTranNo)).toBe(asked + 1);
  });

  /** What the partner sent since `from` (its notifications are not posted anywhere here: a test forwards them). */
  const sentSince = (from: number, type?: string) =>
    bed.stand.partner.notifications
      .slice(from)
      .map((n) => n.body)
      .filter((body) => !type || body.notifyType === type);
  const esimRow = async (esimTranNo: string) =>
    (
      await bed.db.query<{ status: string; installed: boolean; expires_at: Date; install_step: string | null }>(
        'SELECT status, installed, expires_at, install_step FROM esims WHERE esim_tran_no = $1',
        [esimTranNo],
      )
    )[0]!;

  it("takes a downloaded eSIM's SMDP_EVENT as installed, so not refundable; each new install step is read back once, a repeat asks nothing (issue 22)", async () => {
    const esimTranNo = await deliver(await paidOrder());
    const from = bed.stand.partner.notifications.length;
    // The phone downloads the profile: the partner still says GOT_RESOURCE, with smdpStatus DOWNLOAD.
    bed.stand.partner.installTo(esimTranNo, 'DOWNLOAD');
    const [download] = sentSince(from, 'SMDP_EVENT');
    const asked = queriesOf(esimTranNo);
    expect(await (await notify(download)).json()).toMatchObject({ received: true, outcome: 'handled' });
    expect(queriesOf(esimTranNo)).toBe(asked + 1);
    expect(await esimRow(esimTranNo)).toMatchObject({ status: 'installed', installed: true, install_step: 'downloaded' });
    // The same step again (the partner repeats its SM-DP+ events): nothing new, nothing asked.
    expect(await (await notify({ ...download, notifyId: `again-${randomUUID()}` })).json()).toMatchObject({ outcome: 'ignored' });
    expect(queriesOf(esimTranNo)).toBe(asked + 1);

    // Installation and enabling, one at a time: each a step My eSIMs shows, read back once.
    for (const [stage, step] of [
      ['INSTALLATION', 'installed'],
      ['ENABLED', 'enabled'],
    ] as const) {
      const before = bed.stand.partner.notifications.length;
      bed.stand.partner.installTo(esimTranNo, stage);
      const [event] = sentSince(before, 'SMDP_EVENT');
      expect(event!.content['smdpStatus']).toBe(stage);
      expect(await (await notify(event)).json()).toMatchObject({ received: true, outcome: 'handled' });
      expect(await esimRow(esimTranNo)).toMatchObject({ install_step: step });
    }
    expect(queriesOf(esimTranNo)).toBe(asked + 3);

    // First use: its SMDP_EVENT tells the step (read back); the ESIM_STATUS after it then says what is stored.
    const used = bed.stand.partner.notifications.length;
    bed.stand.partner.installTo(esimTranNo, 'IN_USE');
    const [inUse, status] = sentSince(used);
    expect([inUse!.notifyType, status!.notifyType]).toEqual(['SMDP_EVENT', 'ESIM_STATUS']);
    expect(await (await notify(inUse)).json()).toMatchObject({ outcome: 'handled' });
    expect(await (await notify(status)).json()).toMatchObject({ outcome: 'ignored' });
    expect(queriesOf(esimTranNo)).toBe(asked + 4);
    expect(await esimRow(esimTranNo)).toMatchObject({ status: 'active', installed: true, install_step: 'in_use' });
    // Another ESIM_STATUS saying what is stored already: nothing to ask.
    expect(await (await notify({ ...status, notifyId: `again-${randomUUID()}` })).json()).toMatchObject({ outcome: 'ignored' });
    expect(queriesOf(esimTranNo)).toBe(asked + 4);
  });

  it('reads a VALIDITY_USAGE without esimTranNo (the older shape) for the eSIM of its ICCID and order, though ICCIDs are reused', async () => {
    const earlier = await deliver(await paidOrder());
    const esimTranNo = await deliver(await paidOrder());
    // The partner hands out ICCIDs again: the earlier eSIM had this one before.
    const { iccid } = (await bed.db.query<{ iccid: string }>('SELECT iccid FROM esims WHERE esim_tran_no = $1', [esimTranNo]))[0]!;
    await bed.db.query('UPDATE esims SET iccid = $1 WHERE esim_tran_no = $2', [iccid, earlier]);
    bed.stand.partner.markInstalled(esimTranNo);
    const from = bed.stand.partner.notifications.length;
    bed.stand.partner.sendValidityUsage(esimTranNo, 'older');
    const [validity] = sentSince(from, 'VALIDITY_USAGE');
    expect(validity!.content).not.toHaveProperty('esimTranNo');
    expect(validity).not.toHaveProperty('notifyId');

    const asked = { earlier: queriesOf(earlier), current: queriesOf(esimTranNo) };
    expect(await (await notify(validity)).json()).toMatchObject({ received: true, outcome: 'handled' });
    expect({ earlier: queriesOf(earlier), current: queriesOf(esimTranNo) }).toEqual({ earlier: asked.earlier, current: asked.current + 1 });
    // What the partner says now is stored: its validity ends within a day.
    const row = await esimRow(esimTranNo);
    expect(row.status).toBe('active');
    expect(row.expires_at.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);

    // By its ICCID alone, no order named: the newest eSIM with that ICCID.
    const { orderNo: _, transactionId: __, ...onlyIccid } = validity!.content;
    expect(await (await notify({ ...validity, content: onlyIccid })).json()).toMatchObject({ outcome: 'handled' });
    expect({ earlier: queriesOf(earlier), current: queriesOf(esimTranNo) }).toEqual({ earlier: asked.earlier, current: asked.current + 2 });
  });

  it("answers the partner's CHECK_HEALTH when the webhook is registered (webhook/save), and does nothing else", async () => {
    const body = JSON.stringify({ webhook: `${bed.api.url}/api/webhooks/partner/${PARTNER_WEBHOOK_TOKEN}` });
    // Signed as the adapter signs; outside the shop's request budget, so after the partner's 'busy' it waits its turn.
    const save = async (): Promise<{ success: boolean; errorCode: string | null }> => {
      const answer = await callEsimAccess<{ success: boolean; errorCode: string | null }>(
        bed.stand.partner.url,
        ACCOUNT,
        'webhook/save',
        body,
        randomUUID(),
      );
      if (answer.errorCode !== '900001') return answer;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return save();
    };
    const before = bed.stand.partner.requests.filter((r) => r.status !== 429).length;
    const saved = await save();
    try {
      expect(saved).toMatchObject({ success: true, errorCode: null });
      const health = bed.stand.partner.notifications.at(-1)!;
      expect(health).toMatchObject({ body: { notifyType: 'CHECK_HEALTH' }, status: 200 });
      // Not recorded, and nothing asked of the partner.
      expect(await bed.db.query('SELECT 1 FROM webhook_events WHERE event_id = $1', [health.body.notifyId])).toEqual([]);
      expect(
        bed.stand.partner.requests
          .filter((r) => r.status !== 429)
          .slice(before)
          .map((r) => r.call),
      ).toEqual(['webhook/save']);
    } finally {
      bed.stand.partner.setWebhookUrl(undefined);
    }
  });

  it("answers 'the profiles are ready' at once while the partner hangs, and the delivery still ends delivered", async () => {
    const id = await paidOrder();
    // The partner takes the order and never answers: the adapter gives up after PARTNER_TIMEOUT_MS.
    bed.stand.partner.failNext(FAILURES.timeout, { call: 'esim/order' });
    const sent = performance.now();
    const response = await notify({
      notifyType: 'ORDER_STATUS',
      notifyId: `ready-${id}`,
      content: { orderNo: 'B-unknown', transactionId: id, orderStatus: 'GOT_RESOURCE' },
    });
    const tookMs = performance.now() - sent;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ received: true, outcome: 'handled' });
    // Answered before the partner's call could fail: no try has failed yet.
    const atAnswer = await jobOf(id);
    expect(tookMs).toBeLessThan(PARTNER_TIMEOUT_MS);
    expect({ attempts: atAnswer.attempts, lastError: atAnswer.last_error }).toEqual({ attempts: 0, lastError: null });

    // Handed to the delivery: it asks the partner, which hangs, then tries again and delivers.
    const ordered = () =>
      bed.stand.partner.requests.filter((r) => r.call === 'esim/order' && (r.body as { transactionId?: string }).transactionId === id);
    expect(
      (await waitFor(
        async () => ordered().length,
        (n) => n >= 1,
      )) >= 1,
    ).toBe(true);
    // The failed try is on the order's job (which ends once the order is delivered).
    const failed = await waitFor(
      () => jobOf(id),
      (job) => job.last_error !== null,
    );
    expect(failed.last_error).toContain('esim/order');
    await deliver(id);
    // The notification is recorded: the partner's repeat changes nothing.
    expect(
      await (
        await notify({
          notifyType: 'ORDER_STATUS',
          notifyId: `ready-${id}`,
          content: { orderNo: 'B-unknown', transactionId: id, orderStatus: 'GOT_RESOURCE' },
        })
      ).json(),
    ).toMatchObject({ outcome: 'replay' });
  });
});

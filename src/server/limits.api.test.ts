import { afterAll, describe, expect, it, vi } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { offeredTopUps, orderRequest, payOnStandIn, topUpRequest, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ORDERS_PER_USER_PER_MINUTE, REFUND_REQUESTS_PER_USER_PER_MINUTE } from '../config/constants.ts';
import { ApiError, CreateOrderResponse, EsimList, OrderView, type CreateOrderRequest } from '../contract/shop-api.ts';
import { sellablePlans } from './orders/plans.ts';

/**
 * What one account can make the shop spend (issue 20 items 3 and 4), over real HTTP with real
 * parts: per-user limits on the routes that cost Stripe sessions or partner calls (429 with
 * Retry-After), refunds checked locally before the partner is asked, and a replaced order's
 * payment page closed at Stripe.
 */
const catalogue = embeddedSnapshot();
const plans = sellablePlans(catalogue);
const PLAN = plans.get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4329';

const orderFor = (plan = PLAN, overrides: Partial<CreateOrderRequest> = {}) => orderRequest(plan, overrides);
const sessionIdOf = (checkoutUrl: string) => new URL(checkoutUrl).pathname.split('/').pop()!;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('per-user limits on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 200, stripe: { retryDelaysMs: [100, 200, 400, 800] } });
  // Before the test bed's own teardown (after-hooks run last registered first).
  afterAll(() => {
    vi.restoreAllMocks();
  });
  const { call } = bed;
  const postOrder = (token: string, request: CreateOrderRequest) =>
    call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const listEsims = async (token: string) => EsimList.parse(await (await call('/esims?lang=de', { token })).json()).esims;

  /** A delivered eSIM the buyer has installed on a phone, as our side knows it (the partner's notification was handled). */
  async function installedEsim(token: string) {
    const created = CreateOrderResponse.parse(await (await postOrder(token, orderFor())).json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const delivered = await waitFor(
      () => readOrder(token, created.order.id),
      (o) => o.state === 'delivered' && !!o.esim?.iccid,
    );
    bed.stand.partner.markInstalled(bed.stand.partner.esimTranNoOf(delivered.esim!.iccid!)!);
    const list = await waitFor(
      () => listEsims(token),
      (esims) => esims[0]?.status === 'active',
    );
    expect(list[0]).toMatchObject({ id: created.order.id, status: 'active', refundable: false });
    return created.order.id;
  }

  async function expectTooMany(response: Response, maxSeconds: number) {
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
    expect(ApiError.parse(await response.json()).error.code).toBe('too_many_requests');
    expect(response.headers.get('cache-control')).toBe('no-store');
  }

  it('refund posts on an installed eSIM are answered from what we know: a handful of partner calls for 40, the 6th in a minute 429', async () => {
    const buyer = await signUp();
    const esimId = await installedEsim(buyer.idToken);
    await bed.handler.fulfilment.settled();
    const before = bed.stand.partner.requests.length;

    const answers: Response[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await call(`/esims/${esimId}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
      answers.push(new Response(await response.arrayBuffer(), response));
    }
    // The partner was asked at most once or twice, not twice per post (80 calls took 10 s of the shop's budget).
    const partnerCalls = bed.stand.partner.requests.slice(before);
    expect(partnerCalls.length, JSON.stringify(partnerCalls.map((r) => r.call))).toBeLessThanOrEqual(2);
    const statuses = answers.map((r) => r.status);
    expect(statuses.slice(0, REFUND_REQUESTS_PER_USER_PER_MINUTE)).toEqual(Array(REFUND_REQUESTS_PER_USER_PER_MINUTE).fill(409));
    await expectTooMany(answers[REFUND_REQUESTS_PER_USER_PER_MINUTE]!, 60);
    expect(new Set(statuses.slice(REFUND_REQUESTS_PER_USER_PER_MINUTE))).toEqual(new Set([429]));
    expect((await readOrder(buyer.idToken, esimId)).state).toBe('delivered');

    // Per user: someone else's refund button still answers.
    const other = await signUp();
    expect((await call(`/esims/${esimId}/refund?lang=de`, { method: 'POST', token: other.idToken })).status).toBe(404);
  });

  it('asks the partner once about an eSIM that looks refundable here but was installed meanwhile, and not again', async () => {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(await (await postOrder(buyer.idToken, orderFor())).json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const delivered = await waitFor(
      () => readOrder(buyer.idToken, created.order.id),
      (o) => o.state === 'delivered' && !!o.esim?.iccid,
    );
    await bed.handler.fulfilment.settled();
    // Installed, and the partner's notification lost: our side still says 'ready'.
    bed.stand.partner.setWebhookUrl(undefined);
    try {
      bed.stand.partner.markInstalled(bed.stand.partner.esimTranNoOf(delivered.esim!.iccid!)!);
    } finally {
      bed.stand.connect(`${bed.api.url}/api`);
    }
    const before = bed.stand.partner.requests.length;
    const refund = () => call(`/esims/${created.order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect((await refund()).status).toBe(409);
    expect(bed.stand.partner.requests.slice(before).map((r) => r.call)).toEqual(['esim/query']);
    expect((await refund()).status).toBe(409);
    expect(bed.stand.partner.requests.length - before).toBe(1);
    expect((await readOrder(buyer.idToken, created.order.id)).state).toBe('delivered');
  });

  it('answers the 11th order in a minute with 429 and Retry-After, and opens no payment page for it', async () => {
    const buyer = await signUp();
    const created = vi.spyOn(bed.stripe.checkout.sessions, 'create');
    try {
      const distinct = [...plans.values()].slice(0, ORDERS_PER_USER_PER_MINUTE + 1);
      for (const plan of distinct.slice(0, ORDERS_PER_USER_PER_MINUTE))
        expect((await postOrder(buyer.idToken, orderFor(plan))).status).toBe(201);
      expect(created).toHaveBeenCalledTimes(ORDERS_PER_USER_PER_MINUTE);
      await expectTooMany(await postOrder(buyer.idToken, orderFor(distinct.at(-1)!)), 60);
      expect(created).toHaveBeenCalledTimes(ORDERS_PER_USER_PER_MINUTE);
      // Nothing was stored for it, and another buyer still orders.
      const list = (await (await call('/orders?lang=de', { token: buyer.idToken })).json()) as { orders: unknown[] };
      expect(list.orders).toHaveLength(ORDERS_PER_USER_PER_MINUTE);
      const other = await signUp();
      expect((await postOrder(other.idToken, orderFor())).status).toBe(201);
    } finally {
      created.mockRestore();
    }
  });

  it('switching a top-up back and forth between two eSIMs 20 times leaves every replaced payment page expired at Stripe: none takes a payment', async () => {
    // The per-minute limit would stop this buyer at 10: another build of the API with room for 20.
    await bed.serve(bed.build({ limits: { ordersPerMinute: 100, ordersPerHour: 100 } }));
    const buyer = await signUp();
    const esimIds = [await installedEsim(buyer.idToken), await installedEsim(buyer.idToken)];
    // The same top-up (one destination: the same partner's top-ups) for one eSIM, then the other.
    const [topUp] = await offeredTopUps(bed.api.url, buyer.idToken, esimIds[0]!);
    const urls: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await postOrder(buyer.idToken, topUpRequest(topUp!, esimIds[i % 2]!));
      expect(response.status).toBe(201);
      const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
      urls.push(checkoutUrl);
      ids.push(order.id);
    }
    expect(new Set(urls).size).toBe(20);
    for (const url of urls.slice(0, -1)) {
      expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(url))).status, url).toBe('expired');
      const paid = await payOnStandIn(url, '4242424242424242');
      expect(paid.status, url).toBe(409);
      expect(await paid.text()).toContain('expired');
    }
    // The open one still pays.
    expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(urls.at(-1)!))).status).toBe('open');
    const states = await Promise.all(ids.map(async (id) => (await readOrder(buyer.idToken, id)).state));
    expect(states).toEqual([...Array(19).fill('cancelled'), 'pending_payment']);
  });

  it('closes a replaced payment page later when Stripe could not be reached at the time (the reconcile job tries again)', async () => {
    await bed.serve(bed.build({ limits: { ordersPerMinute: 100, ordersPerHour: 100 }, reconcileToken: 'limits-reconcile-token' }));
    const buyer = await signUp();
    const esimIds = [await installedEsim(buyer.idToken), await installedEsim(buyer.idToken)];
    const [topUp] = await offeredTopUps(bed.api.url, buyer.idToken, esimIds[0]!);
    const first = CreateOrderResponse.parse(await (await postOrder(buyer.idToken, topUpRequest(topUp!, esimIds[0]!))).json());
    const expire = vi
      .spyOn(bed.stripe.checkout.sessions, 'expire')
      .mockRejectedValueOnce(new Error('connection reset'))
      .mockRejectedValueOnce(new Error('connection refused'));
    try {
      // The same top-up for the other eSIM replaces it.
      const second = CreateOrderResponse.parse(await (await postOrder(buyer.idToken, topUpRequest(topUp!, esimIds[1]!))).json());
      expect(second.order.id).not.toBe(first.order.id);
      expect((await readOrder(buyer.idToken, first.order.id)).state).toBe('cancelled');
      expect(expire).toHaveBeenCalled();
      expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(first.checkoutUrl))).status).toBe('open');

      // Queued, and tried again 10 s later, then 30 s after a second failure: the test moves that time forward.
      const queued = async () =>
        (
          await bed.db.query<{ attempts: number; last_error: string; wait_s: number }>(
            `SELECT attempts, last_error, round(extract(epoch FROM next_attempt_at - now()))::int AS wait_s
             FROM checkout_expiries WHERE checkout_session_id = $1`,
            [sessionIdOf(first.checkoutUrl)],
          )
        )[0];
      const dueNow = () => bed.db.query(`UPDATE checkout_expiries SET next_attempt_at = now() - interval '1 second'`);
      expect(await queued()).toMatchObject({ attempts: 1, last_error: 'connection reset', wait_s: 10 });
      await dueNow();
      expect((await call('/jobs/reconcile', { method: 'POST', token: 'limits-reconcile-token' })).status).toBe(200);
      expect(await queued()).toMatchObject({ attempts: 2, last_error: 'connection refused', wait_s: 30 });
      expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(first.checkoutUrl))).status).toBe('open');
      await dueNow();
      const job = await call('/jobs/reconcile', { method: 'POST', token: 'limits-reconcile-token' });
      expect(job.status).toBe(200);
      expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(first.checkoutUrl))).status).toBe('expired');
      expect((await payOnStandIn(first.checkoutUrl, '4242424242424242')).status).toBe(409);
      // Once closed, the job leaves it alone.
      const calls = expire.mock.calls.length;
      await call('/jobs/reconcile', { method: 'POST', token: 'limits-reconcile-token' });
      expect(expire.mock.calls.length).toBe(calls);
      expect((await bed.stripe.checkout.sessions.retrieve(sessionIdOf(second.checkoutUrl))).status).toBe('open');
    } finally {
      expire.mockRestore();
    }
  });
});

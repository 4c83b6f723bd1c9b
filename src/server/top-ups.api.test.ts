import { priceOnSnapshotRates } from '../../tests/support/prices.ts';
import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import {
  orderRequest,
  openAndPay,
  testCatalogue,
  topUpRequest,
  untilDelivered,
  untilInstalled,
  waitFor,
} from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import {
  ApiError,
  CreateOrderResponse,
  EsimList,
  OrderView,
  PriceChangedError,
  TopUpPlans,
  type CreateOrderRequest,
} from '../contract/shop-api.ts';

/**
 * Top-ups are the partner's own packages (issue 24 item 2): an eSIM is offered exactly the
 * partner's top-ups of it, each priced by the one pricing function from its own wholesale price;
 * a plan the partner sells no top-up for says so and offers none; an order is priced again from
 * the partner's top-ups as they are now; and a top-up delivered adds its own package at the partner.
 */
const { catalogue, plans, PLAN } = testCatalogue();
/** A plan the partner sells no top-up for (supportTopUpType 1): a country's, for a plain order. */
const FIXED = [...plans.values()].find((p) => !p.pkg.facts.topUp && p.pkg.destination.length === 2)!;
const SITE = 'http://127.0.0.1:4331';
const GIB = 2 ** 30;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('top-ups on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 200 });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const listEsims = async (token: string) => EsimList.parse(await (await call('/esims?lang=de', { token })).json()).esims;
  const topUpsOf = (token: string, esimId: string) => call(`/esims/${esimId}/top-ups?lang=de`, { token });
  const offered = async (token: string, esimId: string) => {
    const response = await topUpsOf(token, esimId);
    const body: unknown = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    return TopUpPlans.parse(body);
  };
  const postOrder = (token: string, request: CreateOrderRequest) =>
    call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
  const tranNo = (orderId: string) => bed.stand.partner.tranNoOfTransaction(orderId)!;
  const partnerTotal = async (orderId: string) => {
    const answer = await bed.stand.esimAccess.queryProfiles({ esimTranNo: tranNo(orderId) });
    return answer.status === 'ready' ? answer.profiles[0]!.totalBytes : NaN;
  };
  /** package/list calls for top-ups of this eSIM so far. */
  const topUpLists = (iccid: string) =>
    bed.stand.partner.requests.filter(
      (r) =>
        r.call === 'package/list' &&
        (r.body as { type?: string; iccid?: string }).type === 'TOPUP' &&
        (r.body as { iccid?: string }).iccid === iccid,
    ).length;

  const buy = async (token: string, request: CreateOrderRequest) => (await openAndPay(() => postOrder(token, request))).order;

  /** An eSIM of this plan, delivered and installed on a phone, once the partner's notification reached the shop. */
  async function installedEsim(token: string, plan = PLAN) {
    const order = await buy(token, orderRequest(plan));
    const read = () => readOrder(token, order.id);
    await untilDelivered(read);
    return untilInstalled(read, () => bed.stand.partner.markInstalled(tranNo(order.id)));
  }

  it("offers an installed eSIM exactly the partner's own top-ups of it, each priced from its own wholesale price, cheapest first", async () => {
    const buyer = await signUp();
    const esim = await installedEsim(buyer.idToken);
    const answer = await offered(buyer.idToken, esim.id);
    expect(answer.destination).toEqual({ code: 'DE', name: 'Deutschland', flag: PLAN.destination.flag });

    const own = bed.stand.partner.topUpsOf(PLAN.pkg.partnerCode);
    expect(own.length).toBeGreaterThan(1);
    const expected = own
      .map((p) => ({ id: `topup-${p.volume / GIB}gb-${p.duration}d`, price: priceOnSnapshotRates(p.price) }))
      .sort((a, b) => a.price.amountMinor - b.price.amountMinor);
    expect(answer.plans.map(({ id, price }) => ({ id, price }))).toEqual(expected);
    // Their own steps and prices, not the catalogue's: a 2 GB step no plan has, and 5 GB for 30 days
    // priced from the top-up's wholesale price, not the plan's.
    expect(answer.plans.find((p) => p.id === 'topup-2gb-15d')).toMatchObject({
      dataAmount: { value: 2, unit: 'GB' },
      validity: 15,
      validityUnit: 'day',
      supportedCountries: ['DE'],
    });
    expect(plans.has('de-2gb-15d')).toBe(false);
    const fiveGb = answer.plans.find((p) => p.id === 'topup-5gb-30d')!;
    expect(fiveGb.price.amountMinor).not.toBe(plans.get('de-5gb-30d')!.price.amountMinor);
    expect(answer.plans.every((p) => !plans.has(p.id))).toBe(true);
  });

  it('says plainly that a plan the partner sells no top-up for cannot be topped up, offers none and sells none, without asking the partner', async () => {
    expect(FIXED).toBeDefined();
    const buyer = await signUp();
    const esim = await installedEsim(buyer.idToken, FIXED);
    expect((await listEsims(buyer.idToken)).find((e) => e.id === esim.id)).toMatchObject({
      status: 'active',
      canTopUp: false,
      topUpSupported: false,
    });
    const asked = topUpLists(esim.esim!.iccid!);

    const refused = await topUpsOf(buyer.idToken, esim.id);
    expect(refused.status).toBe(409);
    expect(ApiError.parse(await refused.json()).error).toMatchObject({ code: 'cannot_top_up', message: 'This plan cannot be topped up.' });
    // The partner agrees: it lists no top-up of this eSIM (and the shop did not need to ask it).
    expect(bed.stand.partner.topUpsOf(FIXED.pkg.partnerCode)).toEqual([]);
    const order = await postOrder(buyer.idToken, topUpRequest({ id: 'topup-1gb-7d', price: priceOnSnapshotRates(10_000) }, esim.id));
    expect(order.status).toBe(409);
    expect(ApiError.parse(await order.json()).error.code).toBe('cannot_top_up');
    expect(topUpLists(esim.esim!.iccid!)).toBe(asked);
    // An eSIM of a plan that can be topped up says so, before and after it is installed.
    const other = await installedEsim(buyer.idToken);
    expect((await listEsims(buyer.idToken)).find((e) => e.id === other.id)).toMatchObject({ canTopUp: true, topUpSupported: true });
  });

  it("prices a top-up order again from the partner's top-ups as they are now: a stale price answers 409 price_changed, and a plan's id is no top-up", async () => {
    const buyer = await signUp();
    const esim = await installedEsim(buyer.idToken);
    const seen = (await offered(buyer.idToken, esim.id)).plans.find((p) => p.id === 'topup-5gb-30d')!;
    const pkg = bed.stand.partner.topUpsOf(PLAN.pkg.partnerCode).find((p) => p.volume === 5 * GIB && p.duration === 30)!;
    const was = pkg.price;
    bed.stand.partner.setPrice(pkg.packageCode, was + 20_000);
    try {
      const stale = await postOrder(buyer.idToken, topUpRequest(seen, esim.id));
      expect(stale.status).toBe(409);
      const now = priceOnSnapshotRates(was + 20_000);
      expect(PriceChangedError.parse(await stale.json()).error.price).toEqual(now);
      expect(now.amountMinor).toBeGreaterThan(seen.price.amountMinor);
      expect(await bed.db.query(`SELECT id FROM orders WHERE top_up_of = $1`, [esim.id])).toEqual([]);

      // A client's price is never taken: the one the partner's price gives now is.
      const cheaper = await postOrder(buyer.idToken, topUpRequest({ ...seen, price: { ...seen.price, amountMinor: 1 } }, esim.id));
      expect(cheaper.status).toBe(409);
      const accepted = await postOrder(buyer.idToken, topUpRequest({ ...seen, price: now }, esim.id));
      expect(accepted.status).toBe(201);
      expect(CreateOrderResponse.parse(await accepted.json()).order).toMatchObject({
        kind: 'top_up',
        esimId: esim.id,
        total: now,
        plan: { id: 'topup-5gb-30d' },
      });
    } finally {
      bed.stand.partner.setPrice(pkg.packageCode, was);
    }
    // A catalogue plan's id, or an id the partner does not list for this eSIM, is no top-up of it.
    for (const id of [PLAN.pkg.id, 'topup-3gb-15d']) {
      const unknown = await postOrder(buyer.idToken, topUpRequest({ id, price: PLAN.price }, esim.id));
      expect(unknown.status, id).toBe(404);
      expect(ApiError.parse(await unknown.json()).error.code).toBe('unknown_plan');
    }
  });

  it('delivers a top-up with its own package: the partner is sent its code, adds its own volume and charges its own price', async () => {
    const buyer = await signUp();
    const esim = await installedEsim(buyer.idToken);
    const before = await partnerTotal(esim.id);
    const balance = await bed.stand.esimAccess.balance();
    const step = (await offered(buyer.idToken, esim.id)).plans.find((p) => p.id === 'topup-2gb-15d')!;
    const pkg = bed.stand.partner.topUpsOf(PLAN.pkg.partnerCode).find((p) => p.volume === 2 * GIB)!;

    const topUp = await buy(buyer.idToken, topUpRequest(step, esim.id));
    expect(topUp).toMatchObject({ kind: 'top_up', esimId: esim.id, total: step.price });
    const done = await waitFor(
      () => readOrder(buyer.idToken, topUp.id),
      (o) => o.state === 'delivered',
      15_000,
    );
    expect(done.state).toBe('delivered');

    expect(await partnerTotal(esim.id)).toBe(before + 2 * GIB);
    expect(done.esim!.usage!.totalBytes).toBe(before + 2 * GIB);
    const sent = bed.stand.partner.requests.filter(
      (r) => r.call === 'esim/topup' && (r.body as { transactionId?: string }).transactionId === topUp.id,
    );
    expect(sent.map((r) => [r.status, (r.body as { packageCode: string }).packageCode])).toEqual([[200, pkg.packageCode]]);
    expect(bed.stand.partner.topUpsApplied(topUp.id)).toBe(1);
    expect(balance - (await bed.stand.esimAccess.balance())).toBe(pkg.price);
    // Ordered from its eSIM's partner, with that partner's code and price.
    const [row] = await bed.db.query<{ partner: string; partner_code: string; wholesale_usd_e4: number }>(
      'SELECT partner, partner_code, wholesale_usd_e4 FROM order_sourcing WHERE order_id = $1',
      [topUp.id],
    );
    expect(row).toEqual({ partner: 'esim-access', partner_code: pkg.packageCode, wholesale_usd_e4: pkg.price });
  });
});

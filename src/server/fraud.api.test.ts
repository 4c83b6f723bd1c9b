import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { FRAUD_ORDERS_PER_WINDOW, HELD_ORDER_AUDIT_AFTER_MS } from '../config/constants.ts';
import { CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { createHeldOrders, HoldRefused } from './fraud/holds.ts';
import { needsAttention, orderSignals } from './fraud/signals.ts';
import { auditOrders } from './orders/audit.ts';
import { sellablePlans } from './orders/plans.ts';

/**
 * Fraud signals and held orders (issue 30 item 7), through the shop API, the real `stripe` SDK and
 * the Stripe stand-in's Radar test cards: what Stripe says of each charge is kept, the signals
 * follow from it, a highest-risk order waits for an admin without holding up anyone else.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const SITE = 'http://127.0.0.1:4331';
const CARD = { normal: '4242424242424242', elevated: '4000000000009235', highest: '4000000000004954', shared: '4000000000007726' };

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('fraud signals and held orders, on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, allocationDelayMs: 100 });
  const { call } = bed;
  const held = () => createHeldOrders({ db: bed.db, run: (id) => bed.handler.fulfilment.run(id), refunds: bed.handler.fulfilment });
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const payment = async (id: string) =>
    (
      await bed.db.query<{
        card_fingerprint: string | null;
        risk_level: string | null;
        risk_score: number | null;
        buyer_country: string | null;
        stripe_fee_minor: number | null;
        stripe_fee_currency: string | null;
        amount_minor: number;
      }>(`SELECT * FROM payments WHERE order_id = $1 AND status = 'paid'`, [id])
    )[0]!;
  const causes = async (id: string) =>
    (await bed.db.query<{ cause: string }>('SELECT cause FROM order_events WHERE order_id = $1 ORDER BY id', [id])).map((e) => e.cause);
  const hold = async (id: string) =>
    (
      await bed.db.query<{ hold: string | null }>(
        'SELECT hold FROM orders o LEFT JOIN order_holds h ON h.order_id = o.id WHERE o.id = $1',
        [id],
      )
    )[0]!.hold;

  async function order(token: string) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) });
    const body: unknown = await response.json();
    expect(response.status, JSON.stringify(body)).toBeLessThan(300);
    return CreateOrderResponse.parse(body);
  }
  /** A new account's order paid with this test card; answers once the shop has acted on it (delivered, or held). */
  async function paid(card: string, { email, country }: { email?: string; country?: string } = {}) {
    const buyer = await signUp(email);
    const created = await order(buyer.idToken);
    const form = new URLSearchParams({ action: 'pay', card, ...(country && { country }) });
    expect((await fetch(created.checkoutUrl, { method: 'POST', body: form, redirect: 'manual' })).status).toBe(303);
    const id = created.order.id;
    await waitFor(
      async () => ((await readOrder(buyer.idToken, id)).state === 'delivered' || (await hold(id)) === 'held' ? 'acted' : 'waiting'),
      (state) => state === 'acted',
    );
    return { token: buyer.idToken, id };
  }

  it("keeps what Stripe says of the charge: the card's fingerprint, Radar's risk, the buyer's country, Stripe's fee", async () => {
    const { token, id } = await paid(CARD.normal, { country: 'DE' });
    expect((await readOrder(token, id)).state).toBe('delivered');
    const row = await payment(id);
    expect(row.card_fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(row).toMatchObject({ risk_level: 'normal', buyer_country: 'DE', stripe_fee_currency: 'EUR' });
    // The stand-in's fee: 1.5 % + 0.25 (stand-ins/stripe/README.md).
    expect(row.stripe_fee_minor).toBe(Math.round(row.amount_minor * 0.015) + 25);
    // Without a billing country, the card's (Stripe's test cards are US cards).
    const other = await paid(CARD.normal);
    expect((await payment(other.id)).buyer_country).toBe('US');
  });

  it('makes one card used by two accounts a signal on both orders, and lists them as needing attention', async () => {
    const first = await paid(CARD.shared);
    expect(await orderSignals(bed.db, first.id)).toEqual([]);
    const second = await paid(CARD.shared);
    expect((await payment(second.id)).card_fingerprint).toBe((await payment(first.id)).card_fingerprint);
    expect(await orderSignals(bed.db, first.id)).toEqual([{ kind: 'shared_card', accounts: 1 }]);
    expect(await orderSignals(bed.db, second.id)).toEqual([{ kind: 'shared_card', accounts: 1 }]);
    const listed = await needsAttention(bed.db, { limit: 100 });
    expect(listed.map((o) => o.orderId)).toEqual(expect.arrayContaining([first.id, second.id]));
    // Newest first.
    expect(listed.findIndex((o) => o.orderId === second.id)).toBeLessThan(listed.findIndex((o) => o.orderId === first.id));
  });

  it('flags an elevated-risk charge but delivers it', async () => {
    const { token, id } = await paid(CARD.elevated);
    expect((await readOrder(token, id)).state).toBe('delivered');
    expect(await hold(id)).toBeNull();
    expect(await orderSignals(bed.db, id)).toEqual([{ kind: 'radar_risk', level: 'elevated', score: 70 }]);
    expect((await needsAttention(bed.db, { limit: 100 })).some((o) => o.orderId === id)).toBe(true);
  });

  it('flags a buyer at a disposable e-mail domain, and not one at an ordinary one', async () => {
    const disposable = await signUp(`buyer-${Date.now()}@mailinator.com`);
    const ordinary = await signUp(`buyer-${Date.now()}@example.org`);
    const flagged = (await order(disposable.idToken)).order.id;
    const plain = (await order(ordinary.idToken)).order.id;
    expect(await orderSignals(bed.db, flagged)).toEqual([{ kind: 'disposable_email', domain: 'mailinator.com' }]);
    expect(await orderSignals(bed.db, plain)).toEqual([]);
    const listed = (await needsAttention(bed.db, { limit: 100 })).map((o) => o.orderId);
    expect(listed).toContain(flagged);
    expect(listed).not.toContain(plain);
  });

  it(`flags an account's ${FRAUD_ORDERS_PER_WINDOW}th order within a day, not the ones before`, async () => {
    const buyer = await signUp();
    const plans = [...sellablePlans(catalogue).values()].slice(0, FRAUD_ORDERS_PER_WINDOW);
    const ids: string[] = [];
    for (const plan of plans) {
      const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(plan)) });
      expect(response.status).toBeLessThan(300);
      ids.push(CreateOrderResponse.parse(await response.json()).order.id);
    }
    expect(await orderSignals(bed.db, ids.at(-2)!)).toEqual([]);
    expect(await orderSignals(bed.db, ids.at(-1)!)).toEqual([{ kind: 'many_orders', orders: FRAUD_ORDERS_PER_WINDOW }]);
  });

  /** Reads the suspect's order until it is in `state`. */
  async function reaches(suspect: { id: string; token: string }, state: OrderView['state']) {
    const after = await waitFor(
      () => readOrder(suspect.token, suspect.id),
      (o) => o.state === state,
    );
    expect(after.state).toBe(state);
  }

  it('holds a highest-risk order before delivery, delivers others meanwhile, names it after a day, and delivers it once approved', async () => {
    const esimsBefore = bed.stand.partner.esimCount;
    const suspect = await paid(CARD.highest);
    expect((await readOrder(suspect.token, suspect.id)).state).toBe('paid');
    expect(await hold(suspect.id)).toBe('held');
    expect((await causes(suspect.id)).at(-1)).toBe('held: Stripe Radar risk_level highest (risk_score 85)');
    expect(await orderSignals(bed.db, suspect.id)).toEqual([{ kind: 'radar_risk', level: 'highest', score: 85 }]);
    // No partner call for it; another buyer's order is delivered all the same, and the job passes the held one by.
    const other = await paid(CARD.normal);
    expect((await readOrder(other.token, other.id)).state).toBe('delivered');
    await bed.handler.fulfilment.runDue();
    expect(bed.stand.partner.esimCount).toBe(esimsBefore + 1);
    expect((await readOrder(suspect.token, suspect.id)).state).toBe('paid');
    // The audit: not 'paid without eSIM' while held; named once held for over a day.
    const findings = async (ms: number) =>
      (await auditOrders(bed.db, new Date(Date.now() + ms))).filter((f) => f.orderId === suspect.id).map((f) => f.invariant);
    expect(await findings(60 * 60_000)).toEqual([]);
    expect(await findings(HELD_ORDER_AUDIT_AFTER_MS + 60_000)).toEqual(['held_too_long']);

    const admin = { uid: 'admin-1', reason: 'called the buyer, card is theirs' };
    expect(await held().approveHeldOrder(suspect.id, admin)).toBe('approved');
    await reaches(suspect, 'delivered');
    expect(bed.stand.partner.esimCount).toBe(esimsBefore + 2);
    expect(await causes(suspect.id)).toContain('hold_approved by admin-1: called the buyer, card is theirs');
    // A double click changes nothing; the other decision after this one is refused.
    expect(await held().approveHeldOrder(suspect.id, admin)).toBe('already');
    await expect(held().rejectHeldOrder(suspect.id, admin)).rejects.toBeInstanceOf(HoldRefused);
    expect(await findings(HELD_ORDER_AUDIT_AFTER_MS + 60_000)).toEqual([]);
  });

  it('refunds a rejected held order in full, once, without a partner call', async () => {
    const esimsBefore = bed.stand.partner.esimCount;
    const suspect = await paid(CARD.highest);
    expect(await hold(suspect.id)).toBe('held');
    const admin = { uid: 'admin-2', reason: 'stolen card reported' };
    expect(await held().rejectHeldOrder(suspect.id, admin)).toBe('rejected');
    await reaches(suspect, 'refunded');
    expect(await held().rejectHeldOrder(suspect.id, admin)).toBe('already');
    const intent = (
      await bed.db.query<{ payment_intent_id: string }>(`SELECT payment_intent_id FROM payments WHERE order_id = $1`, [suspect.id])
    )[0]!.payment_intent_id;
    const refunds = await bed.stripe.refunds.list({ payment_intent: intent });
    expect(refunds.data.map((r) => [r.amount, r.status])).toEqual([[(await payment(suspect.id)).amount_minor, 'succeeded']]);
    expect(bed.stand.partner.esimCount).toBe(esimsBefore);
    expect(await causes(suspect.id)).toContain('hold_rejected by admin-2: stolen card reported');
    expect(
      (await auditOrders(bed.db, new Date(Date.now() + HELD_ORDER_AUDIT_AFTER_MS + 60_000))).filter((f) => f.orderId === suspect.id),
    ).toEqual([]);
  });
});

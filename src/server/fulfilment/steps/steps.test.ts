import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../../tests/support/databases.ts';
import type { Db } from '../../db/db.types.ts';
import { createEsimStore } from '../../esims/store.ts';
import { queueOrder } from '../../jobs/order-jobs.ts';
import { createOrderStore } from '../../orders/store.ts';
import { SOURCING_COLUMNS, SOURCING_JOIN } from '../../orders/sourcing.ts';
import type { OrderRow, OrderSourcing } from '../../orders/store.types.ts';
import { esimAccessOnly } from '../../../../tests/support/delivery-stand-ins.ts';
import type { EsimPartner, EsimProfile } from '../../partner/partner.types.ts';
import { settleRefundedOrderWrites } from '../../reconcile/refunded-order-writes.ts';
import { claimOrder } from '../lease.ts';
import { orderAtPartner } from './order-at-partner.ts';
import type { OrderInWork, StepContext } from './step.ts';

/**
 * A step that fails after its partner call (issue 47 item 2): the partner applied the write but
 * its answer was lost. What happened is settled by reading the partner's state, never by guessing
 * (DESIGN 7), and the step is then compensated: the eSIM the partner allocated is cancelled, so
 * no paid eSIM stays at the partner that no buyer receives. On PGlite and a real PostgreSQL server.
 */
function fakePartner() {
  const orders = new Map<string, { partnerOrderNo: string; profile: EsimProfile }>();
  const calls: string[] = [];
  // order: the answer is lost; inFlight: so is the request, for now (applyInFlight applies it later).
  const lost = { order: true, cancel: true, inFlight: false };
  const inFlight: Array<() => void> = [];
  const profileOf = (transactionId: string, n: number): EsimProfile => ({
    esimTranNo: `T-${n}`,
    transactionId,
    iccid: `8900000000000000${n}`,
    activationCode: 'LPA:1$smdp.example$secret',
    smdpAddress: 'smdp.example',
    matchingId: 'secret',
    apn: null,
    status: 'ready',
    installed: false,
    installStep: null,
    expiresAt: null,
    totalBytes: 1e9,
    usedBytes: 0,
    validityDays: 7,
  });
  const partner = {
    async orderEsim(order: { transactionId: string }) {
      calls.push('esim/order');
      const place = () => {
        const placed = { partnerOrderNo: `P-${orders.size + 1}`, profile: profileOf(order.transactionId, orders.size + 1) };
        orders.set(order.transactionId, placed);
        return placed;
      };
      if (lost.inFlight) {
        inFlight.push(place);
        throw new Error('esim/order: socket hang up');
      }
      const placed = place();
      // Applied at the partner; the answer never reaches us (a time-out).
      if (lost.order) throw new Error('esim/order: socket hang up');
      return { partnerOrderNo: placed.partnerOrderNo };
    },
    async findOrder(transactionId: string) {
      calls.push('order/find');
      return orders.get(transactionId)?.partnerOrderNo;
    },
    async queryProfiles(which: { partnerOrderNo?: string; esimTranNo?: string }) {
      calls.push('esim/query');
      const found = [...orders.values()].filter(
        (o) => o.partnerOrderNo === which.partnerOrderNo || o.profile.esimTranNo === which.esimTranNo,
      );
      return { status: 'ready' as const, profiles: found.map((o) => o.profile) };
    },
    async cancelProfile(esimTranNo: string) {
      calls.push('esim/cancel');
      for (const o of orders.values()) if (o.profile.esimTranNo === esimTranNo) o.profile = { ...o.profile, status: 'cancelled' };
      if (lost.cancel) throw new Error('esim/cancel: socket hang up');
    },
  };
  const applyInFlight = () => inFlight.splice(0).forEach((place) => place());
  return { partner: partner as unknown as EsimPartner, orders, calls, lost, applyInFlight };
}

describe.each(databaseDrivers())('a delivery step on $name', { timeout: 60_000 }, ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened));

  async function provisioningOrder(): Promise<string> {
    const id = randomUUID();
    await db.query(
      `WITH created AS (
         INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind)
         VALUES ($1, $2, 'buyer@example.com', 'provisioning', 'de-1gb-7d', 'DE', '{}'::jsonb, 1000, 'EUR', 'en', 'esim') RETURNING id
       )
       INSERT INTO order_sourcing (order_id, partner, partner_code, wholesale_usd_e4) SELECT id, 'esim-access', 'P1', 5000 FROM created`,
      [id, `uid-${id}`],
    );
    await db.transaction((tx) => queueOrder(tx, id, 'deliver'));
    return id;
  }

  const context = (partner: EsimPartner): StepContext => ({
    db,
    partners: esimAccessOnly(partner),
    stripe: {} as Stripe,
    orders: createOrderStore(db),
    esims: createEsimStore(db),
    emails: {} as StepContext['emails'],
    delays: [10],
    allocationLimitMs: 60_000,
    refundPollMs: 60_000,
    run: async () => undefined,
  });
  const writes = (id: string) =>
    db.query<{ call: string; outcome: string; detail: string | null }>(
      'SELECT call, outcome, detail FROM partner_writes WHERE order_id = $1 ORDER BY id',
      [id],
    );
  // A plain sale at eSIM Access: no links, no refund reason.
  const order = async (id: string): Promise<OrderInWork> => ({
    ...(
      await db.query<OrderRow & OrderSourcing>(`SELECT o.*, ${SOURCING_COLUMNS} FROM orders o ${SOURCING_JOIN} WHERE o.id = $1`, [id])
    )[0]!,
    ...{ exchange_of: null, replaces: null, replaced_by: null, refund_reason: null },
  });

  it('orders at the partner, loses the answer, settles it by reading the partner, then cancels what it allocated', async () => {
    const fake = fakePartner();
    const ctx = context(fake.partner);
    const id = await provisioningOrder();
    const lease = (await claimOrder(db, id, 60_000))!;

    // The partner applied the order, the answer was lost: the step fails with its write unsettled.
    await expect(orderAtPartner.run(ctx, lease, await order(id))).rejects.toThrow('socket hang up');
    expect(await writes(id)).toEqual([{ call: 'esim/order', outcome: 'sent', detail: null }]);
    expect((await order(id)).partner_order_no).toBeNull();

    // The delivery is given up: the step's compensation reads the partner first, then cancels its
    // eSIM; the cancel's answer is lost too, and reading the eSIM says it was applied.
    await orderAtPartner.compensate!(ctx, lease, await order(id));
    expect(await writes(id)).toEqual([
      { call: 'esim/order', outcome: 'applied', detail: 'read back: P-1' },
      { call: 'esim/cancel', outcome: 'applied', detail: 'undelivered eSIM cancelled' },
    ]);
    expect(fake.orders.get(id)!.profile.status).toBe('cancelled');
    // Read before acting each time: the order looked up, its profiles read, the cancel read back.
    expect(fake.calls).toEqual(['esim/order', 'order/find', 'esim/query', 'esim/cancel', 'esim/query']);
    await lease.release({ kind: 'done' });
  });

  it('leaves a lost order that may still be on its way unsettled when refunding; once quiet, the reconcile job reads it back and cancels what the partner allocated late', async () => {
    const fake = fakePartner();
    fake.lost.inFlight = true;
    const ctx = context(fake.partner);
    const id = await provisioningOrder();
    const lease = (await claimOrder(db, id, 60_000))!;
    await expect(orderAtPartner.run(ctx, lease, await order(id))).rejects.toThrow('socket hang up');

    // Given up at once: the partner has no such order yet, but the request may still reach it.
    await orderAtPartner.compensate!(ctx, lease, await order(id));
    expect(await writes(id)).toEqual([{ call: 'esim/order', outcome: 'sent', detail: null }]);
    await lease.release({ kind: 'done' });
    await db.query(`UPDATE orders SET state = 'refunded' WHERE id = $1`, [id]);

    // It does, after the refund. The reconcile job waits until the order's sends have been quiet…
    fake.applyInFlight();
    expect(await settleRefundedOrderWrites(db, ctx.partners)).toBe(0);
    expect(fake.calls).toEqual(['esim/order', 'order/find']);
    // …then reads it back and cancels the eSIM nobody will receive (the cancel's answer lost, read back).
    await db.query(`UPDATE partner_writes SET sent_at = now() - interval '2 minutes' WHERE order_id = $1`, [id]);
    expect(await settleRefundedOrderWrites(db, ctx.partners)).toBe(1);
    expect(await writes(id)).toEqual([
      { call: 'esim/order', outcome: 'applied', detail: 'read back after the refund: P-1' },
      { call: 'esim/cancel', outcome: 'applied', detail: 'undelivered eSIM cancelled' },
    ]);
    expect(fake.orders.get(id)!.profile.status).toBe('cancelled');
    expect(await settleRefundedOrderWrites(db, ctx.partners)).toBe(0);

    // Another whose request never arrived at all: settled refused on that read, nothing cancelled.
    const other = await provisioningOrder();
    const second = (await claimOrder(db, other, 60_000))!;
    await expect(orderAtPartner.run(ctx, second, await order(other))).rejects.toThrow('socket hang up');
    await orderAtPartner.compensate!(ctx, second, await order(other));
    await second.release({ kind: 'done' });
    await db.query(`UPDATE orders SET state = 'refunded' WHERE id = $1`, [other]);
    await db.query(`UPDATE partner_writes SET sent_at = now() - interval '2 minutes' WHERE order_id = $1`, [other]);
    fake.lost.inFlight = false;
    expect(await settleRefundedOrderWrites(db, ctx.partners)).toBe(1);
    expect(await writes(other)).toEqual([{ call: 'esim/order', outcome: 'refused', detail: 'read back after the refund: no order' }]);
  });

  it('settles a lost answer by reading on the next try, without ordering twice', async () => {
    const fake = fakePartner();
    const ctx = context(fake.partner);
    const id = await provisioningOrder();
    const first = (await claimOrder(db, id, 60_000))!;
    await expect(orderAtPartner.run(ctx, first, await order(id))).rejects.toThrow('socket hang up');
    await first.release({ kind: 'retry', error: 'lost', delaysMs: [0] });

    const second = (await claimOrder(db, id, 60_000))!;
    await orderAtPartner.run(ctx, second, await order(id));
    expect((await order(id)).partner_order_no).toBe('P-1');
    expect(await writes(id)).toEqual([{ call: 'esim/order', outcome: 'applied', detail: 'P-1' }]);
    // One order at the partner: the second try found it instead of ordering again.
    expect(fake.calls.filter((c) => c === 'esim/order')).toHaveLength(1);
    await second.release({ kind: 'done' });
  });
});

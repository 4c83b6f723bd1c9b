import type { OrderKind } from '../../contract/order-kinds.ts';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase, serverUrlOf } from '../../../tests/support/databases.ts';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import { openDatabase } from '../db/open.ts';
import {
  AUDIT_GRACE_MS,
  auditDatabase,
  auditOrders,
  auditReport,
  auditStripeRefunds,
  INVARIANT_NAMES,
  type InvariantName,
  type StripeRefundSeen,
} from './audit.ts';

/**
 * The order audit (issue 20): each invariant flags a case that breaks it and passes one that is
 * fine, on PGlite and on a real PostgreSQL server; `npm run orders:audit` reports and exits by it.
 */
const ROOT = join(import.meta.dirname, '../../..');
const NOW = new Date('2026-03-01T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
const STALE = minutesAgo(AUDIT_GRACE_MS / 60_000 + 5);
const FRESH = minutesAgo(AUDIT_GRACE_MS / 60_000 - 5);

interface OrderFields {
  state: OrderState;
  kind: OrderKind;
  topUpOf: string | null;
  refundId: string | null;
  refundAmountMinor: number | null;
  amountMinor: number;
  /** What Stripe said of the refund (0005): succeeded unless told, when there is one. */
  refundStatus: 'pending' | 'succeeded' | 'failed' | null;
  refundStatusAt: Date;
  refundFailures: number;
}

/** The test data, by plain INSERTs with the columns 0001–0003 require. */
function fixtures(db: Queryable) {
  const data = {
    async order(fields: Partial<OrderFields> = {}): Promise<string> {
      const { state = 'paid', kind = 'esim', topUpOf = null, refundId = null, refundAmountMinor = null, amountMinor = 1000 } = fields;
      const { refundStatus = refundId ? 'succeeded' : null, refundStatusAt = STALE, refundFailures = 0 } = fields;
      const id = randomUUID();
      await db.query(
        `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind, top_up_of, created_at)
         VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, $4, 'EUR', 'en', $6, $7, $5)`,
        [id, `uid-${id}`, state, amountMinor, minutesAgo(60), kind, topUpOf],
      );
      // Its refund (0016): one row, the shop's, of the whole amount unless told.
      if (refundStatus)
        await data.refund(id, {
          stripeRefundId: refundId,
          amountMinor: refundAmountMinor ?? amountMinor,
          status: refundStatus,
          statusAt: refundStatusAt,
          failures: refundFailures,
        });
      return id;
    },
    async refund(
      orderId: string,
      options: {
        stripeRefundId?: string | null;
        amountMinor?: number;
        status?: 'requested' | 'pending' | 'succeeded' | 'failed' | 'cancelled';
        statusAt?: Date;
        failures?: number;
        requestedBy?: 'buyer' | 'operator' | 'system' | null;
        operatorUid?: string | null;
        /** How often Stripe was asked for it. */
        asks?: number;
      } = {},
    ) {
      const { stripeRefundId = null, amountMinor = 1000, status = 'succeeded', statusAt = STALE, failures = 0 } = options;
      const { requestedBy = 'system', operatorUid = null, asks = 1 } = options;
      const id = randomUUID();
      await db.query(
        `INSERT INTO refunds (id, order_id, requested_by, operator_uid, reason, amount_minor, currency, status, stripe_refund_id, asks,
           failures, idempotency_key, created_at, status_at)
         VALUES ($1::uuid, $2, $3, $4, $5, $6, 'EUR', $7, $8, $9, $10, $1::text, $11, $11)`,
        [
          id,
          orderId,
          requestedBy,
          operatorUid,
          requestedBy === 'operator' ? 'operator' : 'not_delivered',
          amountMinor,
          status,
          stripeRefundId,
          asks,
          failures,
          statusAt,
        ],
      );
      return id;
    },
    /** The ids of an order's refund rows, oldest first. */
    async refundsOf(orderId: string): Promise<string[]> {
      const rows = await db.query<{ id: string }>('SELECT id FROM refunds WHERE order_id = $1 ORDER BY created_at, id', [orderId]);
      return rows.map((row) => row.id);
    },
    async payment(orderId: string, options: { status?: 'paid' | 'failed'; at?: Date; amountMinor?: number; session?: string } = {}) {
      const { status = 'paid', at = STALE, amountMinor = 1000, session = `cs_${randomUUID()}` } = options;
      await db.query(
        `INSERT INTO payments (order_id, provider, checkout_session_id, status, amount_minor, currency, created_at)
         VALUES ($1, 'stripe', $2, $3, $4, 'EUR', $5)`,
        [orderId, session, status, amountMinor, at],
      );
      return session;
    },
    async esim(orderId: string, status = 'ready') {
      const esimTranNo = `T${randomUUID().slice(0, 8)}`;
      await db.query(
        `INSERT INTO esims (partner, esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes,
           validity_days, updated_at)
         VALUES ('esim-access', $1, $2, '8900000000000000000', 'LPA:1$smdp.example$M1', 'smdp.example', 'M1', $3, 1073741824, 7, $4)`,
        [esimTranNo, orderId, status, STALE],
      );
      return esimTranNo;
    },
    async partnerWrite(orderId: string, call: string, outcome: 'sent' | 'applied' | 'refused', sentAt = STALE) {
      await db.query(`INSERT INTO partner_writes (order_id, call, outcome, sent_at, partner) VALUES ($1, $2, $3, $4, 'esim-access')`, [
        orderId,
        call,
        outcome,
        sentAt,
      ]);
    },
    async email(orderId: string, kind: 'order' | 'top_up' | 'refund') {
      await db.query('INSERT INTO order_emails (order_id, kind) VALUES ($1, $2)', [orderId, kind]);
    },
    async mismatch(orderId: string | null, options: { session?: string; refundId?: string | null } = {}) {
      const { session = `cs_${randomUUID()}`, refundId = null } = options;
      await db.query(
        `INSERT INTO payment_mismatches (order_id, checkout_session_id, amount_minor, currency, reason, refund_id, created_at)
         VALUES ($1, $2, 700, 'EUR', 'amount', $3, $4)`,
        [orderId, session, refundId, STALE],
      );
    },
  };
  return data;
}

/** A delivered eSIM order as it should be: paid, its eSIM stored, its e-mail sent once, one partner order applied. */
async function healthyDelivered(data: ReturnType<typeof fixtures>): Promise<string> {
  const id = await data.order({ state: 'delivered' });
  await data.payment(id);
  await data.esim(id);
  await data.partnerWrite(id, 'esim/order', 'applied');
  await data.email(id, 'order');
  return id;
}

/** An order and its payment of the order's amount: a refund (refundId, refundStatus) is one of what was paid. */
async function paidOrder(data: ReturnType<typeof fixtures>, fields: Partial<OrderFields> = {}): Promise<string> {
  const id = await data.order(fields);
  await data.payment(id, { amountMinor: fields.amountMinor ?? 1000 });
  return id;
}

describe.each(databaseDrivers())('the order audit on $name', ({ open }) => {
  let db: Db;
  let data: ReturnType<typeof fixtures>;
  const audit = () => auditOrders(db, NOW);
  const only = async (name: InvariantName) => (await audit()).filter((finding) => finding.invariant === name);
  const numberOf = async (id: string) => {
    const [row] = await db.query<{ number: number }>('SELECT number FROM orders WHERE id = $1', [id]);
    return `ES-2026-${String(row!.number).padStart(6, '0')}`;
  };
  /** What the audit says of an order of ours: its number is read back from the database. */
  const finding = async (invariant: InvariantName, orderId: string, state: string, detail: unknown) => ({
    invariant,
    orderId,
    orderNumber: await numberOf(orderId),
    state,
    detail,
  });

  withDatabase(
    open,
    (opened) => {
      db = opened;
      data = fixtures(opened);
    },
    { truncate: 'carts, orders, order_events, payments, esims, partner_writes, order_emails, payment_mismatches, refunds' },
  );

  it('finds nothing in an empty shop or in orders that keep every invariant', async () => {
    expect(await audit()).toEqual([]);
    await healthyDelivered(data);
    await data.order({ state: 'pending_payment' });
    expect(await audit()).toEqual([]);
    expect(auditReport([], 2)).toEqual(['no order breaks an invariant (2 orders checked)']);
  });

  describe('paid_without_esim_or_refund', () => {
    it('flags an order paid over 15 minutes ago with neither its eSIM nor a refund, whatever its state', async () => {
      const provisioning = await data.order({ state: 'provisioning' });
      await data.payment(provisioning);
      const failed = await data.order({ state: 'fulfilment_failed' });
      await data.payment(failed);
      const parent = await healthyDelivered(data);
      const topUp = await data.order({ state: 'refund_requested', kind: 'top_up', topUpOf: parent });
      await data.payment(topUp);

      const paid = 'paid 20 min ago (2026-03-01T11:40:00Z)';
      expect(await audit()).toEqual([
        await finding('paid_without_esim_or_refund', provisioning, 'provisioning', `${paid}, no eSIM and no refund`),
        await finding('paid_without_esim_or_refund', failed, 'fulfilment_failed', `${paid}, no eSIM and no refund`),
        await finding('paid_without_esim_or_refund', topUp, 'refund_requested', `${paid}, top-up not delivered and no refund`),
      ]);
    });

    it('passes one paid within 15 minutes, one with its eSIM, one refunded and a delivered top-up', async () => {
      const recent = await data.order({ state: 'provisioning' });
      await data.payment(recent, { at: FRESH });
      const withEsim = await data.order({ state: 'provisioning' });
      await data.payment(withEsim);
      await data.esim(withEsim);
      const refunded = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1000 });
      await data.payment(refunded);
      const parent = await healthyDelivered(data);
      const topUp = await data.order({ state: 'delivered', kind: 'top_up', topUpOf: parent });
      await data.payment(topUp);
      const declined = await data.order({ state: 'payment_failed' });
      await data.payment(declined, { status: 'failed' });

      expect(await audit()).toEqual([]);
    });
  });

  describe('delivered_without_esim', () => {
    it('flags a delivered eSIM order with no eSIM stored', async () => {
      const id = await data.order({ state: 'delivered' });
      expect(await audit()).toEqual([await finding('delivered_without_esim', id, 'delivered', 'delivered, but no eSIM stored for it')]);
    });

    it('passes a delivered eSIM order with its eSIM, and a delivered top-up (the eSIM is its first order’s)', async () => {
      const parent = await healthyDelivered(data);
      await data.order({ state: 'delivered', kind: 'top_up', topUpOf: parent });
      expect(await audit()).toEqual([]);
    });
  });

  describe('one_outcome', () => {
    /** A delivered eSIM order replaced by another (its replacement in the state given). */
    async function replaced(replacementState: OrderState) {
      const original = await paidOrder(data, { state: 'delivered', refundStatus: null });
      const replacement = await data.order({ state: replacementState, amountMinor: 0 });
      await db.query(`INSERT INTO order_links (order_id, link, of_order_id) VALUES ($1, 'replacement', $2)`, [replacement, original]);
      return { original, replacement };
    }
    const reason = (refundId: string, why: string) => db.query('UPDATE refunds SET reason = $2 WHERE id = $1', [refundId, why]);

    it('flags a purchase replaced and refunded, and one refunded as exchanged and replaced', async () => {
      const both = await replaced('delivered');
      await data.refund(both.original, { stripeRefundId: 're_1', requestedBy: 'buyer' });
      const exchanged = await replaced('delivered');
      await reason(await data.refund(exchanged.original, { stripeRefundId: 're_2', requestedBy: 'buyer' }), 'exchanged');
      const found = await only('one_outcome');
      expect(found.map((f) => [f.orderId, f.detail])).toEqual([
        [both.original, `replaced by ${both.replacement} and refunded`],
        [exchanged.original, `replaced by ${exchanged.replacement} and refunded as exchanged`],
      ]);
    });

    it('passes one outcome each: replaced; refunded after its replacement failed; an operator’s part of a replaced one; a refund made void', async () => {
      await replaced('delivered');
      const failed = await replaced('refunded');
      await data.refund(failed.original, { stripeRefundId: 're_3' });
      const goodwill = await replaced('delivered');
      await data.refund(goodwill.original, { stripeRefundId: 're_4', amountMinor: 300, requestedBy: 'operator', operatorUid: 'op-1' });
      const voided = await replaced('delivered');
      await data.refund(voided.original, { status: 'cancelled', requestedBy: 'buyer', asks: 0 });
      expect(await only('one_outcome')).toEqual([]);
    });
  });

  describe('refunded_without_refund_id', () => {
    it('flags a refunded order without a refund, and one whose only refund Stripe has not made', async () => {
      const none = await paidOrder(data, { state: 'refunded' });
      const unmade = await paidOrder(data, { state: 'refunded', refundStatus: 'pending', refundStatusAt: FRESH });
      expect(await only('refunded_without_refund_id')).toEqual([
        await finding('refunded_without_refund_id', none, 'refunded', 'refunded, but no refund id'),
        await finding('refunded_without_refund_id', unmade, 'refunded', 'refunded, but no refund id'),
      ]);
    });

    it('passes a refunded order with its refund id, and one refunded in two parts', async () => {
      await paidOrder(data, { state: 'refunded', refundId: 're_1' });
      const parts = await paidOrder(data, { state: 'refunded', refundId: 're_2', refundAmountMinor: 400 });
      await data.refund(parts, { stripeRefundId: 're_3', amountMinor: 600, requestedBy: 'operator', operatorUid: 'op-1' });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refunded_before_succeeded', () => {
    it('flags a refunded order whose refund Stripe has not said succeeded, or whose succeeded refunds give back less than was paid', async () => {
      const pending = await paidOrder(data, { state: 'refunded', refundId: 're_p', refundStatus: 'pending' });
      const failed = await paidOrder(data, {
        state: 'refunded',
        refundId: 're_f',
        refundStatus: 'failed',
        refundStatusAt: FRESH,
        refundFailures: 1,
      });
      // One part back, the other still at Stripe.
      const half = await paidOrder(data, { state: 'refunded', refundId: 're_h1', refundAmountMinor: 500 });
      await data.refund(half, { stripeRefundId: 're_h2', amountMinor: 500, status: 'pending', statusAt: FRESH });
      const part = await paidOrder(data, { state: 'refunded', refundId: 're_part', refundAmountMinor: 400 });
      expect(await only('refunded_before_succeeded')).toEqual([
        await finding('refunded_before_succeeded', pending, 'refunded', 'refunded, but 1 of its refunds not succeeded at Stripe'),
        await finding('refunded_before_succeeded', failed, 'refunded', 'refunded, but 1 of its refunds not succeeded at Stripe'),
        await finding('refunded_before_succeeded', half, 'refunded', 'refunded, but 1 of its refunds not succeeded at Stripe'),
        await finding('refunded_before_succeeded', part, 'refunded', 'refunded, but only 400 of 1000 (EUR minor units) is back'),
      ]);
    });

    it('passes a refunded order whose refunds succeeded, beside a cancelled one, and an order still refunding while its refund is pending', async () => {
      await paidOrder(data, { state: 'refunded', refundId: 're_1', refundStatus: 'succeeded' });
      const withCancelled = await paidOrder(data, { state: 'refunded', refundId: 're_2' });
      await data.refund(withCancelled, { status: 'cancelled', asks: 0 });
      await paidOrder(data, { state: 'fulfilment_failed', refundId: 're_3', refundStatus: 'pending', refundStatusAt: FRESH });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_failed', () => {
    it('flags a refund failed over 15 minutes ago and not asked again, and refunds that failed 3 times', async () => {
      const stuck = await paidOrder(data, { state: 'fulfilment_failed', refundId: 're_1', refundStatus: 'failed', refundFailures: 1 });
      const again = await paidOrder(data, {
        state: 'refund_requested',
        refundId: 're_3',
        refundStatus: 'pending',
        refundStatusAt: FRESH,
        refundFailures: 3,
      });
      const [stuckRefund] = await data.refundsOf(stuck);
      const [againRefund] = await data.refundsOf(again);
      expect(await audit()).toEqual([
        await finding(
          'refund_failed',
          stuck,
          'fulfilment_failed',
          `refund ${stuckRefund}: 1 refund failed at Stripe; the latest, re_1, is failed since 20 min ago (2026-03-01T11:40:00Z): the money is not back`,
        ),
        await finding(
          'refund_failed',
          again,
          'refund_requested',
          `refund ${againRefund}: 3 refunds failed at Stripe; the latest, re_3, is pending since 10 min ago (2026-03-01T11:50:00Z): the money is not back`,
        ),
      ]);
    });

    it('passes a refund that failed within 15 minutes, and one that succeeded after two failures', async () => {
      await paidOrder(data, {
        state: 'fulfilment_failed',
        refundId: 're_1',
        refundStatus: 'failed',
        refundStatusAt: FRESH,
        refundFailures: 1,
      });
      await paidOrder(data, { state: 'refunded', refundId: 're_2', refundStatus: 'succeeded', refundFailures: 2 });
      await paidOrder(data, { state: 'refunded', refundId: 're_4', refundStatus: 'succeeded', refundFailures: 3 });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_pending_too_long', () => {
    it('flags a refund pending at Stripe for more than a day', async () => {
      const id = await paidOrder(data, {
        state: 'refund_requested',
        refundId: 're_1',
        refundStatus: 'pending',
        refundStatusAt: minutesAgo(25 * 60),
      });
      expect(await audit()).toEqual([
        await finding(
          'refund_pending_too_long',
          id,
          'refund_requested',
          'refund re_1 pending at Stripe since 25 h ago (2026-02-28T11:00:00Z)',
        ),
      ]);
    });

    it('passes one pending for less than a day', async () => {
      await paidOrder(data, { state: 'refund_requested', refundId: 're_1', refundStatus: 'pending', refundStatusAt: minutesAgo(23 * 60) });
      expect(await audit()).toEqual([]);
    });
  });

  describe('cancelled_esim_not_refunded', () => {
    it('flags a cancelled eSIM whose order has no refund', async () => {
      const id = await data.order({ state: 'refund_requested' });
      const esim = await data.esim(id, 'cancelled');
      expect(await audit()).toEqual([
        await finding(
          'cancelled_esim_not_refunded',
          id,
          'refund_requested',
          `eSIM ${esim} cancelled (last changed 20 min ago (2026-03-01T11:40:00Z)), order not refunded`,
        ),
      ]);
    });

    it('passes a cancelled eSIM of a refunded order, and an eSIM in use on an unrefunded one', async () => {
      const refunded = await paidOrder(data, { state: 'refunded', refundId: 're_1' });
      await data.esim(refunded, 'cancelled');
      const inUse = await data.order({ state: 'delivered' });
      await data.esim(inUse, 'active');
      expect(await audit()).toEqual([]);
    });

    it('passes an eSIM an operator revoked (a revoke refunds nothing), not one whose revoke was refused', async () => {
      const revoked = await data.order({ state: 'delivered' });
      await data.esim(revoked, 'cancelled');
      const refused = await data.order({ state: 'delivered' });
      const esim = await data.esim(refused, 'cancelled');
      for (const [id, outcome] of [
        [revoked, 'done'],
        [refused, 'refused'],
      ] as const) {
        await db.query(
          `INSERT INTO operator_actions (idempotency_key, operator_uid, action, order_id, reason, outcome) VALUES ($1, 'op', 'esim_revoke', $2, 'abuse', $3)`,
          [`revoke-${id}`, id, outcome],
        );
      }
      expect((await audit()).map((f) => [f.invariant, f.orderId, f.detail.startsWith(`eSIM ${esim}`)])).toEqual([
        ['cancelled_esim_not_refunded', refused, true],
      ]);
    });
  });

  describe('more_than_one_partner_write', () => {
    it('flags a second esim/order or esim/topup the partner applied for one order', async () => {
      const id = await healthyDelivered(data);
      await data.partnerWrite(id, 'esim/order', 'applied');
      const parent = await healthyDelivered(data);
      const topUp = await data.order({ state: 'delivered', kind: 'top_up', topUpOf: parent });
      for (let i = 0; i < 3; i++) await data.partnerWrite(topUp, 'esim/topup', 'applied');
      expect(await audit()).toEqual([
        await finding('more_than_one_partner_write', id, 'delivered', 'esim/order applied 2 times'),
        await finding('more_than_one_partner_write', topUp, 'delivered', 'esim/topup applied 3 times'),
      ]);
    });

    it('passes one applied write per call, beside refused ones and cancellations', async () => {
      const id = await healthyDelivered(data);
      await data.partnerWrite(id, 'esim/order', 'refused');
      await data.partnerWrite(id, 'esim/cancel', 'applied');
      await data.partnerWrite(id, 'esim/cancel', 'applied');
      const parent = await healthyDelivered(data);
      const topUp = await data.order({ state: 'delivered', kind: 'top_up', topUpOf: parent });
      await data.partnerWrite(topUp, 'esim/topup', 'refused');
      await data.partnerWrite(topUp, 'esim/topup', 'applied');
      expect(await audit()).toEqual([]);
    });
  });

  describe('partner_write_unsettled', () => {
    it('flags a write still sent over 15 minutes after it went out', async () => {
      const id = await data.order({ state: 'provisioning' });
      await data.partnerWrite(id, 'esim/order', 'sent');
      const [unsettled] = await only('partner_write_unsettled');
      expect(unsettled).toEqual(
        await finding(
          'partner_write_unsettled',
          id,
          'provisioning',
          expect.stringMatching(/^esim\/order \(partner write \d+\) sent 20 min ago \(2026-03-01T11:40:00Z\), never settled$/),
        ),
      );
      expect(await audit()).toHaveLength(1);
    });

    it('passes a write sent within 15 minutes and writes settled long ago', async () => {
      const id = await data.order({ state: 'provisioning' });
      await data.partnerWrite(id, 'esim/order', 'sent', FRESH);
      const delivered = await healthyDelivered(data);
      await data.partnerWrite(delivered, 'esim/cancel', 'refused', minutesAgo(600));
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_exceeds_payment', () => {
    it('flags a refund larger than the payment, a refund of an order never paid, and parts that together exceed it', async () => {
      const over = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1500 });
      await data.payment(over, { amountMinor: 1000 });
      const unpaid = await data.order({ state: 'refunded', refundId: 're_2', refundAmountMinor: 1000 });
      // An operator's two parts of a delivered order, the second still unsettled at Stripe: it counts.
      const parts = await healthyDelivered(data);
      await data.refund(parts, { stripeRefundId: 're_3', amountMinor: 600, requestedBy: 'operator', operatorUid: 'op-1' });
      await data.refund(parts, { amountMinor: 600, status: 'requested', statusAt: FRESH, requestedBy: 'operator', operatorUid: 'op-1' });
      expect(await audit()).toEqual([
        await finding('refund_exceeds_payment', over, 'refunded', 'refunded 1500, paid 1000 (EUR minor units)'),
        await finding('refund_exceeds_payment', unpaid, 'refunded', 'refunded 1000, paid 0 (EUR minor units)'),
        await finding('refund_exceeds_payment', parts, 'delivered', 'refunded 1200, paid 1000 (EUR minor units)'),
      ]);
    });

    it('passes a refund of the whole payment, an operator’s parts of a delivered order up to it, and a cancelled refund beside them', async () => {
      const whole = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1000 });
      await data.payment(whole, { amountMinor: 1000 });
      const part = await healthyDelivered(data);
      await data.refund(part, { stripeRefundId: 're_2', amountMinor: 400, requestedBy: 'operator', operatorUid: 'op-1' });
      const rest = await healthyDelivered(data);
      await data.refund(rest, { stripeRefundId: 're_3', amountMinor: 400, requestedBy: 'operator', operatorUid: 'op-1' });
      await data.refund(rest, { stripeRefundId: 're_4', amountMinor: 600, requestedBy: 'operator', operatorUid: 'op-2' });
      // Never asked of Stripe (the eSIM was installed first): it gives nothing back and counts for nothing.
      await data.refund(rest, { amountMinor: 1000, status: 'cancelled', asks: 0 });
      expect(await audit()).toEqual([]);
    });
  });

  describe('succeeded_refund_without_stripe_id', () => {
    it('flags a refund recorded succeeded that names no refund at Stripe', async () => {
      const id = await healthyDelivered(data);
      const refund = await data.refund(id, { amountMinor: 300, requestedBy: 'operator', operatorUid: 'op-1' });
      expect(await audit()).toEqual([
        await finding('succeeded_refund_without_stripe_id', id, 'delivered', `refund ${refund} succeeded, but names no Stripe refund`),
      ]);
    });

    it('passes a succeeded refund with its Stripe id, one not yet asked and a cancelled one, neither of which Stripe made', async () => {
      const id = await healthyDelivered(data);
      await data.refund(id, { stripeRefundId: 're_1', amountMinor: 300, requestedBy: 'operator', operatorUid: 'op-1' });
      await data.refund(id, { amountMinor: 300, status: 'requested', statusAt: FRESH, asks: 0 });
      await data.refund(id, { amountMinor: 300, status: 'cancelled', asks: 0 });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_asked_by_nobody', () => {
    it('cannot store a refund asked by nobody, by an operator not named, or by a buyer or the shop with an operator’s uid', async () => {
      const id = await healthyDelivered(data);
      // The table's checks (0016) refuse them: the invariant guards against a check dropped one day.
      for (const [requestedBy, operatorUid] of [
        [null, null],
        ['operator', null],
        ['buyer', 'op-1'],
        ['system', 'op-1'],
      ] as const) {
        await expect(data.refund(id, { stripeRefundId: null, amountMinor: 100, requestedBy, operatorUid })).rejects.toThrow(
          /null value|violates (not-null|check) constraint/,
        );
      }
      expect(await data.refundsOf(id)).toEqual([]);
    });

    it('flags an operator’s refund whose uid is empty, which the table’s check lets through', async () => {
      const id = await healthyDelivered(data);
      const refund = await data.refund(id, { stripeRefundId: 're_1', amountMinor: 100, requestedBy: 'operator', operatorUid: '' });
      expect(await audit()).toEqual([
        await finding('refund_asked_by_nobody', id, 'delivered', `refund ${refund} asked by operator, no operator named`),
      ]);
    });

    it('passes refunds asked by the buyer, the shop and a named operator', async () => {
      const id = await healthyDelivered(data);
      await data.refund(id, { stripeRefundId: 're_1', amountMinor: 100, requestedBy: 'buyer' });
      await data.refund(id, { stripeRefundId: 're_2', amountMinor: 100, requestedBy: 'system' });
      await data.refund(id, { stripeRefundId: 're_3', amountMinor: 100, requestedBy: 'operator', operatorUid: 'op-1' });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_not_asked', () => {
    it('flags a refund asked for over 15 minutes ago that Stripe was never asked for, or whose answer was never read', async () => {
      // An operator's refund of 3.00, asked of Stripe `asks` times without an answer read.
      const unanswered = (order: string, asks: number) =>
        data.refund(order, { amountMinor: 300, status: 'requested', asks, requestedBy: 'operator', operatorUid: 'op-1' });
      const never = await healthyDelivered(data);
      const neverRefund = await unanswered(never, 0);
      const lost = await healthyDelivered(data);
      const lostRefund = await unanswered(lost, 2);
      expect(await audit()).toEqual([
        await finding(
          'refund_not_asked',
          never,
          'delivered',
          `refund ${neverRefund} asked for 20 min ago (2026-03-01T11:40:00Z), never asked of Stripe`,
        ),
        await finding(
          'refund_not_asked',
          lost,
          'delivered',
          `refund ${lostRefund} asked for 20 min ago (2026-03-01T11:40:00Z), asked of Stripe 2 times, answer never read`,
        ),
      ]);
    });

    it('passes one asked for within 15 minutes, and one Stripe has (pending) for longer', async () => {
      const id = await healthyDelivered(data);
      await data.refund(id, { amountMinor: 300, status: 'requested', statusAt: FRESH, asks: 1 });
      await data.refund(id, { stripeRefundId: 're_1', amountMinor: 300, status: 'pending', asks: 1 });
      expect(await audit()).toEqual([]);
    });
  });

  describe('held_too_long', () => {
    const hold = async (id: string, heldAt: Date) => {
      await db.query("INSERT INTO order_holds (order_id, hold, held_at) VALUES ($1, 'held', $2)", [id, heldAt]);
    };

    it('flags an order held for its charge’s risk for over a day, and not as paid without its eSIM', async () => {
      const id = await paidOrder(data, { state: 'paid' });
      await hold(id, minutesAgo(25 * 60));
      expect(await audit()).toEqual([
        await finding(
          'held_too_long',
          id,
          'paid',
          'held 25 h ago (2026-02-28T11:00:00Z) for an admin to approve (deliver) or reject (refund)',
        ),
      ]);
    });

    it('passes one held for less than a day', async () => {
      const id = await paidOrder(data, { state: 'paid' });
      await hold(id, minutesAgo(23 * 60));
      expect(await audit()).toEqual([]);
    });
  });

  describe('auto_top_up_in_doubt', () => {
    let round = 0;
    const crossing = async (esimId: string, state: string, updatedAt: Date, orderId: string | null = null) => {
      await db.query('INSERT INTO auto_top_ups (esim_order_id, crossing, state, order_id, updated_at) VALUES ($1, $2, $3, $4, $5)', [
        esimId,
        `data:${round++}`,
        state,
        orderId,
        updatedAt,
      ]);
    };

    it('flags an automatic top-up due, or whose charge was asked, for longer than the grace', async () => {
      const esim = await healthyDelivered(data);
      await crossing(esim, 'due', STALE);
      const auto = await data.order({ state: 'pending_payment', kind: 'auto', topUpOf: esim });
      await crossing(esim, 'charging', minutesAgo(60), auto);
      expect((await audit()).map((f) => [f.invariant, f.orderId, f.detail.replace(/ since .*/, '')])).toEqual([
        ['auto_top_up_in_doubt', null, `automatic top-up of eSIM ${esim} at data:0 never charged`],
        ['auto_top_up_in_doubt', auto, `automatic top-up of eSIM ${esim} at data:1 charge in doubt`],
      ]);
    });

    it('passes one charged, refused, skipped, and one due within the grace', async () => {
      const esim = await healthyDelivered(data);
      for (const [state, at] of [
        ['charged', STALE],
        ['refused', STALE],
        ['skipped', STALE],
        ['due', FRESH],
      ] as const)
        await crossing(esim, state, at);
      expect(await audit()).toEqual([]);
    });
  });

  describe('duplicate_email', () => {
    it('flags a second e-mail of one kind for an order', async () => {
      const id = await healthyDelivered(data);
      await data.email(id, 'order');
      expect(await audit()).toEqual([await finding('duplicate_email', id, 'delivered', 'order e-mail sent 2 times')]);
    });

    it('passes one e-mail of each kind', async () => {
      const id = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1000 });
      await data.payment(id);
      await data.email(id, 'order');
      await data.email(id, 'refund');
      expect(await audit()).toEqual([]);
    });
  });

  describe('payment_mismatch_unrefunded', () => {
    it('flags a payment that did not match its order and was not given back, with or without an order of ours', async () => {
      const id = await data.order({ state: 'pending_payment' });
      await data.mismatch(id, { session: 'cs_wrong_amount' });
      await data.mismatch(null, { session: 'cs_unknown' });
      expect(await audit()).toEqual([
        {
          invariant: 'payment_mismatch_unrefunded',
          orderId: null,
          orderNumber: null,
          state: null,
          detail: 'payment 700 EUR on session cs_unknown (amount) recorded 20 min ago (2026-03-01T11:40:00Z), not refunded',
        },
        await finding(
          'payment_mismatch_unrefunded',
          id,
          'pending_payment',
          'payment 700 EUR on session cs_wrong_amount (amount) recorded 20 min ago (2026-03-01T11:40:00Z), not refunded',
        ),
      ]);
    });

    it('passes a mismatched payment that was refunded', async () => {
      const id = await data.order({ state: 'expired' });
      await data.mismatch(id, { refundId: 're_1' });
      expect(await audit()).toEqual([]);
    });
  });

  describe('paid_on_unpaid_order', () => {
    it('flags money taken on an order still pending, expired, cancelled or failed', async () => {
      const states = ['pending_payment', 'expired', 'cancelled', 'payment_failed'] as const;
      const ids: string[] = [];
      for (const state of states) {
        const id = await data.order({ state });
        await data.payment(id, { at: FRESH });
        ids.push(id);
      }
      const findings = await audit();
      expect(findings.map((f) => [f.invariant, f.orderId, f.state])).toEqual(ids.map((id, i) => ['paid_on_unpaid_order', id, states[i]]));
      expect(findings[0]!.detail).toMatch(/^payment \d+ of 1000 EUR \(minor units\) taken 10 min ago \(2026-03-01T11:50:00Z\)$/);
    });

    it('passes a declined payment, and a payment that did not match the order and was refunded', async () => {
      const declined = await data.order({ state: 'payment_failed' });
      await data.payment(declined, { status: 'failed' });
      const mismatched = await data.order({ state: 'expired' });
      const session = await data.payment(mismatched, { amountMinor: 700 });
      await data.mismatch(mismatched, { session, refundId: 're_1' });
      expect(await audit()).toEqual([]);
    });
  });

  describe('auditStripeRefunds', () => {
    const stripeRefund = (id: string, reference: string | null, paymentIntent: StripeRefundSeen['payment_intent'] = 'pi_1') => ({
      id,
      amount: 300,
      status: 'succeeded',
      payment_intent: paymentIntent,
      metadata: reference === null ? {} : { reference, reason: 'operator' },
    });

    it('passes each Stripe refund that is one of ours: a row’s, an earlier ask of a row, a mismatched payment given back, a migrated refund', async () => {
      const id = await healthyDelivered(data);
      const row = await data.refund(id, { stripeRefundId: 're_row', amountMinor: 300, requestedBy: 'operator', operatorUid: 'op-1' });
      await data.mismatch(null, { session: 'cs_given_back', refundId: 're_mismatch' });
      const migratedOrder = await paidOrder(data, { state: 'refunded', refundId: 're_migrated' });
      await db.query("UPDATE refunds SET idempotency_key = 'migrated:' || order_id WHERE order_id = $1", [migratedOrder]);
      expect(
        await auditStripeRefunds(db, [
          stripeRefund('re_row', row),
          // The row's first ask failed at Stripe; the row names its second.
          stripeRefund('re_failed_first', row),
          stripeRefund('re_mismatch', 'session:cs_given_back'),
          stripeRefund('re_mismatch_lost_answer', 'session:cs_given_back'),
          // Made before refunds had rows: its reference was the order.
          stripeRefund('re_before_rows', migratedOrder),
        ]),
      ).toEqual([]);
      expect(await auditStripeRefunds(db, [])).toEqual([]);
    });

    it('names a Stripe refund that matches no refund of ours', async () => {
      const id = await healthyDelivered(data);
      await data.refund(id, { stripeRefundId: 're_row', amountMinor: 300, requestedBy: 'operator', operatorUid: 'op-1' });
      expect(
        await auditStripeRefunds(db, [
          stripeRefund('re_row', null),
          // An order's id as its reference counts only for a refund migrated from before the rows.
          stripeRefund('re_by_order', id, { id: 'pi_2' }),
          stripeRefund('re_unknown', null, null),
        ]),
      ).toEqual([
        {
          refundId: 're_by_order',
          paymentIntentId: 'pi_2',
          detail: `Stripe refund re_by_order of 300 (succeeded) on pi_2 matches no refund of ours (reference ${id})`,
        },
        {
          refundId: 're_unknown',
          paymentIntentId: null,
          detail: 'Stripe refund re_unknown of 300 (succeeded) on no payment matches no refund of ours (reference none)',
        },
      ]);
    });
  });

  describe('cart_payment_split', () => {
    /** A cart of orders of these amounts (one eSIM each), the cart charging `charged`. */
    async function cart(amounts: number[], charged = amounts.reduce((a, b) => a + b, 0)) {
      const cartId = randomUUID();
      await db.query(`INSERT INTO carts (id, uid, amount_minor, currency, lang) VALUES ($1, 'u1', $2, 'EUR', 'en')`, [cartId, charged]);
      const ids: string[] = [];
      for (const amountMinor of amounts) {
        const id = await data.order({ state: 'delivered', amountMinor });
        await db.query('UPDATE orders SET cart_id = $2 WHERE id = $1', [id, cartId]);
        ids.push(id);
      }
      return ids;
    }

    it('flags a paid cart whose payment is missing on one of its eSIMs, or whose shares do not add up to what it charged', async () => {
      const session = `cs_${randomUUID()}`;
      const [first, second] = await cart([1000, 500]);
      await data.payment(first!, { amountMinor: 1000, session });
      const [other, another] = await cart([700, 700], 1500);
      await data.payment(other!, { amountMinor: 700 });
      await data.payment(another!, { amountMinor: 700 });
      expect(await only('cart_payment_split')).toEqual([
        await finding('cart_payment_split', first!, 'delivered', 'its cart was paid 1000 of 1500 EUR (minor units) on 1 of its 2 eSIMs'),
        await finding('cart_payment_split', other!, 'delivered', 'its cart was paid 1400 of 1500 EUR (minor units) on 2 of its 2 eSIMs'),
      ]);
      // Once the missing share is recorded, the first cart is whole.
      await data.payment(second!, { amountMinor: 500, session });
      expect((await only('cart_payment_split')).map((f) => f.orderId)).toEqual([other]);
    });

    it('passes an unpaid cart and one paid in full on every eSIM', async () => {
      await cart([1000, 1000]);
      const paid = await cart([1000, 300]);
      for (const [i, id] of paid.entries()) await data.payment(id, { amountMinor: [1000, 300][i]! });
      expect(await only('cart_payment_split')).toEqual([]);
    });
  });

  it('reports each finding on a line, then the count per invariant', async () => {
    const id = await data.order({ state: 'refunded' });
    const { checked, findings } = await auditDatabase(db, NOW);
    expect(checked).toBe(1);
    const lines = auditReport(findings, checked);
    // The invariant's name is padded to the longest name's width.
    const width = Math.max(...INVARIANT_NAMES.map((name) => name.length));
    expect(lines[0]).toBe(
      `${'refunded_without_refund_id'.padEnd(width)}  ${id}  ${await numberOf(id)}  refunded  refunded, but no refund id`,
    );
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('1 finding (1 orders checked):');
    expect(lines.slice(3).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual(
      INVARIANT_NAMES.map((name) => [name === 'refunded_without_refund_id' ? '1' : '0', name]),
    );
  });
});

describe('npm run orders:audit', () => {
  const [, server] = databaseDrivers();
  const run = (env: Record<string, string>) => {
    const { DATABASE_URL: _url, SHOP_DATA_DIR: _dir, ...rest } = process.env;
    return spawnSync(process.execPath, ['scripts/orders-audit.ts'], { cwd: ROOT, env: { ...rest, ...env }, encoding: 'utf8' });
  };

  it('audits DATABASE_URL: exit 1 and the report with a broken order, exit 0 and one line without', async () => {
    const db = await server!.open();
    try {
      const data = fixtures(db);
      const id = await data.order({ state: 'delivered' });
      const url = await serverUrlOf(db);
      const broken = run({ DATABASE_URL: url });
      expect(broken.stderr).toBe('');
      expect(broken.status).toBe(1);
      expect(broken.stdout).toMatch(
        new RegExp(
          `^delivered_without_esim +${id}  ES-\\d{4}-\\d{6}  delivered  delivered, but no eSIM stored for it\\n\\n1 finding \\(1 orders checked\\):\\n`,
        ),
      );
      expect(broken.stdout).toMatch(/\n +1 {2}delivered_without_esim +a delivered eSIM order has its eSIM\n/);

      await data.esim(id);
      const clean = run({ DATABASE_URL: url });
      expect([clean.status, clean.stdout]).toEqual([0, 'no order breaks an invariant (1 orders checked)\n']);
    } finally {
      await db.close();
    }
  }, 30_000);

  it('audits the PGlite data npm start keeps (SHOP_DATA_DIR), and exits 2 when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orders-audit-'));
    try {
      const dataDir = join(dir, 'pglite');
      const missing = run({ SHOP_DATA_DIR: dataDir });
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain(`${dataDir} does not exist`);

      const db = await openDatabase({ databaseUrl: undefined, dataDir });
      await fixtures(db).order({ state: 'refunded' });
      await db.close();
      const broken = run({ SHOP_DATA_DIR: dataDir });
      expect(broken.status).toBe(1);
      expect(broken.stdout).toMatch(/^refunded_without_refund_id /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseDrivers, serverUrlOf } from '../../../tests/support/databases.ts';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Db, Queryable } from '../db/db.ts';
import { openDatabase } from '../db/open.ts';
import { AUDIT_GRACE_MS, auditDatabase, auditOrders, auditReport, INVARIANT_NAMES, type InvariantName } from './audit.ts';

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
  kind: 'esim' | 'top_up';
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
  return {
    async order(fields: Partial<OrderFields> = {}): Promise<string> {
      const { state = 'paid', kind = 'esim', topUpOf = null, refundId = null, refundAmountMinor = null, amountMinor = 1000 } = fields;
      const { refundStatus = refundId ? 'succeeded' : null, refundStatusAt = STALE, refundFailures = 0 } = fields;
      const id = randomUUID();
      await db.query(
        `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, partner_code, wholesale_usd_e4, amount_minor,
           currency, lang, terms_version, terms_accepted_at, immediate_start_requested_at, kind, top_up_of, refund_id,
           refund_amount_minor, created_at, refund_status, refund_status_at, refund_failures)
         VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, 'P1', 5000, $4, 'EUR', 'en', '2026-01', $5, $5,
           $6, $7, $8, $9, $5, $10, $11, $12)`,
        [
          id,
          `uid-${id}`,
          state,
          amountMinor,
          minutesAgo(60),
          kind,
          topUpOf,
          refundId,
          refundAmountMinor,
          refundStatus,
          refundStatus ? refundStatusAt : null,
          refundFailures,
        ],
      );
      return id;
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
        `INSERT INTO esims (esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes,
           validity_days, updated_at)
         VALUES ($1, $2, '8900000000000000000', 'LPA:1$smdp.example$M1', 'smdp.example', 'M1', $3, 1073741824, 7, $4)`,
        [esimTranNo, orderId, status, STALE],
      );
      return esimTranNo;
    },
    async partnerWrite(orderId: string, call: string, outcome: 'sent' | 'applied' | 'refused', sentAt = STALE) {
      await db.query('INSERT INTO partner_writes (order_id, call, outcome, sent_at) VALUES ($1, $2, $3, $4)', [
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

  beforeAll(async () => {
    db = await open();
    data = fixtures(db);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query('TRUNCATE orders, order_events, payments, esims, partner_writes, order_emails, payment_mismatches CASCADE');
  });

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

  describe('refunded_without_refund_id', () => {
    it('flags a refunded order without the refund’s id', async () => {
      const id = await data.order({ state: 'refunded' });
      expect(await audit()).toEqual([await finding('refunded_without_refund_id', id, 'refunded', 'refunded, but no refund id')]);
    });

    it('passes a refunded order with its refund id', async () => {
      await data.order({ state: 'refunded', refundId: 're_1' });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refunded_before_succeeded', () => {
    it('flags a refunded order whose refund Stripe has not said succeeded', async () => {
      const pending = await data.order({ state: 'refunded', refundId: 're_p', refundStatus: 'pending' });
      const failed = await data.order({
        state: 'refunded',
        refundId: 're_f',
        refundStatus: 'failed',
        refundStatusAt: FRESH,
        refundFailures: 1,
      });
      expect(await only('refunded_before_succeeded')).toEqual([
        await finding('refunded_before_succeeded', pending, 'refunded', "refunded, but Stripe's refund re_p is pending"),
        await finding('refunded_before_succeeded', failed, 'refunded', "refunded, but Stripe's refund re_f is failed"),
      ]);
    });

    it('passes a refunded order whose refund succeeded, and an order still refunding while its refund is pending', async () => {
      await data.order({ state: 'refunded', refundId: 're_1', refundStatus: 'succeeded' });
      await data.order({ state: 'fulfilment_failed', refundId: 're_2', refundStatus: 'pending', refundStatusAt: FRESH });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_failed', () => {
    it('flags a refund failed over 15 minutes ago and not asked again, and refunds that failed 3 times', async () => {
      const stuck = await data.order({ state: 'fulfilment_failed', refundId: 're_1', refundStatus: 'failed', refundFailures: 1 });
      const again = await data.order({
        state: 'refund_requested',
        refundId: 're_3',
        refundStatus: 'pending',
        refundStatusAt: FRESH,
        refundFailures: 3,
      });
      expect(await audit()).toEqual([
        await finding(
          'refund_failed',
          stuck,
          'fulfilment_failed',
          '1 refund failed at Stripe; the latest, re_1, is failed since 20 min ago (2026-03-01T11:40:00Z): the money is not back',
        ),
        await finding(
          'refund_failed',
          again,
          'refund_requested',
          '3 refunds failed at Stripe; the latest, re_3, is pending since 10 min ago (2026-03-01T11:50:00Z): the money is not back',
        ),
      ]);
    });

    it('passes a refund that failed within 15 minutes, and one that succeeded after two failures', async () => {
      await data.order({ state: 'fulfilment_failed', refundId: 're_1', refundStatus: 'failed', refundStatusAt: FRESH, refundFailures: 1 });
      await data.order({ state: 'refunded', refundId: 're_2', refundStatus: 'succeeded', refundFailures: 2 });
      await data.order({ state: 'refunded', refundId: 're_4', refundStatus: 'succeeded', refundFailures: 3 });
      expect(await audit()).toEqual([]);
    });
  });

  describe('refund_pending_too_long', () => {
    it('flags a refund pending at Stripe for more than a day', async () => {
      const id = await data.order({
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
      await data.order({ state: 'refund_requested', refundId: 're_1', refundStatus: 'pending', refundStatusAt: minutesAgo(23 * 60) });
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
      const refunded = await data.order({ state: 'refunded', refundId: 're_1' });
      await data.esim(refunded, 'cancelled');
      const inUse = await data.order({ state: 'delivered' });
      await data.esim(inUse, 'active');
      expect(await audit()).toEqual([]);
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
    it('flags a refund larger than the payment, and a refund of an order never paid', async () => {
      const over = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1500 });
      await data.payment(over, { amountMinor: 1000 });
      const unpaid = await data.order({ state: 'refunded', refundId: 're_2', refundAmountMinor: 1000 });
      expect(await audit()).toEqual([
        await finding('refund_exceeds_payment', over, 'refunded', 'refunded 1500, paid 1000 (EUR minor units)'),
        await finding('refund_exceeds_payment', unpaid, 'refunded', 'refunded 1000, paid 0 (EUR minor units)'),
      ]);
    });

    it('passes a refund of the whole payment and one of part of it', async () => {
      const whole = await data.order({ state: 'refunded', refundId: 're_1', refundAmountMinor: 1000 });
      await data.payment(whole, { amountMinor: 1000 });
      const part = await data.order({ state: 'refunded', refundId: 're_2', refundAmountMinor: 400 });
      await data.payment(part, { amountMinor: 1000 });
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

  it('reports each finding on a line, then the count per invariant', async () => {
    const id = await data.order({ state: 'refunded' });
    const { checked, findings } = await auditDatabase(db, NOW);
    expect(checked).toBe(1);
    const lines = auditReport(findings, checked);
    expect(lines[0]).toBe(`refunded_without_refund_id   ${id}  ${await numberOf(id)}  refunded  refunded, but no refund id`);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('1 finding (1 orders checked):');
    expect(lines.slice(3).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual(
      INVARIANT_NAMES.map((name) => [name === 'refunded_without_refund_id' ? '1' : '0', name]),
    );
  });

  it('audits 10,000 orders in well under a second', async () => {
    await db.query(`
      INSERT INTO orders (id, uid, state, plan_id, destination, plan, partner_code, wholesale_usd_e4, amount_minor, currency, lang,
        terms_version, terms_accepted_at, immediate_start_requested_at, refund_id, refund_amount_minor, refund_status, refund_status_at)
      SELECT gen_random_uuid(), 'uid-' || i, (ARRAY['delivered', 'refunded', 'expired', 'pending_payment'])[1 + i % 4], 'plan-' || i, 'DE',
        '{}'::jsonb, 'P1', 5000, 1000, 'EUR', 'en', '2026-01', now(), now(),
        CASE WHEN i % 4 = 1 THEN 're_' || i END, CASE WHEN i % 4 = 1 THEN 1000 END, CASE WHEN i % 4 = 1 THEN 'succeeded' END, now()
      FROM generate_series(1, 10000) AS i`);
    await db.query(`
      INSERT INTO payments (order_id, provider, checkout_session_id, status, amount_minor, currency, created_at)
      SELECT id, 'stripe', 'cs_' || id, 'paid', 1000, 'EUR', now() - interval '1 day' FROM orders WHERE state IN ('delivered', 'refunded')`);
    await db.query(`
      INSERT INTO esims (esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes, validity_days)
      SELECT 'T' || id, id, '89', 'LPA:1$s$m', 's', 'm', CASE WHEN state = 'refunded' THEN 'cancelled' ELSE 'active' END, 1, 7
      FROM orders WHERE state IN ('delivered', 'refunded')`);
    await db.query(`
      INSERT INTO partner_writes (order_id, call, outcome) SELECT id, 'esim/order', 'applied' FROM orders WHERE state IN ('delivered', 'refunded');
      INSERT INTO order_emails (order_id, kind) SELECT id, 'order' FROM orders WHERE state IN ('delivered', 'refunded');
      INSERT INTO order_emails (order_id, kind) SELECT id, 'refund' FROM orders WHERE state = 'refunded';
      ANALYZE`);
    await auditOrders(db); // warm
    const started = performance.now();
    const { checked, findings } = await auditDatabase(db);
    const took = performance.now() - started;
    expect({ checked, findings }).toEqual({ checked: 10_000, findings: [] });
    console.log(`orders:audit on 10,000 orders: ${took.toFixed(0)} ms`);
    expect(took).toBeLessThan(1_000);
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

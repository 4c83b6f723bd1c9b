import type { OrderKind } from '../../contract/order-kinds.ts';
import { HELD_ORDER_AUDIT_AFTER_MS } from '../../config/constants.ts';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import { orderNumber } from './store.ts';

/**
 * The order audit (issue 20, DESIGN 7): the invariants that keep money safe, each one named,
 * described and checked by one SQL query here, and the report `npm run orders:audit` prints.
 * Each query is set-based (joins and GROUP BY over whole tables, lookups by primary or unique
 * key), so the whole audit stays well under a second on 10,000 orders.
 */

/** How long work in flight may take before the audit calls it stuck: a payment without its eSIM or refund, a partner write nobody settled. */
export const AUDIT_GRACE_MS = 15 * 60_000;
const GRACE = `${AUDIT_GRACE_MS / 60_000} minutes`;

/** A broken invariant: which one, the order concerned (none for a payment that names no order of ours), and what is wrong. */
export interface AuditFinding {
  invariant: InvariantName;
  orderId: string | null;
  /** What the buyer quotes: ES-2026-000123. */
  orderNumber: string | null;
  state: OrderState | null;
  detail: string;
}

/** The order columns every invariant's query answers (null when a payment mismatch names no order). */
interface OrderColumns {
  order_id: string | null;
  number: number | null;
  order_created_at: Date | null;
  state: OrderState | null;
}

interface Invariant<Row> {
  /** What must hold, for whoever reads the report. */
  description: string;
  /** Answers one row per finding; `$1` is the audit's time less AUDIT_GRACE_MS (or `graceMs`), when `graced`. */
  sql: string;
  graced?: true;
  /** How long this invariant lets work in flight take, when not AUDIT_GRACE_MS. */
  graceMs?: number;
  detail(row: OrderColumns & Row, now: Date): string;
}

const ORDER_COLUMNS = 'o.id AS order_id, o.number, o.created_at AS order_created_at, o.state';

/**
 * A payment that counts for its order: paid, and not one that reached us for an order it does not
 * match and was given back (payment_mismatches with a refund_id: that money is settled already).
 */
const COUNTED_PAYMENT = `p.status = 'paid' AND NOT EXISTS (
  SELECT 1 FROM payment_mismatches m WHERE m.checkout_session_id = p.checkout_session_id AND m.refund_id IS NOT NULL)`;

/** Order states in which no delivery, refund or reconcile run looks at the order. */
const UNPAID_STATES = `('pending_payment', 'expired', 'cancelled', 'payment_failed')`;

/** Per order: what its refunds give back or will (every one but the cancelled), and what Stripe says is back. */
const REFUNDED_SQL = `
  SELECT order_id, sum(amount_minor) FILTER (WHERE status <> 'cancelled') AS counted,
    sum(amount_minor) FILTER (WHERE status = 'succeeded') AS back,
    count(*) FILTER (WHERE status NOT IN ('succeeded', 'cancelled')) AS unsettled
  FROM refunds GROUP BY order_id`;

/** The order's paid amount (its latest counted payment: the one its refunds give back). */
const PAID_SQL = `
  SELECT DISTINCT ON (p.order_id) p.order_id, p.amount_minor AS amount FROM payments p WHERE ${COUNTED_PAYMENT}
  ORDER BY p.order_id, p.id DESC`;

const define = <Row>(invariant: Invariant<Row>) => invariant as Invariant<Record<string, unknown>>;

/** Refunds of one order that fail before the audit says they keep failing (each is asked again, later each time). */
export const REFUND_FAILURES_LIMIT = 3;
/** How long a refund may stay pending at Stripe (card refunds settle within minutes; a short balance holds them). */
export const REFUND_PENDING_LIMIT_MS = 24 * 3600_000;

export const INVARIANTS = {
  paid_without_esim_or_refund: define<{ kind: OrderKind; paid_at: Date }>({
    description: `an order paid more than ${GRACE} ago has its eSIM (a top-up: is delivered) or a refund`,
    graced: true,
    sql: `
      WITH paid AS (
        SELECT p.order_id, min(p.created_at) AS paid_at, max(p.amount_minor) AS amount FROM payments p
        WHERE ${COUNTED_PAYMENT} AND p.created_at < $1
        GROUP BY p.order_id
      )
      SELECT ${ORDER_COLUMNS}, o.kind, paid.paid_at
      FROM paid JOIN orders o ON o.id = paid.order_id
      LEFT JOIN (${REFUNDED_SQL}) r ON r.order_id = o.id
      WHERE coalesce(r.counted, 0) < paid.amount
        -- Held for an admin's decision: held_too_long names it after a day.
        AND NOT (o.state = 'paid' AND EXISTS (SELECT 1 FROM order_holds h WHERE h.order_id = o.id AND h.hold = 'held'))
        AND CASE o.kind
          WHEN 'esim' THEN NOT EXISTS (SELECT 1 FROM esims e WHERE e.order_id = o.id)
          ELSE o.state <> 'delivered'
        END`,
    detail: (row, now) => `paid ${ago(row.paid_at, now)}, ${row.kind === 'esim' ? 'no eSIM' : 'top-up not delivered'} and no refund`,
  }),

  delivered_without_esim: define<object>({
    description: 'a delivered eSIM order has its eSIM',
    sql: `
      SELECT ${ORDER_COLUMNS} FROM orders o
      WHERE o.state = 'delivered' AND o.kind = 'esim'
        AND NOT EXISTS (SELECT 1 FROM esims e WHERE e.order_id = o.id)`,
    detail: () => 'delivered, but no eSIM stored for it',
  }),

  one_outcome: define<{ replaced_by: string | null; exchanged: number; refunded: number }>({
    description: 'a purchase ends in one outcome: kept, refunded, replaced or exchanged (an operator may refund parts of any), never two',
    // Read from what happened, not from purchase_outcomes, which is what decides it: a replacement
    // that was delivered (one that failed refunds the original instead), the exchange's refund, and
    // the buyer's or the shop's own refunds; cancelled refunds gave nothing back.
    sql: `
      WITH given AS (
        SELECT order_id, count(*) FILTER (WHERE reason = 'exchanged') AS exchanged,
          count(*) FILTER (WHERE reason <> 'exchanged' AND requested_by <> 'operator') AS refunded
        FROM refunds WHERE status <> 'cancelled' GROUP BY order_id
      )
      SELECT ${ORDER_COLUMNS}, r.id AS replaced_by, coalesce(g.exchanged, 0)::int AS exchanged, coalesce(g.refunded, 0)::int AS refunded
      FROM orders o
      LEFT JOIN order_links x ON x.of_order_id = o.id AND x.link = 'replacement'
      LEFT JOIN orders r ON r.id = x.order_id AND r.state NOT IN ('fulfilment_failed', 'refunded')
      LEFT JOIN given g ON g.order_id = o.id
      WHERE (r.id IS NOT NULL)::int + (coalesce(g.exchanged, 0) > 0)::int + (coalesce(g.refunded, 0) > 0)::int > 1`,
    detail: (row) =>
      [row.replaced_by && `replaced by ${row.replaced_by}`, row.exchanged > 0 && 'refunded as exchanged', row.refunded > 0 && 'refunded']
        .filter(Boolean)
        .join(' and '),
  }),

  refunded_without_refund_id: define<object>({
    description: 'a refunded order has its refunds, each named at the payment provider',
    sql: `
      SELECT ${ORDER_COLUMNS} FROM orders o
      -- A replacement at our cost (amount 0) that could not be delivered ends refunded of nothing.
      WHERE o.state = 'refunded' AND o.amount_minor > 0
        AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.id AND r.status = 'succeeded')`,
    detail: () => 'refunded, but no refund id',
  }),

  refunded_before_succeeded: define<{ unsettled: number; back: number | null; paid: number | null; currency: string }>({
    description: 'an order is refunded (and its buyer told so) only once Stripe says its refunds succeeded and gave back what was paid',
    sql: `
      SELECT ${ORDER_COLUMNS}, r.unsettled, r.back, paid.amount AS paid, o.currency FROM orders o
      JOIN (${REFUNDED_SQL}) r ON r.order_id = o.id
      LEFT JOIN (${PAID_SQL}) paid ON paid.order_id = o.id
      WHERE o.state = 'refunded' AND (r.unsettled > 0 OR coalesce(r.back, 0) < coalesce(paid.amount, 0))`,
    detail: (row) =>
      `refunded, but ${Number(row.unsettled) > 0 ? `${row.unsettled} of its refunds not succeeded at Stripe` : `only ${row.back ?? 0} of ${row.paid ?? 0} (${row.currency} minor units) is back`}`,
  }),

  refund_failed: define<{ refund_id: string; stripe_refund_id: string | null; status: string; failures: number; status_at: Date }>({
    description: `a refund Stripe reported failed is asked again within ${GRACE}, and a refund does not fail ${REFUND_FAILURES_LIMIT} times`,
    graced: true,
    sql: `
      SELECT ${ORDER_COLUMNS}, r.id AS refund_id, r.stripe_refund_id, r.status, r.failures, r.status_at
      FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE (r.status = 'failed' AND r.status_at < $1)
         OR (r.failures >= ${REFUND_FAILURES_LIMIT} AND r.status NOT IN ('succeeded', 'cancelled'))`,
    detail: (row, now) =>
      `refund ${row.refund_id}: ${row.failures} ${row.failures === 1 ? 'refund' : 'refunds'} failed at Stripe; the latest, ${row.stripe_refund_id ?? '(none)'}, is ${row.status} since ${ago(row.status_at, now)}: the money is not back`,
  }),

  refund_pending_too_long: define<{ refund_id: string; stripe_refund_id: string | null; status_at: Date }>({
    description: `a refund is pending at Stripe for ${REFUND_PENDING_LIMIT_MS / 3600_000} hours at most`,
    graced: true,
    graceMs: REFUND_PENDING_LIMIT_MS,
    sql: `
      SELECT ${ORDER_COLUMNS}, r.id AS refund_id, r.stripe_refund_id, r.status_at
      FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE r.status = 'pending' AND r.status_at < $1`,
    detail: (row, now) => `refund ${row.stripe_refund_id ?? row.refund_id} pending at Stripe since ${ago(row.status_at, now)}`,
  }),

  refund_not_asked: define<{ refund_id: string; created_at: Date; asks: number }>({
    description: `a refund asked for is asked of Stripe (or its lost answer read back) within ${GRACE}`,
    graced: true,
    sql: `
      SELECT ${ORDER_COLUMNS}, r.id AS refund_id, r.created_at, r.asks
      FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE r.status = 'requested' AND r.created_at < $1`,
    detail: (row, now) =>
      `refund ${row.refund_id} asked for ${ago(row.created_at, now)}, ${row.asks > 0 ? `asked of Stripe ${row.asks} times, answer never read` : 'never asked of Stripe'}`,
  }),

  succeeded_refund_without_stripe_id: define<{ refund_id: string }>({
    description: 'each succeeded refund names its refund at Stripe',
    sql: `
      SELECT ${ORDER_COLUMNS}, r.id AS refund_id FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE r.status = 'succeeded' AND r.stripe_refund_id IS NULL`,
    detail: (row) => `refund ${row.refund_id} succeeded, but names no Stripe refund`,
  }),

  refund_asked_by_nobody: define<{ refund_id: string; requested_by: string | null; operator_uid: string | null }>({
    description: 'every refund was asked by someone: the buyer, the shop, or an operator named by uid',
    sql: `
      SELECT ${ORDER_COLUMNS}, r.id AS refund_id, r.requested_by, r.operator_uid FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE r.requested_by IS NULL OR r.requested_by NOT IN ('buyer', 'operator', 'system')
         OR (r.requested_by = 'operator') <> (coalesce(r.operator_uid, '') <> '')`,
    detail: (row) =>
      `refund ${row.refund_id} asked by ${row.requested_by ?? 'nobody'}${row.operator_uid ? ` (operator uid ${row.operator_uid})` : row.requested_by === 'operator' ? ', no operator named' : ''}`,
  }),

  cancelled_esim_not_refunded: define<{ esim_tran_no: string; cancelled_at: Date }>({
    description:
      'an eSIM cancelled at the partner belongs to a refunded order (or was revoked by an operator, which refunds nothing, or replaced at our cost)',
    sql: `
      SELECT ${ORDER_COLUMNS}, e.esim_tran_no, e.updated_at AS cancelled_at
      FROM esims e JOIN orders o ON o.id = e.order_id
      WHERE e.status = 'cancelled'
        AND NOT EXISTS (SELECT 1 FROM order_links x WHERE x.of_order_id = o.id AND x.link = 'replacement')
        AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.id AND r.status <> 'cancelled')
        AND NOT EXISTS (SELECT 1 FROM operator_actions a WHERE a.order_id = o.id AND a.action = 'esim_revoke' AND a.outcome IN ('done', 'already'))`,
    detail: (row, now) => `eSIM ${row.esim_tran_no} cancelled (last changed ${ago(row.cancelled_at, now)}), order not refunded`,
  }),

  more_than_one_partner_write: define<{ call: string; applied: number }>({
    description: 'the partner applied at most one esim/order and one esim/topup per order',
    sql: `
      SELECT ${ORDER_COLUMNS}, w.call, w.applied
      FROM (
        SELECT order_id, call, count(*) AS applied FROM partner_writes
        WHERE outcome = 'applied' AND call IN ('esim/order', 'esim/topup')
        GROUP BY order_id, call HAVING count(*) > 1
      ) w JOIN orders o ON o.id = w.order_id`,
    detail: (row) => `${row.call} applied ${row.applied} times`,
  }),

  partner_write_unsettled: define<{ write_id: number; call: string; sent_at: Date }>({
    description: `a write sent to the partner is settled (applied or refused) within ${GRACE}`,
    graced: true,
    sql: `
      SELECT ${ORDER_COLUMNS}, w.id AS write_id, w.call, w.sent_at
      FROM partner_writes w JOIN orders o ON o.id = w.order_id
      WHERE w.outcome = 'sent' AND w.sent_at < $1`,
    detail: (row, now) => `${row.call} (partner write ${row.write_id}) sent ${ago(row.sent_at, now)}, never settled`,
  }),

  refund_exceeds_payment: define<{ refunded_minor: number; paid_minor: number; currency: string }>({
    description: 'the refunds of an order (every one but the cancelled) never exceed what was paid for it',
    sql: `
      SELECT ${ORDER_COLUMNS}, r.counted AS refunded_minor, coalesce(paid.amount, 0) AS paid_minor, o.currency
      FROM orders o
      JOIN (${REFUNDED_SQL}) r ON r.order_id = o.id
      LEFT JOIN (
        SELECT p.order_id, sum(p.amount_minor) AS amount FROM payments p WHERE ${COUNTED_PAYMENT} GROUP BY p.order_id
      ) paid ON paid.order_id = o.id
      WHERE r.counted > coalesce(paid.amount, 0)`,
    detail: (row) => `refunded ${row.refunded_minor}, paid ${row.paid_minor} (${row.currency} minor units)`,
  }),

  duplicate_email: define<{ kind: string; sent: number }>({
    description: 'an order gets each kind of e-mail (order, top-up, refund) at most once',
    sql: `
      SELECT ${ORDER_COLUMNS}, m.kind, m.sent
      FROM (
        SELECT order_id, kind, count(*) AS sent FROM order_emails WHERE operator_action_id IS NULL GROUP BY order_id, kind HAVING count(*) > 1
      ) m JOIN orders o ON o.id = m.order_id`,
    detail: (row) => `${row.kind} e-mail sent ${row.sent} times`,
  }),

  payment_mismatch_unrefunded: define<{
    checkout_session_id: string;
    amount_minor: number | null;
    currency: string | null;
    reason: string;
    recorded_at: Date;
  }>({
    description: 'a payment that does not match its order is given back',
    sql: `
      SELECT o.id AS order_id, o.number, o.created_at AS order_created_at, o.state,
        m.checkout_session_id, m.amount_minor, m.currency, m.reason, m.created_at AS recorded_at
      FROM payment_mismatches m LEFT JOIN orders o ON o.id = m.order_id
      WHERE m.refund_id IS NULL`,
    detail: (row, now) =>
      `payment ${row.amount_minor === null ? '(amount unknown)' : `${row.amount_minor} ${row.currency ?? ''}`.trim()} on session ${row.checkout_session_id} (${row.reason}) recorded ${ago(row.recorded_at, now)}, not refunded`,
  }),

  paid_on_unpaid_order: define<{ payment_id: number; amount_minor: number; currency: string; paid_at: Date }>({
    description: 'no money is taken on an order still pending_payment, expired, cancelled or payment_failed',
    sql: `
      SELECT ${ORDER_COLUMNS}, p.id AS payment_id, p.amount_minor, p.currency, p.created_at AS paid_at
      FROM payments p JOIN orders o ON o.id = p.order_id
      WHERE ${COUNTED_PAYMENT} AND o.state IN ${UNPAID_STATES}`,
    detail: (row, now) => `payment ${row.payment_id} of ${row.amount_minor} ${row.currency} (minor units) taken ${ago(row.paid_at, now)}`,
  }),

  cart_payment_split: define<{ cart_amount: number; currency: string; paid_total: number; paid_orders: number; orders: number }>({
    description: "a cart's one payment is recorded on every one of its eSIMs' orders, the shares adding up to what the cart charged",
    sql: `
      WITH split AS (
        SELECT o.cart_id, count(paid.order_id) AS paid_orders, count(*) AS orders, coalesce(sum(paid.amount), 0) AS paid_total,
          min(o.number) AS first
        FROM orders o LEFT JOIN (${PAID_SQL}) paid ON paid.order_id = o.id
        WHERE o.cart_id IS NOT NULL GROUP BY o.cart_id
      )
      SELECT ${ORDER_COLUMNS}, c.amount_minor AS cart_amount, c.currency, split.paid_total, split.paid_orders, split.orders
      FROM split JOIN carts c ON c.id = split.cart_id JOIN orders o ON o.number = split.first
      WHERE split.paid_orders > 0 AND (split.paid_orders < split.orders OR split.paid_total <> c.amount_minor)`,
    detail: (row) =>
      `its cart was paid ${row.paid_total} of ${row.cart_amount} ${row.currency} (minor units) on ${row.paid_orders} of its ${row.orders} eSIMs`,
  }),

  held_too_long: define<{ held_at: Date }>({
    description: `an order held for its charge's risk (Stripe Radar: highest) is approved or rejected within ${HELD_ORDER_AUDIT_AFTER_MS / 3600_000} hours`,
    graced: true,
    graceMs: HELD_ORDER_AUDIT_AFTER_MS,
    sql: `SELECT ${ORDER_COLUMNS}, h.held_at FROM order_holds h JOIN orders o ON o.id = h.order_id
          WHERE o.state = 'paid' AND h.hold = 'held' AND h.held_at < $1`,
    detail: (row, now) => `held ${ago(row.held_at, now)} for an admin to approve (deliver) or reject (refund)`,
  }),

  sales_paused: define<{ since: Date; needed_usd_e4: number; partner: string }>({
    description: 'every partner takes orders: none is paused because its prepaid balance ran dry (each order refunded for it is listed)',
    sql: `
      SELECT ${ORDER_COLUMNS}, p.since, p.needed_usd_e4, p.partner
      FROM sales_pauses p
        LEFT JOIN (order_refund_reasons r JOIN order_sourcing os ON os.order_id = r.order_id JOIN orders o ON o.id = r.order_id)
          ON r.reason = 'out_of_balance' AND os.partner = p.partner AND o.updated_at >= p.since
      WHERE p.cleared_at IS NULL AND p.partner IS NOT NULL`,
    detail: (row, now) =>
      `orders to ${row.partner} paused ${ago(row.since, now)}: its balance cannot pay USD ${(row.needed_usd_e4 / 10_000).toFixed(2)}; top it up (the reconcile job resumes it)${row.order_id ? ', this order refunded for it' : ''}`,
  }),

  auto_top_up_in_doubt: define<{ esim_order_id: string; crossing: string; auto_state: string; since: Date }>({
    description:
      'every automatic top-up due is settled within minutes: charged (its order then delivered or refunded), refused by the bank, or not charged for a reason (auto_top_ups, issue 49)',
    graced: true,
    sql: `
      SELECT ${ORDER_COLUMNS}, a.esim_order_id, a.crossing, a.state AS auto_state, a.updated_at AS since
      FROM auto_top_ups a LEFT JOIN orders o ON o.id = a.order_id
      WHERE a.state IN ('due', 'charging') AND a.updated_at < $1`,
    detail: (row, now) =>
      `automatic top-up of eSIM ${row.esim_order_id} at ${row.crossing} ${row.auto_state === 'due' ? 'never charged' : 'charge in doubt'} since ${ago(row.since, now)}`,
  }),

  job_dead: define<{ kind: string; key: string; attempts: number; last_error: string | null; dead_at: Date }>({
    description: 'no job gave up: every job (an order to deliver, refund or e-mail, a sweep) ends done, never dead (src/server/jobs)',
    sql: `
      SELECT ${ORDER_COLUMNS}, j.kind, j.key, j.attempts, j.last_error, j.updated_at AS dead_at
      FROM jobs j LEFT JOIN orders o ON o.id = j.order_id WHERE j.state = 'dead'`,
    detail: (row, now) =>
      `its job ${row.key} (${row.kind}) gave up ${ago(row.dead_at, now)} after ${row.attempts} tries${row.last_error ? `: ${row.last_error}` : ''}`,
  }),
};

export type InvariantName = keyof typeof INVARIANTS;
export const INVARIANT_NAMES = Object.keys(INVARIANTS) as InvariantName[];

/** Every order that breaks an invariant, invariant by invariant (in INVARIANTS' order), by order number. */
export async function auditOrders(db: Queryable, now: Date = new Date()): Promise<AuditFinding[]> {
  const cutoff = new Date(now.getTime() - AUDIT_GRACE_MS);
  const findings: AuditFinding[] = [];
  // One after another: on one connection (a transaction, PGlite) queries cannot overlap anyway.
  for (const name of INVARIANT_NAMES) {
    const invariant = INVARIANTS[name];
    const rows = await db.query<OrderColumns & Record<string, unknown>>(
      `SELECT * FROM (${invariant.sql}) finding ORDER BY number NULLS FIRST`,
      invariant.graced ? [invariant.graceMs === undefined ? cutoff : new Date(now.getTime() - invariant.graceMs)] : undefined,
    );
    for (const row of rows) {
      findings.push({
        invariant: name,
        orderId: row.order_id,
        orderNumber:
          row.number !== null && row.order_created_at ? orderNumber({ number: row.number, created_at: row.order_created_at }) : null,
        state: row.state,
        detail: invariant.detail(row, now),
      });
    }
  }
  return findings;
}

/**
 * The audit on one consistent snapshot of the database (a read-only, repeatable-read transaction:
 * a write meanwhile never shows half), with the number of orders it looked at.
 */
export async function auditDatabase(db: Db, now: Date = new Date()): Promise<{ checked: number; findings: AuditFinding[] }> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const [row] = await tx.query<{ orders: number }>('SELECT count(*) AS orders FROM orders');
    return { checked: row!.orders, findings: await auditOrders(tx, now) };
  });
}

/** The report: one line per finding, then the count per invariant; or one line when nothing is broken. */
export function auditReport(findings: readonly AuditFinding[], checked: number): string[] {
  if (findings.length === 0) return [`no order breaks an invariant (${checked} orders checked)`];
  const width = Math.max(...INVARIANT_NAMES.map((name) => name.length));
  const lines = findings.map((f) =>
    [f.invariant.padEnd(width), f.orderId ?? '(no order)', f.orderNumber ?? '-', f.state ?? '-', f.detail].join('  '),
  );
  lines.push('', `${findings.length} ${findings.length === 1 ? 'finding' : 'findings'} (${checked} orders checked):`);
  for (const name of INVARIANT_NAMES) {
    const count = findings.filter((f) => f.invariant === name).length;
    lines.push(`${String(count).padStart(6)}  ${name.padEnd(width)}  ${INVARIANTS[name].description}`);
  }
  return lines;
}

/** "40 min ago", "3 h ago", "2 d ago" before the audit's time, with the time itself. */
function ago(at: Date, now: Date): string {
  const minutes = Math.floor((now.getTime() - at.getTime()) / 60_000);
  const span = minutes < 120 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 1440)} d`;
  return `${span} ago (${at.toISOString().slice(0, 19)}Z)`;
}

/** A refund as Stripe lists it (the SDK's Refund: id, amount, payment_intent, metadata, status). */
export interface StripeRefundSeen {
  id: string;
  amount: number;
  status: string | null;
  payment_intent: string | { id: string } | null;
  metadata: Record<string, string> | null;
}

/**
 * The invariant only Stripe's side can show: every refund Stripe made is one of ours. It matches a
 * refund row (the one naming it, or, for an earlier ask that failed, the row its
 * metadata.reference names), a payment mismatch given back (its refund_id, or its
 * 'session:…' reference), or, made before refunds had rows, the order its reference names. One
 * that matches none is a finding: money went back that no refund asked for. The caller lists
 * Stripe's refunds (the fault run, per payment intent); this reads the database.
 */
export async function auditStripeRefunds(
  db: Queryable,
  refunds: readonly StripeRefundSeen[],
): Promise<{ refundId: string; paymentIntentId: string | null; detail: string }[]> {
  if (refunds.length === 0) return [];
  const ids = refunds.map((r) => r.id);
  const references = refunds.map((r) => r.metadata?.['reference'] ?? '');
  const matched = await db.query<{ id: string }>(
    `SELECT s.id FROM unnest($1::text[], $2::text[]) AS s (id, reference)
     WHERE EXISTS (SELECT 1 FROM refunds r WHERE r.stripe_refund_id = s.id OR r.id::text = s.reference)
        OR EXISTS (SELECT 1 FROM payment_mismatches m WHERE m.refund_id = s.id OR 'session:' || m.checkout_session_id = s.reference)
        OR EXISTS (SELECT 1 FROM refunds r WHERE r.order_id::text = s.reference AND r.idempotency_key LIKE 'migrated:%')`,
    [ids, references],
  );
  const known = new Set(matched.map((m) => m.id));
  return refunds
    .filter((r) => !known.has(r.id))
    .map((r) => {
      const intent = typeof r.payment_intent === 'string' ? r.payment_intent : (r.payment_intent?.id ?? null);
      return {
        refundId: r.id,
        paymentIntentId: intent,
        detail: `Stripe refund ${r.id} of ${r.amount} (${r.status ?? 'status unknown'}) on ${intent ?? 'no payment'} matches no refund of ours (reference ${r.metadata?.['reference'] ?? 'none'})`,
      };
    });
}

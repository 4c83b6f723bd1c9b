import type { OrderState } from '../../contract/shop-api.ts';
import type { Db, Queryable } from '../db/db.ts';
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

const define = <Row>(invariant: Invariant<Row>) => invariant as Invariant<Record<string, unknown>>;

/** Refunds of one order that fail before the audit says they keep failing (each is asked again, later each time). */
export const REFUND_FAILURES_LIMIT = 3;
/** How long a refund may stay pending at Stripe (card refunds settle within minutes; a short balance holds them). */
export const REFUND_PENDING_LIMIT_MS = 24 * 3600_000;

export const INVARIANTS = {
  paid_without_esim_or_refund: define<{ kind: 'esim' | 'top_up'; paid_at: Date }>({
    description: `an order paid more than ${GRACE} ago has its eSIM (a top-up: is delivered) or a refund`,
    graced: true,
    sql: `
      WITH paid AS (
        SELECT p.order_id, min(p.created_at) AS paid_at FROM payments p
        WHERE ${COUNTED_PAYMENT} AND p.created_at < $1
        GROUP BY p.order_id
      )
      SELECT ${ORDER_COLUMNS}, o.kind, paid.paid_at
      FROM paid JOIN orders o ON o.id = paid.order_id
      WHERE o.refund_id IS NULL
        AND CASE o.kind
          WHEN 'top_up' THEN o.state <> 'delivered'
          ELSE NOT EXISTS (SELECT 1 FROM esims e WHERE e.order_id = o.id)
        END`,
    detail: (row, now) => `paid ${ago(row.paid_at, now)}, ${row.kind === 'top_up' ? 'top-up not delivered' : 'no eSIM'} and no refund`,
  }),

  delivered_without_esim: define<object>({
    description: 'a delivered eSIM order has its eSIM',
    sql: `
      SELECT ${ORDER_COLUMNS} FROM orders o
      WHERE o.state = 'delivered' AND o.kind = 'esim'
        AND NOT EXISTS (SELECT 1 FROM esims e WHERE e.order_id = o.id)`,
    detail: () => 'delivered, but no eSIM stored for it',
  }),

  refunded_without_refund_id: define<object>({
    description: 'a refunded order names its refund at the payment provider',
    sql: `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.state = 'refunded' AND o.refund_id IS NULL`,
    detail: () => 'refunded, but no refund id',
  }),

  refunded_before_succeeded: define<{ refund_id: string; refund_status: string | null }>({
    description: 'an order is refunded (and its buyer told so) only once Stripe says its refund succeeded',
    sql: `
      SELECT ${ORDER_COLUMNS}, o.refund_id, o.refund_status FROM orders o
      WHERE o.state = 'refunded' AND o.refund_id IS NOT NULL AND o.refund_status IS DISTINCT FROM 'succeeded'`,
    detail: (row) => `refunded, but Stripe's refund ${row.refund_id} is ${row.refund_status ?? 'of unknown status'}`,
  }),

  refund_failed: define<{ refund_id: string; refund_status: string | null; refund_failures: number; refund_status_at: Date | null }>({
    description: `a refund Stripe reported failed is asked again within ${GRACE}, and an order's refunds do not fail ${REFUND_FAILURES_LIMIT} times`,
    graced: true,
    sql: `
      SELECT ${ORDER_COLUMNS}, o.refund_id, o.refund_status, o.refund_failures, o.refund_status_at FROM orders o
      WHERE (o.refund_status = 'failed' AND o.refund_status_at < $1)
         OR (o.refund_failures >= ${REFUND_FAILURES_LIMIT} AND o.refund_status IS DISTINCT FROM 'succeeded')`,
    detail: (row, now) =>
      `${row.refund_failures} ${row.refund_failures === 1 ? 'refund' : 'refunds'} failed at Stripe; the latest, ${row.refund_id}, is ${row.refund_status ?? 'of unknown status'}${row.refund_status_at ? ` since ${ago(row.refund_status_at, now)}` : ''}: the money is not back`,
  }),

  refund_pending_too_long: define<{ refund_id: string; refund_status_at: Date }>({
    description: `a refund is pending at Stripe for ${REFUND_PENDING_LIMIT_MS / 3600_000} hours at most`,
    graced: true,
    graceMs: REFUND_PENDING_LIMIT_MS,
    sql: `
      SELECT ${ORDER_COLUMNS}, o.refund_id, o.refund_status_at FROM orders o
      WHERE o.refund_status = 'pending' AND o.refund_status_at < $1`,
    detail: (row, now) => `refund ${row.refund_id} pending at Stripe since ${ago(row.refund_status_at, now)}`,
  }),

  cancelled_esim_not_refunded: define<{ esim_tran_no: string; cancelled_at: Date }>({
    description: 'an eSIM cancelled at the partner belongs to a refunded order',
    sql: `
      SELECT ${ORDER_COLUMNS}, e.esim_tran_no, e.updated_at AS cancelled_at
      FROM esims e JOIN orders o ON o.id = e.order_id
      WHERE e.status = 'cancelled' AND o.refund_id IS NULL`,
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

  refund_exceeds_payment: define<{ refund_amount_minor: number; paid_minor: number; currency: string }>({
    description: 'an order is refunded at most what was paid for it',
    sql: `
      SELECT ${ORDER_COLUMNS}, o.refund_amount_minor, coalesce(paid.amount, 0) AS paid_minor, o.currency
      FROM orders o
      LEFT JOIN (
        SELECT p.order_id, sum(p.amount_minor) AS amount FROM payments p WHERE ${COUNTED_PAYMENT} GROUP BY p.order_id
      ) paid ON paid.order_id = o.id
      WHERE o.refund_amount_minor > coalesce(paid.amount, 0)`,
    detail: (row) => `refunded ${row.refund_amount_minor}, paid ${row.paid_minor} (${row.currency} minor units)`,
  }),

  duplicate_email: define<{ kind: string; sent: number }>({
    description: 'an order gets each kind of e-mail (order, top-up, refund) at most once',
    sql: `
      SELECT ${ORDER_COLUMNS}, m.kind, m.sent
      FROM (
        SELECT order_id, kind, count(*) AS sent FROM order_emails GROUP BY order_id, kind HAVING count(*) > 1
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

  sales_paused: define<{ since: Date; needed_usd_e4: number }>({
    description: "the shop sells: not paused because the partner's prepaid balance ran dry (each order refunded for it is listed)",
    sql: `
      SELECT ${ORDER_COLUMNS}, p.since, p.needed_usd_e4
      FROM sales_pauses p LEFT JOIN orders o ON o.refund_reason = 'out_of_balance' AND o.updated_at >= p.since
      WHERE p.cleared_at IS NULL`,
    detail: (row, now) =>
      `selling paused ${ago(row.since, now)}: the partner's balance cannot pay USD ${(row.needed_usd_e4 / 10_000).toFixed(2)}; top it up (the reconcile job resumes selling)${row.order_id ? ', this order refunded for it' : ''}`,
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

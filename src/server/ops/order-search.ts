import { OPS_LIST_LIMIT } from '../../config/constants.ts';
import type { OpsOrderQuery, OpsOrderSummary } from '../../contract/ops-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { needsAttention } from '../fraud/signals.ts';
import { orderNumber } from '../orders/store.ts';
import { SOURCING_COLUMNS, SOURCING_JOIN } from '../orders/sourcing.ts';
import type { OrderRow, OrderSourcing } from '../orders/store.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import { signalText } from './signal-text.ts';

/** How long a paid order may wait for its eSIM before it needs someone. */
const STUCK_AFTER = '30 minutes';

/**
 * Why an order needs someone, in SQL over `o` (an order): held for review, stuck in delivery,
 * a failed delivery or refund, an error on its last try. Fraud signals (fraud/signals.ts) are
 * added for the "needs attention" list and the order page.
 */
const ATTENTION = `array_remove(ARRAY[
    CASE WHEN o.state IN ('paid', 'provisioning') AND o.updated_at < now() - interval '${STUCK_AFTER}' THEN 'stuck' END,
    CASE WHEN o.state = 'fulfilment_failed' THEN 'delivery_failed' END,
    CASE WHEN o.state IN ('paid', 'provisioning') AND EXISTS (
      SELECT 1 FROM jobs j WHERE j.order_id = o.id AND j.state = 'pending' AND j.last_error IS NOT NULL) THEN 'delivery_retrying' END,
    -- Its job gave up (jobs/queue.ts): nothing tries it again until someone looks.
    CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.order_id = o.id AND j.state = 'dead') THEN 'job_dead' END,
    CASE WHEN o.state = 'refund_requested' AND o.updated_at < now() - interval '1 day' THEN 'refund_slow' END,
    CASE WHEN EXISTS (SELECT 1 FROM order_holds h WHERE h.order_id = o.id AND h.hold = 'held') THEN 'held' END
  ], NULL) AS attention`;

export type OrderSummaryRow = OrderRow & OrderSourcing & { attention: string[] };

/** An order with its partner and why it needs someone, for a query that adds `WHERE …` on `o`. */
const SUMMARY = `SELECT o.*, ${SOURCING_COLUMNS}, ${ATTENTION} FROM orders o ${SOURCING_JOIN}`;

/** An order as the back office lists it, its partner by name. */
export const summary = (row: OrderSummaryRow, partners: Pick<Partners, 'nameOf'>): OpsOrderSummary => ({
  id: row.id,
  number: orderNumber(row),
  state: row.state,
  kind: row.kind,
  email: row.email,
  planName: `${row.plan.metadata.dataAmount.value} ${row.plan.metadata.dataAmount.unit} · ${row.plan.validity} ${row.plan.validityUnit}`,
  destination: row.destination,
  total: { amountMinor: row.amount_minor, currency: row.currency },
  createdAt: row.created_at.toISOString(),
  partner: partners.nameOf(row.partner),
  attention: row.attention,
});

/** The order number a search text names: ES-2026-000123, es-2026-123, 2026-000123, 000123, 123 (the last digits). */
export function orderNumberIn(q: string): number | undefined {
  const number = /^(?:es-?)?(?:\d{4}-)?0*(\d{1,12})$/i.exec(q);
  return number ? Number(number[1]) : undefined;
}

/** What a search text names: an order number, an e-mail, an ICCID, a Stripe id, else a partner order number or an account. */
export function searchKey(q: string): { sql: string; value: unknown } {
  const number = orderNumberIn(q);
  if (number !== undefined) return { sql: 'o.number = $1', value: number };
  if (q.includes('@')) return { sql: 'lower(o.email) = lower($1)', value: q };
  if (/^\d{18,22}F?$/i.test(q)) {
    // A top-up's order names the eSIM's first order: both are found by the eSIM's ICCID.
    return { sql: 'EXISTS (SELECT 1 FROM esims e WHERE e.iccid = $1 AND e.order_id IN (o.id, o.top_up_of))', value: q };
  }
  if (q.startsWith('cs_'))
    return { sql: 'EXISTS (SELECT 1 FROM order_checkouts c WHERE c.order_id = o.id AND c.checkout_session_id = $1)', value: q };
  if (/^(pi|ch|py)_/.test(q)) {
    return { sql: 'EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.payment_intent_id = $1)', value: q };
  }
  return { sql: '(os.partner_order_no = $1 OR o.uid = $1)', value: q };
}

/** The back office's order list: a search, or the newest orders by state, dates and attention. */
export async function searchOrders(db: Queryable, query: OpsOrderQuery): Promise<OrderSummaryRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replaceAll('$1', `$${params.length}`));
  };
  if (query.q) {
    const key = searchKey(query.q);
    add(key.sql, key.value);
  }
  if (query.state) add('o.state = $1', query.state);
  if (query.partner) add('os.partner = $1', query.partner);
  if (query.from) add('o.created_at >= $1::date', query.from);
  if (query.to) add(`o.created_at < $1::date + interval '1 day'`, query.to);
  // "Needs attention": the orders the SQL above flags, and those with fraud signals.
  const flagged = query.attention ? await needsAttention(db, { limit: OPS_LIST_LIMIT }) : [];
  const signals = new Map(flagged.map((item) => [item.orderId, item.signals.map(signalText)]));
  if (query.attention) params.push([...signals.keys()]);
  const rows = await db.query<OrderSummaryRow>(
    `SELECT * FROM (${SUMMARY} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}) o
     ${query.attention ? `WHERE cardinality(o.attention) > 0 OR o.id = ANY($${params.length}::uuid[])` : ''}
     ORDER BY o.created_at DESC, o.number DESC LIMIT ${OPS_LIST_LIMIT}`,
    params,
  );
  return rows.map((row) => ({ ...row, attention: [...row.attention, ...(signals.get(row.id) ?? [])] }));
}

/** One order with its attention list (undefined when there is none). */
export async function findOrder(db: Queryable, id: string): Promise<OrderSummaryRow | undefined> {
  const [row] = await db.query<OrderSummaryRow>(`${SUMMARY} WHERE o.id = $1`, [id]);
  return row;
}

/** An account's orders, newest first. */
export async function ordersOfAccount(db: Queryable, uid: string): Promise<OrderSummaryRow[]> {
  return db.query<OrderSummaryRow>(`${SUMMARY} WHERE o.uid = $1 ORDER BY o.created_at DESC LIMIT ${OPS_LIST_LIMIT}`, [uid]);
}

import { isDisposableEmail, isDisposableEmailDomain } from 'disposable-email-domains-js';
import { FRAUD_ORDERS_PER_WINDOW, FRAUD_REFUND_REQUESTS_PER_WINDOW, FRAUD_WINDOW_MS } from '../../config/constants.ts';
import type { OrderState } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { orderNumber } from '../orders/store.ts';
import type { Hold } from './holds.ts';

/**
 * Fraud signals (issue 30 item 7): what makes an order worth a look before or after it is
 * delivered. Each is a fact the shop keeps, computed when asked (nothing to keep in step):
 *
 * - shared_card: the card that paid (Stripe's card.fingerprint, migration 0017) paid orders of
 *   `accounts` other accounts too;
 * - many_orders: the account placed `orders` orders (this one included) within FRAUD_WINDOW_MS up to
 *   this one, FRAUD_ORDERS_PER_WINDOW or more;
 * - many_refund_requests: when the buyer asked for this order's refund, they had asked for
 *   `requests` refunds within FRAUD_WINDOW_MS, FRAUD_REFUND_REQUESTS_PER_WINDOW or more;
 * - disposable_email: the buyer's address is at a disposable e-mail domain (the maintained
 *   disposable-email-domains list, package disposable-email-domains-js);
 * - radar_risk: Stripe Radar rated the charge elevated or highest (a highest one is also held:
 *   holds.ts).
 */
export type FraudSignal =
  | { kind: 'shared_card'; accounts: number }
  | { kind: 'many_orders'; orders: number }
  | { kind: 'many_refund_requests'; requests: number }
  | { kind: 'disposable_email'; domain: string }
  | { kind: 'radar_risk'; level: 'elevated' | 'highest'; score: number | null };

/** An order in the "needs attention" list. */
export interface AttentionItem {
  orderId: string;
  /** What the buyer quotes: ES-2026-000123. */
  orderNumber: string;
  createdAt: Date;
  state: OrderState;
  hold: Hold | null;
  signals: FraudSignal[];
}

interface FactsRow {
  id: string;
  number: number;
  created_at: Date;
  state: OrderState;
  email: string | null;
  hold: Hold | null;
  risk_level: string | null;
  risk_score: number | null;
  other_accounts: number;
  recent_orders: number;
  refund_requests: number | null;
}

const WINDOW = `${FRAUD_WINDOW_MS} * interval '1 millisecond'`;
/** A buyer's own refund request, as the order's timeline records it (refund command and earlier code alike). */
const BUYER_REFUND_REQUEST = `to_state = 'refund_requested' AND cause = 'buyer_requested'`;

/** Each order's facts behind its signals (`o` the order), one row per order. */
const FACTS = `
  SELECT o.id, o.number, o.created_at, o.state, o.email, (SELECT h.hold FROM order_holds h WHERE h.order_id = o.id) AS hold,
    p.risk_level, p.risk_score,
    (SELECT count(DISTINCT o2.uid) FROM payments p2 JOIN orders o2 ON o2.id = p2.order_id
     WHERE p.card_fingerprint IS NOT NULL AND p2.card_fingerprint = p.card_fingerprint AND p2.status = 'paid'
       AND o2.uid IS NOT NULL AND o2.uid IS DISTINCT FROM o.uid)::int AS other_accounts,
    (SELECT count(*) FROM orders o3
     WHERE o3.uid = o.uid AND o3.created_at > o.created_at - ${WINDOW} AND o3.created_at <= o.created_at)::int AS recent_orders,
    (SELECT max((SELECT count(*) FROM order_events e2 JOIN orders o4 ON o4.id = e2.order_id
                 WHERE o4.uid = o.uid AND e2.${BUYER_REFUND_REQUEST} AND e2.at > e.at - ${WINDOW} AND e2.at <= e.at))
     FROM order_events e WHERE e.order_id = o.id AND e.${BUYER_REFUND_REQUEST})::int AS refund_requests
  FROM orders o
  LEFT JOIN LATERAL (
    SELECT card_fingerprint, risk_level, risk_score FROM payments WHERE order_id = o.id AND status = 'paid' ORDER BY id DESC LIMIT 1
  ) p ON true`;

const domainOf = (email: string) =>
  email
    .slice(email.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();

function signalsOf(row: FactsRow): FraudSignal[] {
  const signals: FraudSignal[] = [];
  if (row.other_accounts > 0) signals.push({ kind: 'shared_card', accounts: row.other_accounts });
  if (row.recent_orders >= FRAUD_ORDERS_PER_WINDOW) signals.push({ kind: 'many_orders', orders: row.recent_orders });
  if ((row.refund_requests ?? 0) >= FRAUD_REFUND_REQUESTS_PER_WINDOW)
    signals.push({ kind: 'many_refund_requests', requests: row.refund_requests! });
  if (row.email && isDisposableEmail(row.email)) signals.push({ kind: 'disposable_email', domain: domainOf(row.email) });
  if (row.risk_level === 'elevated' || row.risk_level === 'highest')
    signals.push({ kind: 'radar_risk', level: row.risk_level, score: row.risk_score === null ? null : Number(row.risk_score) });
  return signals;
}

const item = (row: FactsRow): AttentionItem => ({
  orderId: row.id,
  orderNumber: orderNumber(row),
  createdAt: row.created_at,
  state: row.state,
  hold: row.hold,
  signals: signalsOf(row),
});

/** The signals of one order (none: nothing stands out); undefined when there is no such order. */
export async function orderSignals(db: Queryable, orderId: string): Promise<FraudSignal[] | undefined> {
  const [row] = await db.query<FactsRow>(`SELECT * FROM (${FACTS}) f WHERE f.id = $1`, [orderId]);
  return row && signalsOf(row);
}

/**
 * The "needs attention" list: orders with at least one signal, newest first, at most `limit`,
 * created before `before` when given (the next page). The disposable domains are found among the
 * buyers' domains first (a few hundred at most), so the list query compares with those only.
 */
export async function needsAttention(db: Queryable, { limit, before }: { limit: number; before?: Date }): Promise<AttentionItem[]> {
  const domains = await db.query<{ domain: string }>(
    `SELECT DISTINCT lower(split_part(email, '@', 2)) AS domain FROM orders WHERE email IS NOT NULL`,
  );
  const disposable = domains.map((d) => d.domain).filter((domain) => isDisposableEmailDomain(domain));
  const rows = await db.query<FactsRow>(
    `SELECT * FROM (${FACTS}) f
     WHERE ($3::timestamptz IS NULL OR f.created_at < $3)
       AND (f.risk_level IN ('elevated', 'highest') OR f.other_accounts > 0 OR f.recent_orders >= ${FRAUD_ORDERS_PER_WINDOW}
            OR f.refund_requests >= ${FRAUD_REFUND_REQUESTS_PER_WINDOW} OR f.hold = 'held'
            OR lower(split_part(f.email, '@', 2)) = ANY($1::text[]))
     ORDER BY f.created_at DESC, f.number DESC LIMIT $2`,
    [disposable, limit, before ?? null],
  );
  return rows.map(item);
}

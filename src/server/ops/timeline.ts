import type { OpsTimelineEntry } from '../../contract/ops-api.ts';
import type { Queryable } from '../db/db.types.ts';

/**
 * One timeline of an order (issue 30 item 3): its state changes, the partner writes and how each
 * was settled, e-mails and alerts sent, payments and payments that did not match, refunds, and the
 * operators' actions with who and why, and the purchase's outcome (orders/purchase-outcome.ts). Oldest first; each table says its own part.
 */
const TIMELINE = `
  SELECT at, 'order' AS source, coalesce(from_state || ' → ', '') || to_state AS what, cause AS detail, NULL AS who
    FROM order_events WHERE order_id = $1
  UNION ALL
  SELECT sent_at, 'partner', call, outcome || coalesce(': ' || detail, '') || coalesce(' (settled ' || to_char(settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC)', ''), NULL
    FROM partner_writes WHERE order_id = $1
  UNION ALL
  SELECT sent_at, 'mail', kind || CASE WHEN operator_action_id IS NULL THEN ' e-mail' ELSE ' e-mail sent again' END, to_address, NULL
    FROM order_emails WHERE order_id = $1
  UNION ALL
  SELECT created_at, 'alert', kind || ' (round ' || round || ')', 'e-mail ' || email_state || ', push ' || push_state || coalesce(': ' || last_error, ''), NULL
    FROM esim_alerts WHERE order_id = $1
  UNION ALL
  SELECT created_at, 'payment', 'payment ' || status, amount_minor || ' ' || currency || coalesce(' · ' || method_type, '') || coalesce(' · ' || payment_intent_id, ''), NULL
    FROM payments WHERE order_id = $1
  UNION ALL
  SELECT created_at, 'payment', 'payment did not match', reason || coalesce(' · refund ' || refund_id, ''), NULL
    FROM payment_mismatches WHERE order_id = $1
  UNION ALL
  SELECT created_at, 'refund', 'refund of ' || amount_minor || ' ' || currency || ' asked by ' || requested_by,
    reason || coalesce(' · ' || note, '') || ' → ' || status || coalesce(' · ' || stripe_refund_id, ''), operator_uid
    FROM refunds WHERE order_id = $1
  UNION ALL
  SELECT decided_at, 'order', 'outcome: ' || outcome || coalesce(' by ' || by_order_id, ''), cause, coalesce(operator_uid, asked_by)
    FROM purchase_outcomes WHERE order_id = $1
  UNION ALL
  SELECT voided_at, 'order', 'outcome ' || outcome || ' undone', void_cause, NULL
    FROM purchase_outcomes WHERE order_id = $1 AND voided_at IS NOT NULL
  UNION ALL
  SELECT updated_at, 'order', 'job ' || kind || ' gave up (dead)', attempts || ' tries' || coalesce(': ' || last_error, ''), NULL
    FROM jobs WHERE order_id = $1 AND state = 'dead'
  UNION ALL
  SELECT created_at, 'operator', action, reason || ' → ' || outcome || coalesce(': ' || outcome_detail, ''), coalesce(operator_email, operator_uid)
    FROM operator_actions WHERE order_id = $1`;

export async function orderTimeline(db: Queryable, orderId: string): Promise<OpsTimelineEntry[]> {
  const rows = await db.query<{ at: Date; source: OpsTimelineEntry['source']; what: string; detail: string | null; who: string | null }>(
    `SELECT * FROM (${TIMELINE}) t ORDER BY at, source`,
    [orderId],
  );
  return rows.map((r) => ({ at: new Date(r.at).toISOString(), source: r.source, what: r.what, detail: r.detail, who: r.who }));
}

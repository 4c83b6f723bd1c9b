import type { AlertChannel, AlertKind } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import type { EsimKey } from '../esims/store.types.ts';
import type { AlertKey, AlertRecord, AlertRecords, ChannelState } from './alert-records.types.ts';
import type { AlertFacts } from './messages.ts';

interface Row {
  partner: string;
  esim_tran_no: string;
  kind: AlertKind;
  round: string;
  order_id: string;
  facts: AlertFacts | string;
  email_state: ChannelState;
  push_state: ChannelState;
}

const record = (row: Row): AlertRecord => ({
  partner: row.partner,
  esimTranNo: row.esim_tran_no,
  kind: row.kind,
  round: row.round,
  orderId: row.order_id,
  facts: typeof row.facts === 'string' ? (JSON.parse(row.facts) as AlertFacts) : row.facts,
  states: { email: row.email_state, push: row.push_state },
});

/**
 * A send under way holds its alert this long (claimed, or taken by the job), so the job does not
 * start it again meanwhile; a process that stopped mid-send leaves it due again after that. Longer
 * than a send can take, its turn for a send slot included.
 */
const ALERT_SEND_LEASE_MS = 15 * 60_000;

const KEY = 'esim_tran_no = $1 AND kind = $2 AND round = $3 AND partner = $4';
const keyValues = (key: AlertKey) => [key.esimTranNo, key.kind, key.round, key.partner];
const RETURNED = 'partner, esim_tran_no, kind, round, order_id, facts, email_state, push_state';

/** The alerts' SQL: the once-only claim, each channel's state, what the reconcile job picks up. */
export function createAlertRecords(db: Queryable): AlertRecords {
  return {
    /**
     * Claims the alert before anything is sent: false when it was claimed before (sent, skipped or
     * under way). Its first send holds a lease meanwhile, so the job does not take it as well.
     */
    async claim(alert: AlertRecord): Promise<boolean> {
      const rows = await db.query(
        `INSERT INTO esim_alerts (esim_tran_no, kind, round, partner, order_id, facts, email_state, push_state, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, now() + $9 * interval '1 millisecond') ON CONFLICT DO NOTHING RETURNING 1`,
        [...keyValues(alert), alert.orderId, JSON.stringify(alert.facts), alert.states.email, alert.states.push, ALERT_SEND_LEASE_MS],
      );
      return rows.length === 1;
    },

    /** A channel sent, or skipped after all (turned off meanwhile, no device left, the order refunded). */
    async settle(key: AlertKey, channel: AlertChannel, state: 'sent' | 'skipped'): Promise<void> {
      await db.query(`UPDATE esim_alerts SET ${channel}_state = $5, updated_at = now() WHERE ${KEY}`, [...keyValues(key), state]);
    },

    /**
     * A send failed: its pending channels wait `firstWaitMs` for the reconcile job after the first
     * failure, twice as long after each further one; after `maxAttempts` they are given up. With
     * why, either way. Answers whether it was given up.
     */
    async failed(key: AlertKey, error: string, backoff: { firstWaitMs: number; maxAttempts: number }): Promise<boolean> {
      // SET reads the row as it was: attempts before this one.
      const last = 'attempts + 1 >= $7';
      const rows = await db.query<{ given_up: boolean }>(
        `UPDATE esim_alerts SET attempts = attempts + 1, updated_at = now(),
           last_error = CASE WHEN ${last} THEN 'given up after ' || (attempts + 1) || ' attempts: ' ELSE '' END || $5,
           next_attempt_at = now() + $6::double precision * power(2, attempts) * interval '1 millisecond',
           email_state = CASE WHEN ${last} AND email_state = 'pending' THEN 'given_up' ELSE email_state END,
           push_state = CASE WHEN ${last} AND push_state = 'pending' THEN 'given_up' ELSE push_state END
         WHERE ${KEY} RETURNING attempts >= $7 AS given_up`,
        [...keyValues(key), error.slice(0, 500), backoff.firstWaitMs, backoff.maxAttempts],
      );
      return rows[0]?.given_up === true;
    },

    /**
     * Alerts with a channel still pending, younger than `withinMs` and due (their wait over, no
     * send under way), taken for this caller: leased in the same statement, so two instances' jobs
     * never send one twice at once.
     */
    async takeRetries(withinMs: number, limit = 20): Promise<AlertRecord[]> {
      const rows = await db.query<Row>(
        `UPDATE esim_alerts a SET updated_at = now(), next_attempt_at = now() + $3 * interval '1 millisecond'
         FROM (SELECT partner, esim_tran_no, kind, round FROM esim_alerts
               WHERE (email_state = 'pending' OR push_state = 'pending')
                 AND created_at > now() - $1 * interval '1 millisecond' AND next_attempt_at <= now()
               ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
         WHERE a.partner = due.partner AND a.esim_tran_no = due.esim_tran_no AND a.kind = due.kind AND a.round = due.round
         RETURNING ${RETURNED.replaceAll(/(\w+)/g, 'a.$1')}`,
        [withinMs, limit, ALERT_SEND_LEASE_MS],
      );
      return rows.map(record);
    },

    /**
     * eSIM orders whose 'ready' push is due and was never claimed (its timer lost with a restart):
     * the order e-mail sent between `withinMs` and `afterMs` ago, the eSIM not seen since, the
     * buyer still there.
     */
    async readyDue(afterMs: number, withinMs: number, limit = 20): Promise<string[]> {
      const rows = await db.query<{ id: string }>(
        `SELECT o.id FROM orders o JOIN email_outbox x ON x.order_id = o.id AND x.kind = 'order'
         WHERE o.kind = 'esim' AND o.state = 'delivered' AND o.uid IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM seen_esims s WHERE s.order_id = o.id)
           AND x.sent_at <= now() - $1 * interval '1 millisecond' AND x.sent_at > now() - $2 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM esim_alerts a WHERE a.order_id = o.id AND a.kind = 'esim_ready')
         ORDER BY x.sent_at LIMIT $3`,
        [afterMs, withinMs, limit],
      );
      return rows.map((r) => r.id);
    },

    /**
     * Installed eSIMs of delivered orders in their last day (ALERT_VALIDITY_LEFT_MS) whose '1 day
     * left' for that end was never claimed: the end date is stored, so a VALIDITY_USAGE notification
     * the partner did not send (or we did not get) costs the traveller nothing. The round is the
     * end as toISOString() writes it (thresholds.ts).
     */
    async validityDue(leftMs: number, limit = 50): Promise<EsimKey[]> {
      return db.query<EsimKey>(
        `SELECT e.partner, e.esim_tran_no FROM esims e JOIN orders o ON o.id = e.order_id
         WHERE o.kind = 'esim' AND o.state = 'delivered' AND o.uid IS NOT NULL AND e.installed
           AND e.status NOT IN ('cancelled', 'expired')
           AND e.expires_at > now() AND e.expires_at <= now() + $1 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM esim_alerts a WHERE a.partner = e.partner AND a.esim_tran_no = e.esim_tran_no AND a.kind = 'validity_1_day'
             AND a.round = to_char(e.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         ORDER BY e.expires_at LIMIT $2`,
        [leftMs, limit],
      );
    },

    /**
     * eSIMs whose trip began the day before and that have used no data as far as the shop knows,
     * not yet told and not read from the partner within `freshMs`: their usage is read, then checked
     * (thresholds.ts says when the checklist is due). The window's bounds are TRIP_CHECK_*.
     */
    async tripCheckDue(afterStartMs: number, withinMs: number, freshMs: number, limit = 10): Promise<EsimKey[]> {
      return db.query<EsimKey>(
        `SELECT e.partner, e.esim_tran_no FROM order_travellers t JOIN orders o ON o.id = t.order_id JOIN esims e ON e.order_id = o.id
         WHERE t.trip_starts_on IS NOT NULL AND o.state = 'delivered' AND o.kind = 'esim' AND o.uid IS NOT NULL
           AND (t.trip_starts_on::date)::timestamp AT TIME ZONE 'UTC' + $1 * interval '1 millisecond' <= now()
           AND (t.trip_starts_on::date)::timestamp AT TIME ZONE 'UTC' + ($1 + $2) * interval '1 millisecond' > now()
           AND e.used_bytes = 0 AND e.status NOT IN ('cancelled', 'expired')
           AND (e.usage_checked_at IS NULL OR e.usage_checked_at < now() - $3 * interval '1 millisecond')
           AND NOT EXISTS (SELECT 1 FROM esim_alerts a WHERE a.partner = e.partner AND a.esim_tran_no = e.esim_tran_no AND a.kind = 'not_connected'
             AND a.round = t.trip_starts_on)
         LIMIT $4`,
        [afterStartMs, withinMs, freshMs, limit],
      );
    },

    /** The buyer saw these delivered eSIMs (the payment page, My eSIMs): no 'ready' push for them. */
    async markSeen(orderIds: readonly string[]): Promise<void> {
      if (orderIds.length === 0) return;
      const ids = orderIds.map((_, i) => `$${i + 1}::uuid`).join(', ');
      await db.query(
        `INSERT INTO seen_esims (order_id) SELECT id FROM orders WHERE id IN (${ids}) AND kind = 'esim' AND state = 'delivered'
         ON CONFLICT DO NOTHING`,
        orderIds,
      );
    },

    /** When the buyer first saw the order's delivered eSIM (seen_esims, migration 0044); null: not yet. */
    async seenAt(orderId: string): Promise<Date | null> {
      const [row] = await db.query<{ seen_at: Date }>('SELECT seen_at FROM seen_esims WHERE order_id = $1', [orderId]);
      return row?.seen_at ?? null;
    },

    /** The day the order's trip starts (order_travellers, migration 0043), if the buyer said. */
    async tripStartOf(orderId: string): Promise<string | null> {
      const [row] = await db.query<{ trip_starts_on: string | null }>('SELECT trip_starts_on FROM order_travellers WHERE order_id = $1', [
        orderId,
      ]);
      return row?.trip_starts_on ?? null;
    },
  };
}

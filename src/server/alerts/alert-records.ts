import type { AlertChannel, AlertKind } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.ts';
import type { AlertFacts } from './messages.ts';

/** One alert: at most once per eSIM, kind and round (migration 0011, esim_alerts). */
export interface AlertKey {
  esimTranNo: string;
  kind: AlertKind;
  round: string;
}

/** A channel's state: pending until sent (a failed send stays pending), or skipped (turned off, no address, no device). */
export type ChannelState = 'pending' | 'sent' | 'skipped';

export interface AlertRecord extends AlertKey {
  orderId: string;
  facts: AlertFacts;
  states: Record<AlertChannel, ChannelState>;
}

interface Row {
  esim_tran_no: string;
  kind: AlertKind;
  round: string;
  order_id: string;
  facts: AlertFacts | string;
  email_state: ChannelState;
  push_state: ChannelState;
}

const record = (row: Row): AlertRecord => ({
  esimTranNo: row.esim_tran_no,
  kind: row.kind,
  round: row.round,
  orderId: row.order_id,
  facts: typeof row.facts === 'string' ? (JSON.parse(row.facts) as AlertFacts) : row.facts,
  states: { email: row.email_state, push: row.push_state },
});

const KEY = 'esim_tran_no = $1 AND kind = $2 AND round = $3';
const keyValues = (key: AlertKey) => [key.esimTranNo, key.kind, key.round];
const RETURNED = 'esim_tran_no, kind, round, order_id, facts, email_state, push_state';

/** The alerts' SQL: the once-only claim, each channel's state, what the reconcile job picks up. */
export function createAlertRecords(db: Queryable) {
  return {
    /** Claims the alert before anything is sent: false when it was claimed before (sent, skipped or under way). */
    async claim(alert: AlertRecord): Promise<boolean> {
      const rows = await db.query(
        `INSERT INTO esim_alerts (esim_tran_no, kind, round, order_id, facts, email_state, push_state)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) ON CONFLICT DO NOTHING RETURNING 1`,
        [...keyValues(alert), alert.orderId, JSON.stringify(alert.facts), alert.states.email, alert.states.push],
      );
      return rows.length === 1;
    },

    /** A channel sent, or skipped after all (turned off meanwhile, no device left, the order refunded). */
    async settle(key: AlertKey, channel: AlertChannel, state: 'sent' | 'skipped'): Promise<void> {
      await db.query(`UPDATE esim_alerts SET ${channel}_state = $4, updated_at = now() WHERE ${KEY}`, [...keyValues(key), state]);
    },

    /** A send failed: it stays pending for the reconcile job, with why. */
    async failed(key: AlertKey, error: string): Promise<void> {
      await db.query(`UPDATE esim_alerts SET attempts = attempts + 1, last_error = $4, updated_at = now() WHERE ${KEY}`, [
        ...keyValues(key),
        error.slice(0, 500),
      ]);
    },

    /**
     * Alerts with a channel still pending, younger than `withinMs` and left alone for `idleMs` (a
     * send under way is not repeated), taken for this caller: touched in the same statement, so two
     * instances' jobs never send one twice at once.
     */
    async takeRetries(withinMs: number, idleMs: number, limit = 20): Promise<AlertRecord[]> {
      const rows = await db.query<Row>(
        `UPDATE esim_alerts a SET updated_at = now()
         FROM (SELECT esim_tran_no, kind, round FROM esim_alerts
               WHERE (email_state = 'pending' OR push_state = 'pending')
                 AND created_at > now() - $1 * interval '1 millisecond' AND updated_at <= now() - $2 * interval '1 millisecond'
               ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
         WHERE a.esim_tran_no = due.esim_tran_no AND a.kind = due.kind AND a.round = due.round
         RETURNING ${RETURNED.replaceAll(/(\w+)/g, 'a.$1')}`,
        [withinMs, idleMs, limit],
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
        `SELECT o.id FROM orders o
         WHERE o.kind = 'esim' AND o.state = 'delivered' AND o.esim_seen_at IS NULL AND o.uid IS NOT NULL
           AND o.email_sent_at <= now() - $1 * interval '1 millisecond' AND o.email_sent_at > now() - $2 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM esim_alerts a WHERE a.order_id = o.id AND a.kind = 'esim_ready')
         ORDER BY o.email_sent_at LIMIT $3`,
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
    async validityDue(leftMs: number, limit = 50): Promise<string[]> {
      const rows = await db.query<{ esim_tran_no: string }>(
        `SELECT e.esim_tran_no FROM esims e JOIN orders o ON o.id = e.order_id
         WHERE o.kind = 'esim' AND o.state = 'delivered' AND o.uid IS NOT NULL AND e.installed
           AND e.status NOT IN ('cancelled', 'expired')
           AND e.expires_at > now() AND e.expires_at <= now() + $1 * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM esim_alerts a WHERE a.esim_tran_no = e.esim_tran_no AND a.kind = 'validity_1_day'
             AND a.round = to_char(e.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         ORDER BY e.expires_at LIMIT $2`,
        [leftMs, limit],
      );
      return rows.map((r) => r.esim_tran_no);
    },

    /** The buyer saw these delivered eSIMs (the payment page, My eSIMs): no 'ready' push for them. */
    async markSeen(orderIds: readonly string[]): Promise<void> {
      if (orderIds.length === 0) return;
      const ids = orderIds.map((_, i) => `$${i + 1}::uuid`).join(', ');
      await db.query(
        `UPDATE orders SET esim_seen_at = now() WHERE id IN (${ids}) AND kind = 'esim' AND state = 'delivered' AND esim_seen_at IS NULL`,
        orderIds,
      );
    },
  };
}

export type AlertRecords = ReturnType<typeof createAlertRecords>;

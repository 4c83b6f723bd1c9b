import type { Queryable } from '../db/db.types.ts';

export type PartnerWriteCall = 'esim/order' | 'esim/topup' | 'esim/cancel';

export interface PartnerWrite {
  id: number;
  order_id: string;
  call: PartnerWriteCall;
  /** The partner it was sent to (a registry id). */
  partner: string;
  esim_tran_no: string | null;
  before_total_bytes: number | null;
  outcome: 'sent' | 'applied' | 'refused';
  sent_at: Date;
}

/** An unsettled write, with how long ago it was first and last sent by the database's clock (not an instance's). */
export interface UnsettledWrite extends PartnerWrite {
  sentAgoMs: number;
  lastSentAgoMs: number;
}

/**
 * Writes to the partner that cost or return money (migration 0003): recorded before they are
 * sent, settled when an answer or a read of the partner's state says what happened. One left
 * 'sent' means an answer was lost: the next try reads the partner before repeating it (DESIGN 7).
 */
export const partnerWrites = {
  /** The write of this kind for the order whose outcome nobody knows yet. */
  async unsettled(tx: Queryable, orderId: string, call: PartnerWriteCall): Promise<UnsettledWrite | undefined> {
    const [row] = await tx.query<PartnerWrite & { sent_ago_ms: number | string; last_sent_ago_ms: number | string }>(
      `SELECT *, extract(epoch FROM now() - sent_at) * 1000 AS sent_ago_ms,
         extract(epoch FROM now() - coalesce(last_sent_at, sent_at)) * 1000 AS last_sent_ago_ms
       FROM partner_writes WHERE order_id = $1 AND call = $2 AND outcome = 'sent' ORDER BY id DESC LIMIT 1`,
      [orderId, call],
    );
    if (!row) return undefined;
    const { sent_ago_ms, last_sent_ago_ms, ...write } = row;
    return {
      ...write,
      before_total_bytes: row.before_total_bytes === null ? null : Number(row.before_total_bytes),
      sentAgoMs: Number(sent_ago_ms),
      lastSentAgoMs: Number(last_sent_ago_ms),
    };
  },

  /** The write is about to be sent again (its answers were lost): from now on it may be on its way. */
  async sendingAgain(tx: Queryable, id: number): Promise<void> {
    await tx.query('UPDATE partner_writes SET last_sent_at = now() WHERE id = $1', [id]);
  },

  /**
   * Takes the eSIM's one top-up slot for the order (migration 0012): its top-up write, recorded
   * before the totals are read and before anything is sent. Answers undefined while another
   * order's top-up of this eSIM is unsettled; the partial unique index decides, so two instances
   * asking at the same moment cannot both get it.
   */
  async claimTopUp(tx: Queryable, orderId: string, esim: { partner: string; esim_tran_no: string }): Promise<number | undefined> {
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO partner_writes (order_id, call, partner, esim_tran_no) VALUES ($1, 'esim/topup', $2, $3)
       ON CONFLICT (partner, esim_tran_no) WHERE call = 'esim/topup' AND outcome = 'sent' DO NOTHING RETURNING id`,
      [orderId, esim.partner, esim.esim_tran_no],
    );
    return row && Number(row.id);
  },

  /** The order holding the eSIM's top-up slot, and its state. */
  async topUpSlotHolder(
    tx: Queryable,
    esim: { partner: string; esim_tran_no: string },
  ): Promise<{ order_id: string; state: string } | undefined> {
    const [row] = await tx.query<{ order_id: string; state: string }>(
      `SELECT w.order_id, o.state FROM partner_writes w JOIN orders o ON o.id = w.order_id
       WHERE w.partner = $1 AND w.esim_tran_no = $2 AND w.call = 'esim/topup' AND w.outcome = 'sent'`,
      [esim.partner, esim.esim_tran_no],
    );
    return row;
  },

  /** The eSIM's totals read once the top-up slot was held: what a read after a lost answer is compared with. */
  async setTotalBefore(tx: Queryable, id: number, totalBytes: number): Promise<void> {
    await tx.query('UPDATE partner_writes SET before_total_bytes = $2 WHERE id = $1', [id, totalBytes]);
  },

  async record(
    tx: Queryable,
    write: { orderId: string; call: Exclude<PartnerWriteCall, 'esim/topup'>; partner: string; esimTranNo?: string },
  ): Promise<number> {
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO partner_writes (order_id, call, partner, esim_tran_no) VALUES ($1, $2, $3, $4) RETURNING id`,
      [write.orderId, write.call, write.partner, write.esimTranNo ?? null],
    );
    return Number(row!.id);
  },

  /** The partners this order's eSIM was ordered from so far (a failover's tries), in order. */
  async orderedFrom(tx: Queryable, orderId: string): Promise<string[]> {
    const rows = await tx.query<{ partner: string }>(
      `SELECT partner FROM partner_writes WHERE order_id = $1 AND call = 'esim/order' GROUP BY partner ORDER BY min(id)`,
      [orderId],
    );
    return rows.map((row) => row.partner);
  },

  async settle(tx: Queryable, id: number, outcome: 'applied' | 'refused', detail: string): Promise<void> {
    await tx.query(`UPDATE partner_writes SET outcome = $2, detail = $3, settled_at = now() WHERE id = $1`, [id, outcome, detail]);
  },
};

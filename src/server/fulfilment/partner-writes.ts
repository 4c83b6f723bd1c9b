import type { Queryable } from '../db/db.ts';

export type PartnerWriteCall = 'esim/order' | 'esim/topup' | 'esim/cancel';

export interface PartnerWrite {
  id: number;
  order_id: string;
  call: PartnerWriteCall;
  esim_tran_no: string | null;
  before_total_bytes: number | null;
  outcome: 'sent' | 'applied' | 'refused';
  sent_at: Date;
}

/**
 * Writes to the partner that cost or return money (migration 0003): recorded before they are
 * sent, settled when an answer or a read of the partner's state says what happened. One left
 * 'sent' means an answer was lost: the next try reads the partner before repeating it (DESIGN 7).
 */
export const partnerWrites = {
  /** The write of this kind for the order whose outcome nobody knows yet. */
  async unsettled(tx: Queryable, orderId: string, call: PartnerWriteCall): Promise<PartnerWrite | undefined> {
    const [row] = await tx.query<PartnerWrite>(
      `SELECT * FROM partner_writes WHERE order_id = $1 AND call = $2 AND outcome = 'sent' ORDER BY id DESC LIMIT 1`,
      [orderId, call],
    );
    return row && { ...row, before_total_bytes: row.before_total_bytes === null ? null : Number(row.before_total_bytes) };
  },

  /** An unsettled top-up of this eSIM by another order: one at a time, so a read of its totals is unambiguous. */
  async topUpUnderWay(tx: Queryable, esimTranNo: string, orderId: string): Promise<boolean> {
    const rows = await tx.query(
      `SELECT 1 FROM partner_writes WHERE esim_tran_no = $1 AND call = 'esim/topup' AND outcome = 'sent' AND order_id <> $2 LIMIT 1`,
      [esimTranNo, orderId],
    );
    return rows.length > 0;
  },

  async record(
    tx: Queryable,
    write: { orderId: string; call: PartnerWriteCall; esimTranNo?: string; beforeTotalBytes?: number },
  ): Promise<number> {
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO partner_writes (order_id, call, esim_tran_no, before_total_bytes) VALUES ($1, $2, $3, $4) RETURNING id`,
      [write.orderId, write.call, write.esimTranNo ?? null, write.beforeTotalBytes ?? null],
    );
    return Number(row!.id);
  },

  async settle(tx: Queryable, id: number, outcome: 'applied' | 'refused', detail: string): Promise<void> {
    await tx.query(`UPDATE partner_writes SET outcome = $2, detail = $3, settled_at = now() WHERE id = $1`, [id, outcome, detail]);
  },
};

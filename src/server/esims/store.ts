import type { Queryable } from '../db/db.types.ts';
import { notifyOrderChange } from '../orders/order-changes.ts';
import type { EsimProfile, EsimStatus, EsimUsage, TopUpResult } from '../partner/partner.types.ts';
import { LINK_COLUMNS } from '../orders/order-links.ts';
import type { EsimKey, EsimOrder, EsimRow, EsimStore, OwnedEsim } from './store.types.ts';

/** The columns of EsimOrder beside `o.*` (`o` the order), with ESIM_ORDER_JOIN: its links and its traveller. */
export const ESIM_ORDER_COLUMNS = `${LINK_COLUMNS}, t.name AS traveller_name, t.email AS traveller_email`;
export const ESIM_ORDER_JOIN = 'LEFT JOIN order_travellers t ON t.order_id = o.id';

/** The owner's orders that stand for an eSIM they have, had or are waiting for (never the unpaid ones), each with its eSIM once allocated. */
const OWNED_ESIMS = `SELECT o.*, ${ESIM_ORDER_COLUMNS}, to_jsonb(e) AS esim FROM orders o LEFT JOIN esims e ON e.order_id = o.id ${ESIM_ORDER_JOIN}
  WHERE o.uid = $1 AND o.kind = 'esim' AND o.state IN ('paid', 'provisioning', 'delivered', 'fulfilment_failed', 'refund_requested', 'refunded')`;

export function createEsimStore(db: Queryable): EsimStore {
  const split = (rows: (EsimOrder & { esim: EsimRow | null })[]): OwnedEsim[] =>
    rows.map(({ esim, ...order }) => ({ order, esim: esim ? revive(esim) : undefined }));

  return {
    /**
     * The profile the partner allocated for an order. Saving it again for the same order changes
     * nothing (a second delivery); a profile already stored for another order is an error, never
     * dropped in silence: the order would look delivered without an eSIM. Announced to the
     * order's long-polls on commit (order-changes.ts).
     */
    async saveProfile(tx: Queryable, orderId: string, partner: string, p: EsimProfile): Promise<void> {
      const [stored] = await tx.query<{ order_id: string }>(
        `INSERT INTO esims (esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, installed,
           expires_at, total_bytes, used_bytes, validity_days, usage_checked_at, install_step, install_step_at, apn, partner)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, now(), $13::text, CASE WHEN $13::text IS NULL THEN NULL ELSE now() END, $14, $15)
         ON CONFLICT (partner, esim_tran_no) DO UPDATE SET updated_at = esims.updated_at
         RETURNING order_id, ${notifyOrderChange('order_id')}`,
        [
          p.esimTranNo,
          orderId,
          p.iccid,
          p.activationCode,
          p.smdpAddress,
          p.matchingId,
          p.status,
          p.installed,
          p.expiresAt,
          p.totalBytes,
          p.usedBytes,
          p.validityDays,
          p.installStep,
          p.apn,
          partner,
        ],
      );
      if (stored?.order_id !== orderId) throw new Error(`order ${orderId}: the partner's eSIM ${p.esimTranNo} is already another order's`);
    },

    /** What the partner says of an eSIM now (its status, installation, validity and data). */
    async refresh(partner: string, profile: EsimProfile): Promise<void> {
      await db.query(
        `UPDATE esims SET status = $2, installed = installed OR $3, expires_at = $4, total_bytes = $5, used_bytes = $6,
           validity_days = $7, usage_checked_at = now(), updated_at = now(),
           install_step = COALESCE($8::text, install_step),
           install_step_at = CASE WHEN $8::text IS DISTINCT FROM install_step AND $8::text IS NOT NULL THEN now() ELSE install_step_at END,
           apn = COALESCE($9, apn)
         WHERE esim_tran_no = $1 AND partner = $10`,
        [
          profile.esimTranNo,
          profile.status,
          profile.installed,
          profile.expiresAt,
          profile.totalBytes,
          profile.usedBytes,
          profile.validityDays,
          profile.installStep,
          profile.apn,
          partner,
        ],
      );
    },

    async claimStateRead(key: EsimKey, everyMs: number): Promise<boolean> {
      const claimed = await db.query(
        `UPDATE esims SET state_read_at = now()
         WHERE esim_tran_no = $1 AND partner = $3 AND (state_read_at IS NULL OR state_read_at <= now() - $2 * interval '1 millisecond')
         RETURNING 1`,
        [key.esim_tran_no, everyMs, key.partner],
      );
      return claimed.length === 1;
    },

    async recordUsage(partner: string, usage: EsimUsage): Promise<void> {
      await db.query(
        `UPDATE esims SET used_bytes = $2::bigint, total_bytes = $3::bigint, usage_checked_at = now(), updated_at = now(),
           status = CASE WHEN status IN ('installed', 'active') AND $2::bigint >= $3::bigint AND $3::bigint > 0 THEN 'used_up' ELSE status END
         WHERE esim_tran_no = $1 AND partner = $4`,
        [usage.esimTranNo, usage.usedBytes, usage.totalBytes, partner],
      );
    },

    async recordTopUp(tx: Queryable, key: EsimKey, result: TopUpResult): Promise<void> {
      await tx.query(
        `UPDATE esims SET total_bytes = $2, used_bytes = $3, validity_days = $4, expires_at = COALESCE($5, expires_at),
           status = CASE WHEN status = 'used_up' THEN 'active' ELSE status END, usage_checked_at = now(), updated_at = now(),
           data_round = data_round + 1
         WHERE esim_tran_no = $1 AND partner = $6`,
        [key.esim_tran_no, result.totalBytes, result.usedBytes, result.validityDays, result.expiresAt, key.partner],
      );
    },

    async setStatus(tx: Queryable, key: EsimKey, status: EsimStatus): Promise<void> {
      await tx.query('UPDATE esims SET status = $2, updated_at = now() WHERE esim_tran_no = $1 AND partner = $3', [
        key.esim_tran_no,
        status,
        key.partner,
      ]);
    },

    async ofOrder(tx: Queryable, orderId: string): Promise<EsimRow | undefined> {
      const [row] = await tx.query<EsimRow>('SELECT * FROM esims WHERE order_id = $1', [orderId]);
      return row && revive(row);
    },

    async byKey(key: EsimKey): Promise<EsimRow | undefined> {
      const [row] = await db.query<EsimRow>('SELECT * FROM esims WHERE esim_tran_no = $1 AND partner = $2', [
        key.esim_tran_no,
        key.partner,
      ]);
      return row && revive(row);
    },

    /** The owner's eSIMs, newest first. */
    async ownedBy(uid: string): Promise<OwnedEsim[]> {
      return split(await db.query<EsimOrder & { esim: EsimRow | null }>(`${OWNED_ESIMS} ORDER BY o.created_at DESC, o.number DESC`, [uid]));
    },

    /** One of the owner's eSIMs by the id of the order that bought it; someone else's is undefined. */
    async ownedOne(uid: string, id: string): Promise<OwnedEsim | undefined> {
      return split(await db.query<EsimOrder & { esim: EsimRow | null }>(`${OWNED_ESIMS} AND o.id = $2`, [uid, id]))[0];
    },

    async ofTravellerLink(tokenSha256: string): Promise<OwnedEsim | undefined> {
      const rows = await db.query<EsimOrder & { esim: EsimRow | null }>(
        `SELECT o.*, ${ESIM_ORDER_COLUMNS}, to_jsonb(e) AS esim
         FROM traveller_links l JOIN orders o ON o.id = l.order_id LEFT JOIN esims e ON e.order_id = o.id ${ESIM_ORDER_JOIN}
         WHERE l.token_sha256 = $1 AND l.revoked_at IS NULL AND o.kind = 'esim'`,
        [tokenSha256],
      );
      return split(rows)[0];
    },
  };
}

/** An eSIM read through to_jsonb has its times as text and its bigints as numbers: the same shape as a row. */
function revive(row: EsimRow): EsimRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    expires_at: date(row.expires_at),
    usage_checked_at: date(row.usage_checked_at),
    install_step_at: date(row.install_step_at ?? null),
    created_at: date(row.created_at)!,
    total_bytes: Number(row.total_bytes),
    used_bytes: Number(row.used_bytes),
  };
}

import { PARTNER_ORPHANS } from '../../config/constants.ts';
import type { Db } from '../db/db.types.ts';
import { PartnerError } from '../partner/partner.ts';
import type { Partners } from '../partner/registry.types.ts';

/**
 * Releases the purchases each partner holds that no order claims (EsimPartner.findOrphans): among
 * its orders of the last week but the last hour, those that are neither an order's of ours
 * (order_sourcing.partner_order_no) nor a top-up onto one of our eSIMs. Each is recorded in
 * partner_orphans before it is released, then settled: released (refunded to the balance: a
 * cancel whose answer was lost is read back by the next sweep, which finds it gone or cancelled),
 * or refused with the partner's reason, for an operator (not asked again: a refusal for an eSIM
 * that reached a phone does not change). Answers how many it released.
 */
export async function releasePartnerOrphans(db: Db, partners: Pick<Partners, 'ids' | 'of'>, now = new Date()): Promise<number> {
  const window = { from: new Date(now.getTime() - PARTNER_ORPHANS.lookBackMs), to: new Date(now.getTime() - PARTNER_ORPHANS.settleMs) };
  let released = 0;
  for (const id of partners.ids) {
    const partner = partners.of(id);
    if (!partner.findOrphans) continue;
    const known = async ({ partnerOrderNo, iccids }: { partnerOrderNo: string; iccids: string[] }) =>
      (
        await db.query(
          `SELECT 1 FROM order_sourcing WHERE partner = $1 AND partner_order_no = $2
           UNION ALL SELECT 1 FROM esims WHERE partner = $1 AND iccid = ANY($3::text[]) LIMIT 1`,
          [id, partnerOrderNo, iccids],
        )
      ).length > 0;
    for (const orphan of await partner.findOrphans(window, known)) {
      const [row] = await db.query<{ outcome: string | null }>(
        `INSERT INTO partner_orphans (partner, esim_key, partner_order_no) VALUES ($1, $2, $3)
         ON CONFLICT (partner, esim_key) DO UPDATE SET partner_order_no = EXCLUDED.partner_order_no RETURNING outcome`,
        [id, orphan.esimTranNo, orphan.partnerOrderNo],
      );
      if (row?.outcome) continue;
      let outcome = 'released';
      try {
        await partner.cancelProfile(orphan.esimTranNo);
      } catch (error) {
        // Cancelled before (a release whose answer was lost): released all the same. Not answered: the next sweep.
        if (!(error instanceof PartnerError) || error.retryable) throw error;
        if (error.code !== 'cancelled') outcome = `refused: ${error.message}`;
      }
      await db.query(`UPDATE partner_orphans SET outcome = $3, settled_at = now() WHERE partner = $1 AND esim_key = $2`, [
        id,
        orphan.esimTranNo,
        outcome,
      ]);
      if (outcome === 'released') released++;
    }
  }
  return released;
}

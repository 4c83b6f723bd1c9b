import { PARTNER_ORPHANS } from '../../config/constants.ts';
import type { Db } from '../db/db.types.ts';
import { PartnerError } from '../partner/partner.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import type { Partners } from '../partner/registry.types.ts';

/**
 * Releases the purchases each partner holds that no order claims (EsimPartner.findOrphans): among
 * its orders of the last week but the last hour, those that are neither an order's of ours
 * (order_sourcing.partner_order_no) nor a top-up onto one of our eSIMs. Each is recorded in
 * partner_orphans before it is released, then settled: released (refunded to the balance: a
 * cancel whose answer was lost is read back by the next sweep, which finds it gone or cancelled),
 * or refused with the partner's reason, for an operator (not asked again: a refusal for an eSIM
 * that reached a phone does not change). A release whose answer was lost is settled by reading the
 * eSIM back (settleGone). Answers how many it released.
 */
export async function releasePartnerOrphans(
  db: Db,
  partners: Pick<Partners, 'ids' | 'of'>,
  now = new Date(),
  settleMs: number = PARTNER_ORPHANS.settleMs,
): Promise<number> {
  const window = { from: new Date(now.getTime() - PARTNER_ORPHANS.lookBackMs), to: new Date(now.getTime() - settleMs) };
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
    const orphans = await partner.findOrphans(window, known);
    released += await settleGone(db, id, partner, new Set(orphans.map((o) => o.esimTranNo)));
    for (const orphan of orphans) {
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

/**
 * The orphans on record whose release was never settled (its answer lost, or its instance gone) and
 * that the partner no longer lists as orphans: read back, each one gone from the account or
 * cancelled was released. One still listed is the sweep's to release again.
 */
async function settleGone(db: Db, id: string, partner: EsimPartner, listed: ReadonlySet<string>): Promise<number> {
  let settled = 0;
  const rows = await db.query<{ esim_key: string }>(`SELECT esim_key FROM partner_orphans WHERE partner = $1 AND outcome IS NULL`, [id]);
  for (const { esim_key: key } of rows) {
    if (listed.has(key)) continue;
    const gone = await partner.queryProfiles({ esimTranNo: key }).then(
      (answer) => answer.status === 'ready' && answer.profiles.every((p) => p.esimTranNo !== key || p.status === 'cancelled'),
      (error: unknown) => {
        if (error instanceof PartnerError && error.kind === 'not_found') return true;
        throw error;
      },
    );
    if (!gone) continue;
    await db.query(`UPDATE partner_orphans SET outcome = 'released', settled_at = now() WHERE partner = $1 AND esim_key = $2`, [id, key]);
    settled++;
  }
  return settled;
}

import type { OpsAutoTopUp } from '../../contract/ops-api.ts';
import type { Queryable } from '../db/db.types.ts';
import { orderNumber } from '../orders/store.ts';
import type { AutoTopUpRow } from './auto-top-ups.types.ts';
import { settingOf } from './store.ts';

/** An eSIM's automatic top-ups for the back office (issue 49): its consent and limits, each crossing with its order, each change. */
export async function autoTopUpForOps(db: Queryable, esimOrderId: string): Promise<OpsAutoTopUp | null> {
  const setting = await settingOf(db, esimOrderId);
  if (!setting) return null;
  const [crossings, changes] = await Promise.all([
    db.query<AutoTopUpRow & { number: number | null; order_created_at: Date | null }>(
      `SELECT a.*, o.number, o.created_at AS order_created_at FROM auto_top_ups a LEFT JOIN orders o ON o.id = a.order_id
       WHERE a.esim_order_id = $1 ORDER BY a.created_at`,
      [esimOrderId],
    ),
    db.query<{ at: Date; by: string; change: string }>(
      'SELECT at, by, change FROM auto_top_up_changes WHERE esim_order_id = $1 ORDER BY id',
      [esimOrderId],
    ),
  ]);
  return {
    enabled: setting.enabled,
    packageId: setting.package_id,
    maxCount: setting.max_count,
    monthlyCap: { amountMinor: setting.monthly_cap_minor, currency: setting.currency },
    consentText: setting.consent_text,
    consentLang: setting.consent_lang,
    consentedAt: setting.consented_at.toISOString(),
    refusalsInRow: setting.refusals_in_row,
    crossings: crossings.map((row) => ({
      crossing: row.crossing,
      state: row.state,
      why: row.why,
      orderId: row.order_id,
      orderNumber:
        row.number !== null && row.order_created_at ? orderNumber({ number: row.number, created_at: row.order_created_at }) : null,
      at: row.updated_at.toISOString(),
    })),
    changes: changes.map((change) => ({ at: change.at.toISOString(), by: change.by, change: change.change })),
  };
}

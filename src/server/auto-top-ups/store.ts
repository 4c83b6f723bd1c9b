import type { Queryable } from '../db/db.types.ts';
import { addJob } from '../jobs/queue.ts';
import type { AutoTopUpRow, AutoTopUpSetting, NewSetting, SavedCard } from './auto-top-ups.types.ts';

/**
 * Automatic top-ups as stored (migration 0051), one function a statement: the buyer's saved card,
 * each eSIM's consent and limits with every change to them, and one row per crossing of 10 % left.
 */

/** The job that charges one crossing's automatic top-up (jobs/queue.ts): its key names the eSIM and the crossing. */
export const autoTopUpJobKey = (esimOrderId: string, crossing: string) => `auto-top-up:${esimOrderId}:${crossing}`;

export async function savedCard(db: Queryable, uid: string): Promise<SavedCard | undefined> {
  const [row] = await db.query<SavedCard>('SELECT * FROM saved_cards WHERE uid = $1', [uid]);
  return row;
}

/** The buyer's Customer at Stripe, recorded once: a second one made by a race is not kept (the first answers). */
export async function rememberCustomer(db: Queryable, uid: string, customerId: string): Promise<SavedCard> {
  await db.query('INSERT INTO saved_cards (uid, stripe_customer_id) VALUES ($1, $2) ON CONFLICT (uid) DO NOTHING', [uid, customerId]);
  return (await savedCard(db, uid))!;
}

/** The card saved at Stripe for this Customer, as the pages show it. */
export async function recordCard(
  tx: Queryable,
  customerId: string,
  card: { paymentMethodId: string; brand: string | null; last4: string | null; expMonth: number | null; expYear: number | null },
): Promise<string | undefined> {
  const [row] = await tx.query<{ uid: string }>(
    `UPDATE saved_cards SET payment_method_id = $2, brand = $3, last4 = $4, exp_month = $5, exp_year = $6, saved_at = now()
     WHERE stripe_customer_id = $1 RETURNING uid`,
    [customerId, card.paymentMethodId, card.brand, card.last4, card.expMonth, card.expYear],
  );
  return row?.uid;
}

export async function forgetCard(tx: Queryable, uid: string): Promise<void> {
  await tx.query('DELETE FROM saved_cards WHERE uid = $1', [uid]);
}

export async function settingOf(db: Queryable, esimOrderId: string): Promise<AutoTopUpSetting | undefined> {
  const [row] = await db.query<AutoTopUpSetting>('SELECT * FROM auto_top_up_settings WHERE esim_order_id = $1', [esimOrderId]);
  return row;
}

export async function recordChange(tx: Queryable, esimOrderId: string, by: string, change: string): Promise<void> {
  await tx.query('INSERT INTO auto_top_up_changes (esim_order_id, by, change) VALUES ($1, $2, $3)', [esimOrderId, by, change]);
}

/** Turns automatic top-ups of the eSIM on with the buyer's consent and limits (or changes them), recorded. */
export async function saveSetting(tx: Queryable, setting: NewSetting, by: string): Promise<void> {
  await tx.query(
    `INSERT INTO auto_top_up_settings AS s (esim_order_id, uid, enabled, package_id, max_count, monthly_cap_minor, currency,
       consent_text, consent_lang, consented_at)
     VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (esim_order_id) DO UPDATE SET enabled = true, package_id = $3, max_count = $4, monthly_cap_minor = $5,
       currency = $6, consent_text = $7, consent_lang = $8, consented_at = now(), refusals_in_row = 0, updated_at = now()`,
    [
      setting.esimOrderId,
      setting.uid,
      setting.packageId,
      setting.maxCount,
      setting.monthlyCapMinor,
      setting.currency,
      setting.consentText,
      setting.consentLang,
    ],
  );
  await recordChange(
    tx,
    setting.esimOrderId,
    by,
    `on: ${setting.packageId ?? 'cheapest'}, at most ${setting.maxCount}, ${setting.monthlyCapMinor} ${setting.currency} a month`,
  );
}

/** Turns them off (false when they were off already), recorded with who and why. */
export async function turnOff(tx: Queryable, esimOrderId: string, by: string, why: string): Promise<boolean> {
  const rows = await tx.query(
    'UPDATE auto_top_up_settings SET enabled = false, updated_at = now() WHERE esim_order_id = $1 AND enabled RETURNING 1',
    [esimOrderId],
  );
  if (rows.length === 0) return false;
  await recordChange(tx, esimOrderId, by, `off: ${why}`);
  return true;
}

/** Every eSIM of the buyer turned off (the card removed, the account deleted). */
export async function turnOffAllOf(tx: Queryable, uid: string, by: string, why: string): Promise<void> {
  for (const { esim_order_id } of await tx.query<{ esim_order_id: string }>(
    'SELECT esim_order_id FROM auto_top_up_settings WHERE uid = $1 AND enabled',
    [uid],
  ))
    await turnOff(tx, esim_order_id, by, why);
}

/**
 * The eSIM crossed 10 % left: its automatic top-up is due once. The row is the crossing's one
 * top-up, its job queued in the same transaction; a crossing seen again finds the row and queues
 * nothing. True when this call made it due.
 */
export async function markCrossing(tx: Queryable, esimOrderId: string, crossing: string): Promise<boolean> {
  const made = await tx.query(
    `INSERT INTO auto_top_ups (esim_order_id, crossing, state) VALUES ($1, $2, 'due') ON CONFLICT DO NOTHING RETURNING 1`,
    [esimOrderId, crossing],
  );
  if (made.length === 0) return false;
  await addJob(tx, { kind: 'auto_top_up', key: autoTopUpJobKey(esimOrderId, crossing) });
  return true;
}

/**
 * eSIMs whose automatic top-ups are on and whose usage nobody read for `maxAgeMs`, with no crossing
 * in their data round yet (the oldest read first): the partner's notification of 10 % left may have
 * been lost (no instance up, or the one that got it stopped before reading), so they are read again.
 */
export async function unreadWatched(db: Queryable, maxAgeMs: number, limit: number): Promise<{ partner: string; esim_tran_no: string }[]> {
  return db.query(
    `SELECT e.partner, e.esim_tran_no FROM auto_top_up_settings s
     JOIN orders o ON o.id = s.esim_order_id AND o.state = 'delivered'
     JOIN esims e ON e.order_id = s.esim_order_id
     WHERE s.enabled AND e.status IN ('active', 'used_up')
       AND (e.usage_checked_at IS NULL OR e.usage_checked_at < now() - make_interval(secs => $1::double precision / 1000))
       AND NOT EXISTS (SELECT 1 FROM auto_top_ups a WHERE a.esim_order_id = s.esim_order_id AND a.crossing = 'data:' || e.data_round)
     ORDER BY e.usage_checked_at NULLS FIRST
     LIMIT $2`,
    [maxAgeMs, limit],
  );
}

export async function autoTopUpOf(db: Queryable, esimOrderId: string, crossing: string): Promise<AutoTopUpRow | undefined> {
  const [row] = await db.query<AutoTopUpRow>('SELECT * FROM auto_top_ups WHERE esim_order_id = $1 AND crossing = $2', [
    esimOrderId,
    crossing,
  ]);
  return row;
}

/** Moves the crossing's top-up on, with why (and its order and payment once known). */
export async function setState(
  tx: Queryable,
  row: Pick<AutoTopUpRow, 'esim_order_id' | 'crossing'>,
  state: AutoTopUpRow['state'],
  why: string | null,
  more: { orderId?: string; paymentIntentId?: string; customerId?: string } = {},
): Promise<void> {
  await tx.query(
    `UPDATE auto_top_ups SET state = $3, why = $4, order_id = coalesce($5, order_id), payment_intent_id = coalesce($6, payment_intent_id),
       stripe_customer_id = coalesce($7, stripe_customer_id), updated_at = now()
     WHERE esim_order_id = $1 AND crossing = $2`,
    [row.esim_order_id, row.crossing, state, why, more.orderId ?? null, more.paymentIntentId ?? null, more.customerId ?? null],
  );
}

/**
 * What the eSIM's automatic top-ups have cost so far: how many were charged and not refunded, and
 * their sum this calendar month (UTC), for the buyer's limits.
 */
export async function spentOn(db: Queryable, esimOrderId: string, now: Date): Promise<{ count: number; thisMonthMinor: number }> {
  const [row] = await db.query<{ count: string; month: string | null }>(
    `SELECT count(*) AS count,
       sum(o.amount_minor) FILTER (WHERE date_trunc('month', p.created_at AT TIME ZONE 'UTC') = date_trunc('month', $2::timestamptz AT TIME ZONE 'UTC')) AS month
     FROM orders o JOIN payments p ON p.order_id = o.id AND p.status = 'paid'
     WHERE o.kind = 'auto' AND o.top_up_of = $1 AND o.state <> 'refunded'`,
    [esimOrderId, now],
  );
  return { count: Number(row?.count ?? 0), thisMonthMinor: Number(row?.month ?? 0) };
}

/** A refused charge counted (three in a row turn them off, answered true), or the count cleared after a charge that went through. */
export async function countRefusal(tx: Queryable, esimOrderId: string, refused: boolean): Promise<number> {
  const [row] = await tx.query<{ refusals_in_row: number }>(
    `UPDATE auto_top_up_settings SET refusals_in_row = CASE WHEN $2 THEN refusals_in_row + 1 ELSE 0 END, updated_at = now()
     WHERE esim_order_id = $1 RETURNING refusals_in_row`,
    [esimOrderId, refused],
  );
  return row?.refusals_in_row ?? 0;
}

/** The buyer was told of the crossing's refused or skipped charge. */
export async function markNotified(db: Queryable, row: Pick<AutoTopUpRow, 'esim_order_id' | 'crossing'>): Promise<void> {
  await db.query('UPDATE auto_top_ups SET notified_at = now() WHERE esim_order_id = $1 AND crossing = $2', [
    row.esim_order_id,
    row.crossing,
  ]);
}

/** A deleted account's consents stay, as the record of what was charged, without the account. */
export async function forgetAutoTopUpOwner(tx: Queryable, uid: string): Promise<void> {
  await tx.query('UPDATE auto_top_up_settings SET uid = NULL, enabled = false, updated_at = now() WHERE uid = $1', [uid]);
}

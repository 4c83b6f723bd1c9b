import { LOW_BALANCE_CHECK_EVERY_MS, LOW_BALANCE_USD } from '../../config/constants.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { renderEmail, type Email } from '../mail/render.ts';
import type { EsimPartner } from '../partner/partner.types.ts';

/**
 * The partner's prepaid balance below the provider's threshold (issue 30 item 8): one e-mail per
 * crossing, kept in `balance_alerts` (migration 0018), so every API instance agrees. Below with no
 * open alert: one is opened and the provider e-mailed; still below: nothing; back at or above the
 * threshold: the open alert is cleared and the next crossing e-mails again. An e-mail that failed
 * (or had no address to go to) is sent by the next check that finds the balance still low.
 */
export async function checkPartnerBalance(deps: {
  db: Db;
  partner: EsimPartner;
  mailer: Mailer;
  providerEmail: string | undefined;
  thresholdUsd?: number;
}): Promise<'low' | 'ok' | 'unknown'> {
  const { db, partner, mailer, providerEmail } = deps;
  const thresholdUsdE4 = Math.round((deps.thresholdUsd ?? LOW_BALANCE_USD) * 10_000);
  let balanceUsdE4: number;
  try {
    balanceUsdE4 = await partner.balance();
  } catch (error) {
    console.error('balance alert: the partner balance could not be read', error instanceof Error ? error.message : error);
    return 'unknown';
  }
  if (balanceUsdE4 >= thresholdUsdE4) {
    await db.query('UPDATE balance_alerts SET cleared_at = now() WHERE cleared_at IS NULL');
    return 'ok';
  }
  const opened = await db.query(
    `INSERT INTO balance_alerts (threshold_usd_e4, balance_usd_e4) VALUES ($1, $2)
     ON CONFLICT ((true)) WHERE cleared_at IS NULL DO NOTHING RETURNING id`,
    [thresholdUsdE4, balanceUsdE4],
  );
  if (opened.length > 0) {
    console.error(`ALERT: the eSIM partner's prepaid balance is ${usd(balanceUsdE4, 'en-US')}, below ${usd(thresholdUsdE4, 'en-US')}`);
  }
  if (!providerEmail) return 'low';
  // Claimed before sending, so two instances checking at once send it once; given back if the send fails.
  const [claimed] = await db.query<{ id: number }>(
    'UPDATE balance_alerts SET emailed_at = now() WHERE cleared_at IS NULL AND emailed_at IS NULL RETURNING id',
  );
  if (!claimed) return 'low';
  try {
    await mailer.send({ to: providerEmail, ...lowBalanceEmail(balanceUsdE4, thresholdUsdE4) });
  } catch (error) {
    await db.query('UPDATE balance_alerts SET emailed_at = NULL WHERE id = $1', [claimed.id]);
    console.error(
      'balance alert: the e-mail to the provider failed; the next check sends it',
      error instanceof Error ? error.message : error,
    );
  }
  return 'low';
}

/**
 * Whether this instance's reconcile job reads the balance now: at most once per `everyMs` across
 * every instance (the last read's time is a row in the database, claimed atomically).
 */
export async function balanceCheckDue(db: Queryable, now: Date = new Date(), everyMs = LOW_BALANCE_CHECK_EVERY_MS): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO balance_checks (only_row, checked_at) VALUES (true, $1)
     ON CONFLICT (only_row) DO UPDATE SET checked_at = EXCLUDED.checked_at WHERE balance_checks.checked_at <= $2
     RETURNING checked_at`,
    [now, new Date(now.getTime() - everyMs)],
  );
  return rows.length > 0;
}

const usd = (usdE4: number, locale: 'en-US' | 'de-DE') =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }).format(usdE4 / 10_000);

/** For the provider, in English and German (they work in Berlin). */
export function lowBalanceEmail(balanceUsdE4: number, thresholdUsdE4: number): Email {
  const subject = `Low eSIM partner balance: ${usd(balanceUsdE4, 'en-US')} / Niedriges Guthaben beim eSIM-Partner`;
  return renderEmail('en', subject, [
    { kind: 'heading', text: 'The eSIM partner balance is low' },
    {
      kind: 'paragraph',
      text: `The prepaid balance at eSIM Access is ${usd(balanceUsdE4, 'en-US')}, below your threshold of ${usd(thresholdUsdE4, 'en-US')}. Every order and top-up is paid from it: top it up in the eSIM Access console. If it runs out, the shop refunds the order that failed and pauses sales until it is topped up.`,
    },
    { kind: 'paragraph', text: 'This e-mail comes once each time the balance falls below the threshold.', small: true },
    { kind: 'heading', text: 'Das Guthaben beim eSIM-Partner ist niedrig' },
    {
      kind: 'paragraph',
      text: `Das Prepaid-Guthaben bei eSIM Access beträgt ${usd(balanceUsdE4, 'de-DE')} und liegt unter Ihrer Schwelle von ${usd(thresholdUsdE4, 'de-DE')}. Jede Bestellung und jedes Aufladen wird daraus bezahlt: Laden Sie es in der eSIM-Access-Konsole auf. Ist es aufgebraucht, erstattet der Shop die gescheiterte Bestellung und pausiert den Verkauf, bis es aufgeladen ist.`,
    },
    { kind: 'paragraph', text: 'Diese E-Mail kommt jedes Mal einmal, wenn das Guthaben unter die Schwelle fällt.', small: true },
  ]);
}

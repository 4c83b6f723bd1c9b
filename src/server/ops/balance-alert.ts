import { LOW_BALANCE_CHECK_EVERY_MS, LOW_BALANCE_USD } from '../../config/constants.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { renderEmail, type Email } from '../mail/render.ts';
import type { Partners } from '../partner/registry.types.ts';

/**
 * A partner's prepaid balance below the provider's threshold (issue 30 item 8; each partner's own
 * since issue 48): one e-mail per crossing, kept in `balance_alerts` (migrations 0018, 0047), so
 * every API instance agrees. Below with no
 * open alert: one is opened and the provider e-mailed; still below: nothing; back at or above the
 * threshold: the open alert is cleared and the next crossing e-mails again. An e-mail that failed
 * (or had no address to go to) is sent by the next check that finds the balance still low.
 */
export async function checkPartnerBalance(deps: {
  db: Db;
  partners: Pick<Partners, 'of' | 'nameOf'>;
  /** The partner whose balance is checked (its id). */
  partner: string;
  mailer: Mailer;
  providerEmail: string | undefined;
  thresholdUsd?: number;
}): Promise<'low' | 'ok' | 'unknown'> {
  const { db, partner, mailer, providerEmail } = deps;
  const name = deps.partners.nameOf(partner);
  const thresholdUsdE4 = Math.round((deps.thresholdUsd ?? LOW_BALANCE_USD) * 10_000);
  let balanceUsdE4: number;
  try {
    balanceUsdE4 = await deps.partners.of(partner).balance();
  } catch (error) {
    console.error(`balance alert: the balance at ${name} could not be read`, error instanceof Error ? error.message : error);
    return 'unknown';
  }
  if (balanceUsdE4 >= thresholdUsdE4) {
    await db.query('UPDATE balance_alerts SET cleared_at = now() WHERE partner = $1 AND cleared_at IS NULL', [partner]);
    return 'ok';
  }
  const opened = await db.query(
    `INSERT INTO balance_alerts (partner, threshold_usd_e4, balance_usd_e4) VALUES ($1, $2, $3)
     ON CONFLICT (partner) WHERE cleared_at IS NULL DO NOTHING RETURNING id`,
    [partner, thresholdUsdE4, balanceUsdE4],
  );
  if (opened.length > 0) {
    console.error(`ALERT: the prepaid balance at ${name} is ${usd(balanceUsdE4, 'en-US')}, below ${usd(thresholdUsdE4, 'en-US')}`);
  }
  if (!providerEmail) return 'low';
  // Claimed before sending, so two instances checking at once send it once; given back if the send fails.
  const [claimed] = await db.query<{ id: number }>(
    'UPDATE balance_alerts SET emailed_at = now() WHERE partner = $1 AND cleared_at IS NULL AND emailed_at IS NULL RETURNING id',
    [partner],
  );
  if (!claimed) return 'low';
  try {
    await mailer.send({ to: providerEmail, ...lowBalanceEmail(name, balanceUsdE4, thresholdUsdE4) });
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

/** For the provider, in English and German (they work in Berlin): `partner` is the partner's name. */
export function lowBalanceEmail(partner: string, balanceUsdE4: number, thresholdUsdE4: number): Email {
  const subject = `Low balance at ${partner}: ${usd(balanceUsdE4, 'en-US')} / Niedriges Guthaben bei ${partner}`;
  return renderEmail('en', subject, [
    { kind: 'heading', text: `The balance at ${partner} is low` },
    {
      kind: 'paragraph',
      text: `The prepaid balance at ${partner} is ${usd(balanceUsdE4, 'en-US')}, below your threshold of ${usd(thresholdUsdE4, 'en-US')}. Every order and top-up sent to ${partner} is paid from it: top it up in its console. If it runs out, orders go to another partner that sells the plan, or are refunded, and nothing goes to ${partner} until it is topped up.`,
    },
    { kind: 'paragraph', text: 'This e-mail comes once each time the balance falls below the threshold.', small: true },
    { kind: 'heading', text: `Das Guthaben bei ${partner} ist niedrig` },
    {
      kind: 'paragraph',
      text: `Das Prepaid-Guthaben bei ${partner} beträgt ${usd(balanceUsdE4, 'de-DE')} und liegt unter Ihrer Schwelle von ${usd(thresholdUsdE4, 'de-DE')}. Jede Bestellung und jedes Aufladen bei ${partner} wird daraus bezahlt: Laden Sie es in dessen Konsole auf. Ist es aufgebraucht, gehen Bestellungen an einen anderen Partner, der den Tarif führt, oder werden erstattet, und nichts geht an ${partner}, bis es aufgeladen ist.`,
    },
    { kind: 'paragraph', text: 'Diese E-Mail kommt jedes Mal einmal, wenn das Guthaben unter die Schwelle fällt.', small: true },
  ]);
}

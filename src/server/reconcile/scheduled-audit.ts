import type { Db } from '../db/db.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { renderEmail, type Email } from '../mail/render.ts';
import { auditDatabase, type AuditFinding } from '../orders/audit.ts';

/**
 * The order audit as the scheduler runs it every hour (issue 31, deploy/deploy.sh): the same audit
 * as `npm run orders:audit`, and when it finds something the provider is e-mailed the report (and
 * the log says so, also without an address). A finding that stays is e-mailed again each hour:
 * each is money or an order that needs a person, so the reminder is the point.
 */
export async function runScheduledAudit(deps: {
  db: Db;
  mailer: Mailer;
  providerEmail: string | undefined;
}): Promise<{ checked: number; findings: number; emailed: boolean }> {
  const { checked, findings } = await auditDatabase(deps.db);
  if (findings.length === 0) return { checked, findings: 0, emailed: false };
  console.error(`ALERT: the order audit found ${findings.length} order(s) breaking an invariant (npm run orders:audit lists them)`);
  if (!deps.providerEmail) return { checked, findings: findings.length, emailed: false };
  await deps.mailer.send({ to: deps.providerEmail, ...auditEmail(findings, checked) });
  return { checked, findings: findings.length, emailed: true };
}

/** For the provider, in English and German (they work in Berlin); one row per finding as `npm run orders:audit` prints it. */
export function auditEmail(findings: readonly AuditFinding[], checked: number): Email {
  const subject = `Order audit: ${findings.length} finding(s) / Bestellprüfung: ${findings.length} Befund(e)`;
  return renderEmail('en', subject, [
    { kind: 'heading', text: 'The hourly order audit found something' },
    {
      kind: 'paragraph',
      text: 'Each line is an order that breaks one of the shop’s money rules (paid but not delivered, refunded twice, …). Open it in the back office (/ops) by its number and put it right; `npm run orders:audit` prints the same list.',
    },
    { kind: 'heading', text: 'Die stündliche Bestellprüfung hat etwas gefunden' },
    {
      kind: 'paragraph',
      text: 'Jede Zeile ist eine Bestellung, die gegen eine Geldregel des Shops verstößt (bezahlt, aber nicht geliefert, doppelt erstattet, …). Öffnen Sie sie im Backoffice (/ops) über ihre Nummer und bringen Sie sie in Ordnung.',
    },
    {
      kind: 'rows',
      rows: findings.map((finding) => ({
        label: finding.invariant,
        value: [finding.orderNumber ?? finding.orderId ?? '-', finding.state ?? '-', finding.detail].join(' · '),
      })),
    },
    { kind: 'paragraph', text: `${findings.length} finding(s), ${checked} orders checked.`, small: true },
  ]);
}

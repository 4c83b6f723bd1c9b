import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, openBefore } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { migrate } from '../db/migrate.ts';

/**
 * Migration 0035 (issue 47 item 1) on a database that holds orders in every state: every order
 * with work left (what DUE_ORDERS_SQL selected) gets its job, with its tries and error; the others
 * none; the e-mails owed and sent move to the outbox; the order row loses its queue columns.
 */
async function order(db: Db, state: string, columns: Record<string, unknown> = {}): Promise<string> {
  const id = randomUUID();
  const names = Object.keys(columns);
  await db.query(
    `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, partner_code, wholesale_usd_e4, amount_minor,
       currency, lang, terms_version, terms_accepted_at, immediate_start_requested_at, kind${names.map((n) => `, ${n}`).join('')})
     VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, 'P1', 5000, 1000, 'EUR', 'en', '2026-01', now(), now(), 'esim'
       ${names.map((_, i) => `, $${i + 4}`).join('')})`,
    [id, `uid-${id}`, state, ...names.map((n) => columns[n])],
  );
  return id;
}

describe.each(databaseDrivers())('migration 0035 on $name', ({ open }) => {
  it('queues a job for every order with work left, moves the e-mails to the outbox and drops the queue columns', async () => {
    const db = await openBefore(open, '0035');
    const later = new Date(Date.now() + 3600_000);
    const due = {
      paid: await order(db, 'paid'),
      approved: await order(db, 'paid', { hold: 'approved' }),
      provisioning: await order(db, 'provisioning', { attempts: 2, last_error: 'PartnerError: esim/order 500', next_attempt_at: later }),
      failed: await order(db, 'fulfilment_failed'),
      refundRequested: await order(db, 'refund_requested', { refund_reason: 'requested' }),
      deliveredUnsent: await order(db, 'delivered'),
      refundedUnsent: await order(db, 'refunded', { refund_reason: 'not_delivered' }),
      withOpenRefund: await order(db, 'delivered', { email_sent_at: new Date() }),
    };
    await db.query(
      `INSERT INTO refunds (id, order_id, requested_by, reason, amount_minor, currency, status, idempotency_key)
       VALUES ($1, $2, 'buyer', 'requested', 100, 'EUR', 'pending', $3)`,
      [randomUUID(), due.withOpenRefund, randomUUID()],
    );
    const sentAt = new Date(Date.now() - 60_000);
    const none = {
      pending: await order(db, 'pending_payment'),
      expired: await order(db, 'expired'),
      cancelled: await order(db, 'cancelled'),
      paymentFailed: await order(db, 'payment_failed'),
      held: await order(db, 'paid', { hold: 'held' }),
      delivered: await order(db, 'delivered', { email_sent_at: sentAt }),
      refunded: await order(db, 'refunded', { refund_reason: 'requested', email_sent_at: sentAt }),
      refundedQuietly: await order(db, 'refunded'),
    };
    await db.query(`INSERT INTO order_emails (order_id, kind) VALUES ($1, 'order'), ($1, 'refund')`, [none.refunded]);

    expect(await migrate(db)).toContain('0035_jobs.sql');

    const jobs = await db.query<{ order_id: string; kind: string; attempts: number; last_error: string | null; run_at: Date }>(
      'SELECT order_id, kind, attempts, last_error, run_at FROM jobs',
    );
    const kindOf = Object.fromEntries(jobs.map((j) => [j.order_id, j.kind]));
    expect(kindOf).toEqual({
      [due.paid]: 'deliver',
      [due.approved]: 'deliver',
      [due.provisioning]: 'deliver',
      [due.failed]: 'refund',
      [due.refundRequested]: 'refund',
      [due.deliveredUnsent]: 'email',
      [due.refundedUnsent]: 'email',
      [due.withOpenRefund]: 'refund',
    });
    const provisioning = jobs.find((j) => j.order_id === due.provisioning)!;
    expect(provisioning).toMatchObject({ attempts: 2, last_error: 'PartnerError: esim/order 500' });
    expect(Math.abs(new Date(provisioning.run_at).getTime() - later.getTime())).toBeLessThan(1_000);

    const outbox = await db.query<{ order_id: string; kind: string; sent: boolean }>(
      'SELECT order_id, kind, sent_at IS NOT NULL AS sent FROM email_outbox ORDER BY order_id, kind',
    );
    const mail = (id: string) => outbox.filter((o) => o.order_id === id).map((o) => `${o.kind}:${o.sent ? 'sent' : 'owed'}`);
    expect(mail(due.deliveredUnsent)).toEqual(['order:owed']);
    expect(mail(due.refundedUnsent)).toEqual(['refund:owed']);
    expect(mail(due.withOpenRefund)).toEqual(['order:sent']);
    expect(mail(none.delivered)).toEqual(['order:sent']);
    expect(mail(none.refunded)).toEqual(['order:sent', 'refund:sent']);
    expect(mail(none.refundedQuietly)).toEqual([]);
    expect(mail(none.pending)).toEqual([]);

    const columns = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'orders'
         AND column_name IN ('attempts', 'next_attempt_at', 'last_error', 'locked_until', 'lease', 'email_sent_at')`,
    );
    expect(columns).toEqual([]);
  }, 120_000);
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { claimOrder, LeaseLost } from '../fulfilment/lease.ts';
import { auditOrders } from '../orders/audit.ts';
import { moveOrder } from '../orders/store.ts';
import { orderJobKey, queueOrder } from './order-jobs.ts';
import { addJob, claimDue, deadJobs, jobByKey, release } from './queue.ts';

/**
 * The one jobs table (issue 47 item 1) on PGlite and a real PostgreSQL server: queued with the
 * transaction that makes a job due or not at all, claimed by one worker at a time, fenced, retried
 * with a backoff computed in SQL, and given up into 'dead', which the audit names.
 */
async function order(db: Db, state = 'pending_payment'): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind)
     VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, 1000, 'EUR', 'en', 'esim')`,
    [id, `uid-${id}`, state],
  );
  return id;
}

describe.each(databaseDrivers())('the jobs table on $name', { timeout: 60_000 }, ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened));
  const drain = async () => {
    // Whatever earlier tests left due: claimed and ended, so each test sees only its own.
    for (
      let job = await claimDue(db, ['deliver', 'refund', 'email'], 60_000);
      job;
      job = await claimDue(db, ['deliver', 'refund', 'email'], 60_000)
    )
      await db.query('DELETE FROM jobs WHERE id = $1', [job.id]);
  };

  it('never runs a job queued in a transaction that rolled back; one queued with its state change is due at once', async () => {
    await drain();
    const id = await order(db);
    await expect(
      db.transaction(async (tx) => {
        expect(await moveOrder(tx, id, 'paid', 'test: paid')).toBe(true);
        throw new Error('the payment webhook failed after the move');
      }),
    ).rejects.toThrow('failed after the move');
    expect(await jobByKey(db, orderJobKey(id))).toBeUndefined();
    expect(await claimDue(db, ['deliver'], 60_000)).toBeUndefined();
    expect(await claimOrder(db, id, 60_000)).toBeUndefined();

    await db.transaction((tx) => moveOrder(tx, id, 'paid', 'test: paid'));
    const job = await claimDue(db, ['deliver'], 60_000);
    expect(job).toMatchObject({ kind: 'deliver', key: orderJobKey(id), order_id: id, attempts: 0 });
    await release(db, job!, { kind: 'done' });
    expect(await jobByKey(db, orderJobKey(id))).toBeUndefined();
  });

  it('keeps at most one pending job per order: queued again, it is the same job, brought forward', async () => {
    await drain();
    const id = await order(db, 'paid');
    await db.transaction((tx) =>
      addJob(tx, { kind: 'deliver', key: orderJobKey(id), orderId: id, runAt: new Date(Date.now() + 3600_000) }),
    );
    await db.transaction((tx) => queueOrder(tx, id, 'refund'));
    const rows = await db.query<{ kind: string; due: boolean }>('SELECT kind, run_at <= now() AS due FROM jobs WHERE order_id = $1', [id]);
    expect(rows).toEqual([{ kind: 'refund', due: true }]);
  });

  it('never gives one job to two runners at once, and each job runs once', async () => {
    await drain();
    const ids = await Promise.all(Array.from({ length: 30 }, () => order(db, 'paid')));
    for (const id of ids) await db.transaction((tx) => queueOrder(tx, id, 'deliver'));
    const ran: string[] = [];
    let running = 0;
    let overlapped = false;
    const held = new Set<string>();
    // Two runners on one database (on PostgreSQL each claim is its own connection of the pool).
    const runner = async () => {
      for (;;) {
        const job = await claimDue(db, ['deliver'], 60_000);
        if (!job) return;
        if (held.has(job.key)) overlapped = true;
        held.add(job.key);
        running++;
        await new Promise((r) => setTimeout(r, 2));
        ran.push(job.order_id!);
        held.delete(job.key);
        running--;
        await release(db, job, { kind: 'done' });
      }
    };
    await Promise.all([runner(), runner(), runner()]);
    expect(overlapped).toBe(false);
    expect(running).toBe(0);
    expect(ran.sort()).toEqual([...ids].sort());
  });

  it('fences a run whose claim lapsed: another worker takes the job, and the first can no longer write or end it', async () => {
    await drain();
    const id = await order(db, 'paid');
    await db.transaction((tx) => queueOrder(tx, id, 'deliver'));
    const first = (await claimOrder(db, id, 10_000))!;
    // Its claim lapses (a paused process): the second takes the job with the next lease number.
    await db.query(`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE key = $1`, [orderJobKey(id)]);
    const second = (await claimOrder(db, id, 10_000))!;
    expect(second.job.lease).toBe(first.job.lease + 1);
    await expect(first.write((tx) => moveOrder(tx, id, 'provisioning', 'test: the first'))).rejects.toBeInstanceOf(LeaseLost);
    await first.release({ kind: 'done' });
    expect(await jobByKey(db, orderJobKey(id))).toMatchObject({ lease: second.job.lease });
    await second.write((tx) => moveOrder(tx, id, 'provisioning', 'test: the second'));
    // Queued by its own run's move: no second run is due for it.
    await second.release({ kind: 'done' });
    expect(await jobByKey(db, orderJobKey(id))).toBeUndefined();
  });

  it('runs a job again when something else queued it while it ran', async () => {
    await drain();
    const id = await order(db, 'delivered');
    await db.transaction((tx) => queueOrder(tx, id, 'email'));
    const lease = (await claimOrder(db, id, 10_000))!;
    // The buyer's refund, meanwhile, in a transaction of its own.
    await db.transaction((tx) => moveOrder(tx, id, 'refund_requested', 'test: buyer'));
    await lease.release({ kind: 'done' });
    expect(await jobByKey(db, orderJobKey(id))).toMatchObject({ kind: 'refund', state: 'pending', locked_until: null });
  });

  it('retries with the backoff computed in SQL, and a job that keeps failing ends dead: not claimed, named by the audit', async () => {
    await drain();
    const id = await order(db, 'refund_requested');
    await db.transaction((tx) => addJob(tx, { kind: 'refund', key: orderJobKey(id), orderId: id, maxAttempts: 3 }));
    const delaysMs = [1_000, 60_000];
    const lease = (await claimOrder(db, id, 10_000))!;
    await lease.release({ kind: 'retry', error: 'Error: Stripe said no', delaysMs });
    const [first] = await db.query<{ wait: number; attempts: number }>(
      `SELECT extract(epoch FROM run_at - now()) * 1000 AS wait, attempts FROM jobs WHERE key = $1`,
      [orderJobKey(id)],
    );
    expect(first!.attempts).toBe(1);
    expect(Number(first!.wait)).toBeGreaterThan(500);
    expect(Number(first!.wait)).toBeLessThanOrEqual(1_000);
    for (let i = 0; i < 2; i++) {
      const again = (await claimOrder(db, id, 10_000))!;
      await again.release({ kind: 'retry', error: 'Error: Stripe said no', delaysMs, capMs: 30_000 });
      if (i === 0) {
        const [second] = await db.query<{ wait: number }>(
          `SELECT extract(epoch FROM run_at - now()) * 1000 AS wait FROM jobs WHERE key = $1`,
          [orderJobKey(id)],
        );
        // The second wait (60 s), at most the cap.
        expect(Number(second!.wait)).toBeGreaterThan(20_000);
        expect(Number(second!.wait)).toBeLessThanOrEqual(30_000);
      }
    }
    expect(await jobByKey(db, orderJobKey(id))).toMatchObject({ state: 'dead', attempts: 3, last_error: 'Error: Stripe said no' });
    await db.query(`UPDATE jobs SET run_at = now() - interval '1 hour' WHERE key = $1`, [orderJobKey(id)]);
    expect(await claimDue(db, ['refund'], 10_000)).toBeUndefined();
    expect(await claimOrder(db, id, 10_000)).toBeUndefined();
    expect((await deadJobs(db)).map((job) => job.order_id)).toContain(id);
    const findings = (await auditOrders(db)).filter((f) => f.invariant === 'job_dead');
    expect(findings).toEqual([
      expect.objectContaining({ orderId: id, detail: expect.stringContaining('after 3 tries: Error: Stripe said no') }),
    ]);
    // Queued again (an admin's retry, a new refund): alive, with a fresh count.
    await db.transaction((tx) => queueOrder(tx, id, 'refund'));
    expect(await jobByKey(db, orderJobKey(id))).toMatchObject({ state: 'pending', attempts: 0 });
  });
});

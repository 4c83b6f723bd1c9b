import type { Db, Queryable } from '../db/db.types.ts';

/**
 * The one jobs table (migration 0035, issue 47 item 1), one function a statement. Its design is
 * graphile-worker's (sql/getJob.ts, failJob.ts, add_job): one table; a key so at most one pending
 * job per key; a job queued in the transaction of the state change that makes it due; claimed
 * with FOR UPDATE SKIP LOCKED; retried with a backoff computed in SQL; given up into 'dead'.
 *
 * Why our own small runner rather than graphile-worker itself: graphile-worker needs a pool of
 * real connections (a worker holds one while it waits, the job's own writes take others) and
 * LISTEN/NOTIFY to wake its workers; the embedded PGlite that `npm start` uses by default is one
 * connection in-process, and its LISTEN only hears its own NOTIFYs. The statements below run the
 * same on PGlite and on a pg pool. Fenced like the order leases before them (DESIGN 7): every claim
 * takes the next lease number, and each write of a run checks it (lease.ts), so a worker whose
 * claim lapsed (a paused process) can no longer write.
 */

export type JobKind = 'deliver' | 'refund' | 'email' | 'sweep' | 'auto_top_up';

export interface JobRow {
  id: number;
  kind: JobKind;
  key: string;
  order_id: string | null;
  state: 'pending' | 'dead';
  run_at: Date;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked_until: Date | null;
  lease: number;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

/** The claim a run holds: the job, its lease number and the revision it started from. */
export interface JobClaim {
  id: number;
  lease: number;
  revision: number;
}

const normal = (row: JobRow): JobRow => ({ ...row, id: Number(row.id), lease: Number(row.lease) });

/** The setting a fenced transaction sets (lease.ts): a job queued again by its own run is not queued again. */
export const HELD_SETTING = 'jobs.held';

/**
 * Queues the job in the caller's transaction (graphile-worker's add_job with a key): a new one, or
 * the pending one of its key brought forward to now. Queued again by anyone but its own run while
 * it runs, its revision goes up, so that run does not end it (it runs once more). A dead job is
 * revived with a fresh count of tries, as is any when `resetAttempts`.
 */
export async function addJob(
  tx: Queryable,
  job: { kind: JobKind; key: string; orderId?: string | null; runAt?: Date; resetAttempts?: boolean; maxAttempts?: number },
): Promise<void> {
  await tx.query(
    `INSERT INTO jobs AS j (kind, key, order_id, run_at, max_attempts) VALUES ($1, $2, $3, coalesce($4, now()), coalesce($6, 25))
     ON CONFLICT (key) DO UPDATE SET
       kind = excluded.kind,
       run_at = least(j.run_at, excluded.run_at),
       revision = j.revision + CASE WHEN current_setting('${HELD_SETTING}', true) = j.id || ':' || j.lease THEN 0 ELSE 1 END,
       attempts = CASE WHEN $5 OR j.state = 'dead' THEN 0 ELSE j.attempts END,
       state = 'pending',
       updated_at = now()`,
    [job.kind, job.key, job.orderId ?? null, job.runAt ?? null, job.resetAttempts ?? false, job.maxAttempts ?? null],
  );
}

const CLAIM = `UPDATE jobs SET locked_until = now() + $2 * interval '1 millisecond', lease = lease + 1, updated_at = now()`;

/** Claims the pending job of this key whether its time has come or not (a webhook's hint), unless a worker holds it. */
export async function claimByKey(db: Db, key: string, leaseMs: number): Promise<JobRow | undefined> {
  const [row] = await db.query<JobRow>(
    `${CLAIM} WHERE id = (SELECT id FROM jobs WHERE key = $1 AND state = 'pending' AND (locked_until IS NULL OR locked_until < now())
       FOR UPDATE SKIP LOCKED) RETURNING *`,
    [key, leaseMs],
  );
  return row && normal(row);
}

/** Claims the pending job of this key if its time has come and nobody holds it (a periodic job). */
export async function claimIfDue(db: Db, key: string, leaseMs: number): Promise<JobRow | undefined> {
  const [row] = await db.query<JobRow>(
    `${CLAIM} WHERE id = (SELECT id FROM jobs WHERE key = $1 AND state = 'pending' AND run_at <= now()
       AND (locked_until IS NULL OR locked_until < now()) FOR UPDATE SKIP LOCKED) RETURNING *`,
    [key, leaseMs],
  );
  return row && normal(row);
}

/** Claims the job of these kinds due first that nobody holds (graphile-worker's getJob). */
export async function claimDue(db: Db, kinds: readonly JobKind[], leaseMs: number): Promise<JobRow | undefined> {
  const [row] = await db.query<JobRow>(
    `${CLAIM} WHERE id = (SELECT id FROM jobs
       WHERE state = 'pending' AND run_at <= now() AND kind = ANY($1::text[]) AND (locked_until IS NULL OR locked_until < now())
       ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING *`,
    [[...kinds], leaseMs],
  );
  return row && normal(row);
}

/** Holds the job `leaseMs` longer; false when another claim took it meanwhile. */
export async function renew(db: Db, claim: JobClaim, leaseMs: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET locked_until = now() + $3 * interval '1 millisecond' WHERE id = $1 AND lease = $2 RETURNING id`,
    [claim.id, claim.lease, leaseMs],
  );
  return rows.length > 0;
}

/**
 * Takes the job from whoever runs it now: its lease moves on, so that run's next fenced write
 * fails (LeaseLost) before it sends anything more, and the job is free to claim at once. For an
 * operator who changes what the job will do (ops/order-actions.ts: another partner).
 */
export async function fenceOff(tx: Queryable, key: string): Promise<void> {
  await tx.query('UPDATE jobs SET lease = lease + 1, locked_until = NULL, updated_at = now() WHERE key = $1', [key]);
}

/**
 * The job's lease number now (undefined: it is gone); in a transaction also locks its row and
 * marks the transaction as its run's (HELD_SETTING), so what the run queues does not queue it again.
 */
export async function currentLease(tx: Queryable, id: number, inTransaction: boolean): Promise<number | undefined> {
  const [row] = await tx.query<{ lease: string | number }>(
    inTransaction
      ? `SELECT lease, set_config('${HELD_SETTING}', id || ':' || lease, true) FROM jobs WHERE id = $1 FOR UPDATE`
      : 'SELECT lease FROM jobs WHERE id = $1',
    [id],
  );
  return row ? Number(row.lease) : undefined;
}

/** When the job runs next, given as its claim is released. */
export type NextRun =
  /** Nothing left to do: the job ends (unless it was queued again meanwhile). */
  | { kind: 'done' }
  /** Its schedule as it stands (another worker took over, or the run moved it on itself). */
  | { kind: 'unchanged' }
  /** Look again after a wait that is no failure (the partner allocating, a refund pending). */
  | { kind: 'look_again'; inMs: number }
  /** A periodic job ran: its count of failures starts again, and it runs again after its period. */
  | { kind: 'periodic'; inMs: number }
  /**
   * A try failed: counted, with its error; run again after the wait for this many failures
   * (`delaysMs[attempts - 1]`, the last one after that), at most `capMs`; dead once max_attempts are spent.
   */
  | { kind: 'retry'; error: string; delaysMs: readonly number[]; capMs?: number | undefined };

/** Gives the job up with its next run; nothing when the claim was lost. */
export async function release(db: Db, claim: JobClaim, next: NextRun): Promise<void> {
  const held = 'WHERE id = $1 AND lease = $2';
  // Queued again while it ran: due at once, whatever this run thought.
  const revised = `revision <> $3`;
  switch (next.kind) {
    case 'done': {
      const gone = await db.query(`DELETE FROM jobs ${held} AND revision = $3 RETURNING id`, [claim.id, claim.lease, claim.revision]);
      if (gone.length === 0)
        await db.query(`UPDATE jobs SET locked_until = NULL, attempts = 0, run_at = now(), updated_at = now() ${held}`, [
          claim.id,
          claim.lease,
        ]);
      return;
    }
    case 'unchanged':
      await db.query(
        `UPDATE jobs SET locked_until = NULL, run_at = CASE WHEN ${revised} THEN now() ELSE run_at END, updated_at = now() ${held}`,
        [claim.id, claim.lease, claim.revision],
      );
      return;
    case 'look_again':
      await db.query(
        `UPDATE jobs SET locked_until = NULL, updated_at = now(),
           run_at = CASE WHEN ${revised} THEN now() ELSE now() + $4 * interval '1 millisecond' END ${held}`,
        [claim.id, claim.lease, claim.revision, next.inMs],
      );
      return;
    case 'periodic':
      await db.query(
        `UPDATE jobs SET locked_until = NULL, attempts = 0, last_error = NULL, updated_at = now(),
           run_at = now() + $3 * interval '1 millisecond' ${held}`,
        [claim.id, claim.lease, next.inMs],
      );
      return;
    case 'retry':
      // The backoff in SQL (failJob.ts): the wait for this many failures, the last one after them, at most the cap.
      await db.query(
        `UPDATE jobs SET locked_until = NULL, updated_at = now(), attempts = attempts + 1, last_error = $3,
           state = CASE WHEN attempts + 1 >= max_attempts THEN 'dead' ELSE 'pending' END,
           run_at = now() + greatest(0, least(($4::bigint[])[least(attempts + 1, cardinality($4::bigint[]))], $5::bigint))
                            * interval '1 millisecond'
         ${held}`,
        [
          claim.id,
          claim.lease,
          next.error,
          next.delaysMs.map(Math.round),
          next.capMs === undefined ? null : Math.max(0, Math.round(next.capMs)),
        ],
      );
      return;
  }
}

/** The tries of the order's job start again (a delivery given up for its refund), in the caller's transaction. */
export async function resetAttempts(tx: Queryable, key: string, error: string | null): Promise<void> {
  await tx.query('UPDATE jobs SET attempts = 0, last_error = coalesce($2, last_error), run_at = now() WHERE key = $1', [key, error]);
}

/** The job of a key, if any (pending or dead). */
export async function jobByKey(db: Queryable, key: string): Promise<JobRow | undefined> {
  const [row] = await db.query<JobRow>('SELECT * FROM jobs WHERE key = $1', [key]);
  return row && normal(row);
}

/** Jobs that gave up (the audit, the back office), newest first. */
export async function deadJobs(db: Queryable, limit = 100): Promise<JobRow[]> {
  const rows = await db.query<JobRow>(`SELECT * FROM jobs WHERE state = 'dead' ORDER BY updated_at DESC LIMIT $1`, [limit]);
  return rows.map(normal);
}

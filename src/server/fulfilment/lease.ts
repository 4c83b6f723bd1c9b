import type { Db, Queryable } from '../db/db.types.ts';
import { ORDER_JOB_KINDS, orderJobKey } from '../jobs/order-jobs.ts';
import * as jobs from '../jobs/queue.ts';
import { SOURCING_COLUMNS, SOURCING_JOIN } from '../orders/sourcing.ts';
import type { OrderRow, OrderSourcing } from '../orders/store.types.ts';
import type { Lease } from './lease.types.ts';

/** Another worker holds the order's job now: this one stops without writing anything more. */
export class LeaseLost extends Error {
  constructor(orderId: string) {
    super(`order ${orderId}: another worker holds it now`);
    this.name = 'LeaseLost';
  }
}

/** Claims the order's job now, whether due or not (a webhook's hint, a request); undefined when none is pending or another holds it. */
export async function claimOrder(db: Db, id: string, leaseMs: number): Promise<Lease | undefined> {
  const job = await jobs.claimByKey(db, orderJobKey(id), leaseMs);
  return job && leaseOf(db, job, leaseMs);
}

/** Claims the order job due first (the reconcile job's part). */
export async function claimDueOrder(db: Db, leaseMs: number): Promise<Lease | undefined> {
  const job = await jobs.claimDue(db, ORDER_JOB_KINDS, leaseMs);
  return job && leaseOf(db, job, leaseMs);
}

async function leaseOf(db: Db, job: jobs.JobRow, leaseMs: number): Promise<Lease> {
  const claim: jobs.JobClaim = { id: job.id, lease: job.lease, revision: job.revision };
  const id = job.order_id!;
  let lost = false;

  // Renewed at a third of its length: two renewals may fail (a slow database) before it lapses.
  const renewal = setInterval(
    () => {
      jobs
        .renew(db, claim, leaseMs)
        .then((held) => {
          if (!held) lost = true;
        })
        .catch(() => undefined);
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  renewal.unref();

  async function check(tx: Queryable = db): Promise<void> {
    if (lost) throw new LeaseLost(id);
    // In a transaction the order's row is locked before its job's, as every transaction that moves
    // an order and queues its job does (orders/store.ts moveOrder): one order of locks, no deadlock.
    if (tx !== db) await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [id]);
    if ((await jobs.currentLease(tx, claim.id, tx !== db)) !== claim.lease) {
      lost = true;
      throw new LeaseLost(id);
    }
  }

  const [order] = await db.query<OrderRow & OrderSourcing>(
    `SELECT o.*, ${SOURCING_COLUMNS} FROM orders o ${SOURCING_JOIN} WHERE o.id = $1`,
    [id],
  );
  return {
    order: order!,
    job,
    check,
    write: (work) =>
      db.transaction(async (tx) => {
        await check(tx);
        return work(tx);
      }),
    async release(next) {
      clearInterval(renewal);
      await jobs.release(db, claim, next);
    },
  };
}

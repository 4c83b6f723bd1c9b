import type { Queryable } from '../db/db.types.ts';
import type { JobRow, NextRun } from '../jobs/queue.ts';
import type { OrderRow, OrderSourcing } from '../orders/store.types.ts';

/**
 * A worker's claim on one order's job (DESIGN 7): taken for `leaseMs`, renewed while the work goes
 * on, and fenced: every claim takes the next lease number, and each write of the run checks it, so a
 * second API instance that took the job after a lapse (a paused process, a lost connection) never
 * acts on the order at the same time as the first.
 */
export interface Lease {
  /** The order as it was when the claim was taken, with its partner. */
  readonly order: OrderRow & OrderSourcing;
  readonly job: JobRow;
  /** Fails with LeaseLost unless this claim still holds the job; in a transaction, also locks its row. */
  check(tx?: Queryable): Promise<void>;
  /** Runs `work` in a transaction that first checks the claim still holds. */
  write<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Gives the job up, with its next run; nothing when the claim was lost. */
  release(next: NextRun): Promise<void>;
}

import type { Db, Queryable } from '../db/db.ts';
import type { OrderRow } from '../orders/store.types.ts';
import * as queue from './queue.ts';

/** Another worker holds the order now: this one stops without writing anything more. */
export class LeaseLost extends Error {
  constructor(orderId: string) {
    super(`order ${orderId}: another worker holds it now`);
    this.name = 'LeaseLost';
  }
}

/**
 * A worker's claim on one order (DESIGN 7): taken for `leaseMs`, renewed while the work goes on,
 * and fenced: every claim takes the next lease number, and each write of the run checks it, so a
 * second API instance that took the order after a lapse (a paused process, a lost connection)
 * never acts on it at the same time as the first.
 */
export interface Lease {
  readonly order: OrderRow;
  /** Fails with LeaseLost unless this claim still holds the order; in a transaction, also locks its row. */
  check(tx?: Queryable): Promise<void>;
  /** Runs `work` in a transaction that first checks the claim still holds. */
  write<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Gives the order up, with its next try; nothing when the claim was lost. */
  release(next: queue.NextTry): Promise<void>;
}

export async function claimOrder(db: Db, id: string, leaseMs: number): Promise<Lease | undefined> {
  const order = await queue.claim(db, id, leaseMs);
  if (!order) return undefined;
  const claim = { id, lease: Number(order.lease) };
  let lost = false;

  // Renewed at a third of its length: two renewals may fail (a slow database) before it lapses.
  const renewal = setInterval(
    () => {
      queue
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
    if ((await queue.currentLease(tx, id, tx !== db)) !== claim.lease) {
      lost = true;
      throw new LeaseLost(id);
    }
  }

  return {
    order,
    check,
    write: (work) =>
      db.transaction(async (tx) => {
        await check(tx);
        return work(tx);
      }),
    async release(next) {
      clearInterval(renewal);
      await queue.release(db, claim, next);
    },
  };
}

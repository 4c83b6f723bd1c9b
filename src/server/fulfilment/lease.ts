import type { Db, Queryable } from '../db/db.ts';
import type { OrderRow } from '../orders/store.ts';

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
  /** Gives the order up, with its schedule for the next try; nothing when the claim was lost. */
  release(schedule: string, values?: unknown[]): Promise<void>;
}

export async function claimOrder(db: Db, id: string, leaseMs: number): Promise<Lease | undefined> {
  const [order] = await db.query<OrderRow>(
    `UPDATE orders SET locked_until = now() + $2 * interval '1 millisecond', lease = lease + 1
     WHERE id = $1 AND (locked_until IS NULL OR locked_until < now()) RETURNING *`,
    [id, leaseMs],
  );
  if (!order) return undefined;
  const lease = Number(order.lease);
  let lost = false;

  // Renewed at a third of its length: two renewals may fail (a slow database) before it lapses.
  const renewal = setInterval(() => {
    db.query(`UPDATE orders SET locked_until = now() + $3 * interval '1 millisecond' WHERE id = $1 AND lease = $2 RETURNING id`, [id, lease, leaseMs])
      .then((rows) => {
        if (rows.length === 0) lost = true;
      })
      .catch(() => undefined);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  renewal.unref();

  async function check(tx: Queryable = db): Promise<void> {
    if (lost) throw new LeaseLost(id);
    const [row] = await tx.query<{ lease: string | number }>(`SELECT lease FROM orders WHERE id = $1${tx === db ? '' : ' FOR UPDATE'}`, [id]);
    if (!row || Number(row.lease) !== lease) {
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
    async release(schedule, values = []) {
      clearInterval(renewal);
      await db.query(`UPDATE orders SET locked_until = NULL, ${schedule} WHERE id = $1 AND lease = $2`, [id, lease, ...values]);
    },
  };
}

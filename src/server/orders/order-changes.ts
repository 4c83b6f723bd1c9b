import { ORDER_WAITS_PER_USER } from '../../config/constants.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { OrderWait, OrderWaits } from './order-changes.types.ts';
import type { OrderRow } from './store.types.ts';

/** The channel on which order changes are announced; the payload is the order's id. */
const ORDER_CHANGES = 'order_changes';

/**
 * An expression for the RETURNING of a write that changes an order (its state, its eSIM): the
 * long-polls of that order on every API instance wake once the writing transaction commits, and
 * not at all when it rolls back. `idColumn`: the order's id in the written row.
 */
export const notifyOrderChange = (idColumn: string) => `pg_notify('${ORDER_CHANGES}', ${idColumn}::text)`;

/** A waiting long-poll re-reads its order this often all the same: a lost notification costs latency, never the answer. */
export const ORDER_WAIT_RECHECK_MS = 5_000;

/**
 * The long-polls of one API instance (issue 29): one LISTEN on the database (made by the first
 * wait, kept while the database is open) hands each announced change to the waits on that order,
 * so a waiting page costs no reads; at most `perUser` waits of one user at once, counted per
 * instance (several instances each allow as many).
 */
export function createOrderWaits(db: Pick<Db, 'listen'>, perUser = ORDER_WAITS_PER_USER): OrderWaits {
  /** The wake of each wait, by order id. */
  const byOrder = new Map<string, Set<() => void>>();
  /** When each of a user's waits ends at the latest, by uid. */
  const byUser = new Map<string, { until: number }[]>();
  let listening: Promise<unknown> | undefined;
  let ending = false;

  const wakeAll = () => byOrder.forEach((wakes) => wakes.forEach((wake) => wake()));
  const listen = () =>
    (listening ??= db
      .listen(ORDER_CHANGES, (orderId) => byOrder.get(orderId)?.forEach((wake) => wake()), wakeAll)
      .catch((error: unknown) => {
        // The waits re-read meanwhile; the next one tries again.
        console.error('orders: not listening to order changes:', error instanceof Error ? error.message : error);
        listening = undefined;
      }));

  return {
    /**
     * A wait of `uid` on order `orderId` for at most `waitMs`, listening from now on: a change
     * committed after this answers, even before the caller has read the order, wakes it. When the
     * user holds `perUser` waits already: the seconds until the first of them ends.
     */
    async open(uid: string, orderId: string, waitMs: number): Promise<OrderWait | { retryAfterSeconds: number }> {
      const now = Date.now();
      const held = byUser.get(uid) ?? [];
      if (held.length >= perUser) {
        return { retryAfterSeconds: Math.max(1, Math.ceil((Math.min(...held.map((w) => w.until)) - now) / 1000)) };
      }
      const slot = { until: now + waitMs };
      byUser.set(uid, [...held, slot]);

      let changed = false;
      let woken: (() => void) | undefined;
      const wake = () => {
        changed = true;
        woken?.();
      };
      const wakes = byOrder.get(orderId) ?? new Set();
      wakes.add(wake);
      byOrder.set(orderId, wakes);

      await listen();
      return {
        get ended() {
          return ending;
        },
        next: (ms, signal) =>
          new Promise<void>((done) => {
            const end = () => {
              clearTimeout(timer);
              signal.removeEventListener('abort', end);
              woken = undefined;
              // What changed until now, the caller's read after this sees.
              changed = false;
              done();
            };
            const timer = setTimeout(end, ms);
            signal.addEventListener('abort', end, { once: true });
            woken = end;
            if (changed || ending || signal.aborted) end();
          }),
        close() {
          wakes.delete(wake);
          if (wakes.size === 0 && byOrder.get(orderId) === wakes) byOrder.delete(orderId);
          const left = (byUser.get(uid) ?? []).filter((w) => w !== slot);
          if (left.length > 0) byUser.set(uid, left);
          else byUser.delete(uid);
        },
      };
    },
    endAll() {
      ending = true;
      wakeAll();
    },
  };
}

/** States in which the order's page waits for the webhooks or the delivery. */
const PENDING_STATES: ReadonlySet<string> = new Set(['pending_payment', 'paid', 'provisioning']);

type Watched = Pick<OrderRow, 'id' | 'state' | 'top_up_of'>;

/** Whether the order's page is waiting for something: its payment to be confirmed, or its eSIM (or top-up) to be delivered. */
export async function awaitsChange(db: Queryable, row: Watched): Promise<boolean> {
  if (PENDING_STATES.has(row.state)) return true;
  if (row.state !== 'delivered') return false;
  const [found] = await db.query<{ esim: boolean }>('SELECT EXISTS (SELECT 1 FROM esims WHERE order_id = $1) AS esim', [
    row.top_up_of ?? row.id,
  ]);
  return !found?.esim;
}

/**
 * The long-poll's wait (issue 29): until the order's state differs from the row's or its eSIM
 * appears, `until` passes or `signal` aborts. Woken by the change itself (announced by every API
 * instance's writes through NOTIFY), then one primary-key read says whether it is a change the page
 * waits for; the same read every ORDER_WAIT_RECHECK_MS in case a notification was lost.
 */
export async function untilChanged(db: Queryable, row: Watched, wait: OrderWait, until: number, signal: AbortSignal): Promise<void> {
  const esimOrder = row.top_up_of ?? row.id;
  for (;;) {
    await wait.next(Math.min(ORDER_WAIT_RECHECK_MS, until - Date.now()), signal);
    if (signal.aborted || wait.ended || Date.now() >= until) return;
    const [now] = await db.query<{ state: string; esim: boolean }>(
      'SELECT state, EXISTS (SELECT 1 FROM esims WHERE order_id = $2) AS esim FROM orders WHERE id = $1',
      [row.id, esimOrder],
    );
    if (!now || now.state !== row.state || (now.state === 'delivered' && now.esim)) return;
  }
}

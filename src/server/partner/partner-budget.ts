import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.types.ts';
import { forgetWaiters, takeTurn, type QueuedRequest, type TurnSettings } from './partner-budget-turn.ts';
import type {
  PartnerPriority,
  PartnerBudgetRelease,
  PartnerBudget,
  PartnerBudgetRate,
  PartnerBudgetLimit,
  PartnerBudgetUse,
} from './partner-budget.types.ts';

/** Lower goes first; stored in partner_budget_slots and partner_budget_waiters. */
const RANK: Readonly<Record<PartnerPriority, number>> = { allocated: 0, delivery: 1, refund: 2, usage: 3, operator: 4 };

/** The slots a priority leaves free for those above it (rule 1 below): deliveries none. */
const KEEPS_FREE: Readonly<Record<PartnerPriority, number>> = { allocated: 0, delivery: 0, refund: 1, usage: 2, operator: 3 };

/**
 * eSIM Access: 8 requests a second per account (an account was suspended for more). A slot is
 * held until a whole window after its answer came back, and a request reaches the partner before
 * its answer leaves it, so the window alone already keeps requests a second apart at the partner;
 * the margin only covers the database's and the partner's clocks ticking at different rates.
 * 25 ms, not more: every slot's turn is answer time + window + margin, so a larger margin is
 * idle capacity on a sale day (issue 31: 100 ms left 13 % of the 8 a second unused).
 */
export const ESIM_ACCESS_BUDGET: PartnerBudgetLimit = { requests: 8, windowMs: 1000, marginMs: 25 };

export interface PostgresPartnerBudgetOptions {
  /** The partner account whose budget this is (every instance must name it alike). */
  account: string;
  limit?: PartnerBudgetLimit;
  /**
   * How long a request under way may hold its slot before it is freed anyway (its process died
   * before it could release it). Longer than the adapter's time-out, or a slow request that is still
   * running would stop counting.
   */
  leaseMs?: number;
  /** The wait between two looks at the table while requests wait and when a slot frees is not known yet. */
  pollMs?: number;
  /** A waiting instance that has not looked for this long has died: its waiters no longer count. */
  staleMs?: number;
}

interface Waiter extends QueuedRequest {
  resolve(release: PartnerBudgetRelease): void;
  reject(error: unknown): void;
}

/**
 * The budget in PostgreSQL, shared by every API instance on the database (PGlite or a server).
 *
 * Counting: every request holds a row in partner_budget_slots from before it is sent until one
 * window (plus a margin) after its answer came back, by the database's clock; at most `requests`
 * rows are held at once. Any two requests sharing a slot's place are then a full window apart at
 * the partner, whose clock counts arrivals (a request arrives before its answer comes back), so no
 * window of the partner's ever sees more than `requests`. A request under way holds its row until
 * it ends, or its lease runs out if its process died.
 *
 * Priorities, the rule: a request of rank r (0 allocated, 1 delivery, 2 refund/top-up, 3 usage,
 * 4 operator) takes a slot only when
 *   1. fewer than `requests - KEEPS_FREE` slots are held (deliveries may use all 8, refunds and top-ups 7,
 *      usage reads 6, operator reads 5: a flood of operator reads always leaves 3 slots, of usage
 *      reads 2, of refunds 1, for deliveries);
 *   2. no other instance has a more urgent request waiting (partner_budget_waiters);
 *   3. no more urgent request, nor an earlier one of its rank, waits in this instance.
 * So a lower priority never takes a slot a higher one is waiting for, on any instance.
 *
 * Each instance queues its own waiters in memory and one loop per instance takes turns for them in
 * one short transaction under an advisory lock per account; while some still wait it registers its
 * most urgent one and looks again when the soonest slot frees (after `pollMs` when that is not
 * known: only requests under way hold slots, or another instance's request goes first).
 */
export function postgresPartnerBudget(
  db: Db,
  options: PostgresPartnerBudgetOptions,
): PartnerBudget & PartnerBudgetRate & { use(): Promise<PartnerBudgetUse> } {
  const limit = options.limit ?? ESIM_ACCESS_BUDGET;
  const holdMs = limit.windowMs + limit.marginMs;
  const settings: TurnSettings = {
    account: options.account,
    instance: randomUUID(),
    requests: limit.requests,
    leaseMs: options.leaseMs ?? 120_000,
    pollMs: options.pollMs ?? 100,
    staleMs: options.staleMs ?? 2_000,
  };
  /** Waiting in this instance: most urgent first, first come first within a rank. */
  const waiting: Waiter[] = [];
  let running = false;
  let again = false;
  let interrupt: (() => void) | undefined;

  /** Looks at the table now: a new waiter, or a release that may tell a sooner free slot. */
  function kick() {
    again = true;
    interrupt?.();
    if (!running) {
      running = true;
      void loop();
    }
  }

  async function loop() {
    try {
      while (waiting.length > 0) {
        again = false;
        let waitMs: number;
        try {
          waitMs = await turn();
        } catch (error) {
          // The database failed: nothing was granted; these requests fail, unsent.
          for (const waiter of waiting.splice(0)) waiter.reject(error);
          return;
        }
        if (waiting.length === 0 || again) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          interrupt = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        interrupt = undefined;
      }
    } finally {
      running = false;
    }
  }

  /** One transaction: hands out the slots that may go now; answers how long to wait before looking again. */
  async function turn(): Promise<number> {
    // Waiters queued while this runs are left for the next turn (kick() asked for one).
    const queue = [...waiting];
    const { granted, waitMs } = await db.transaction((tx) => takeTurn(tx, settings, queue, waiting));
    for (const { waiter, slot } of granted) {
      const at = waiting.indexOf(waiter);
      if (at === -1) {
        // Its caller gave up while this turn ran: nothing was sent, so the slot is not held.
        await db.query('DELETE FROM partner_budget_slots WHERE id = $1', [slot]).catch(() => undefined);
        continue;
      }
      waiting.splice(at, 1);
      waiter.resolve(releaser(slot));
    }
    return waitMs;
  }

  function releaser(slot: number): PartnerBudgetRelease {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      try {
        await db.query(
          `UPDATE partner_budget_slots SET ended_at = clock_timestamp(), held_until = clock_timestamp() + $2 * interval '1 millisecond'
           WHERE id = $1`,
          [slot, holdMs],
        );
      } catch (error) {
        // The slot stays held until its lease runs out: fewer requests for a while, never more.
        console.error(`Partner budget: slot ${slot} not released (${error instanceof Error ? error.message : String(error)})`);
      }
      // Our waiters may now know when the soonest slot frees.
      if (waiting.length > 0) kick();
    };
  }

  return {
    secondsFor: (requests) => (requests * limit.windowMs) / 1000 / limit.requests,
    async use() {
      const [row] = await db.query<{ held: number; waiting: number }>(
        `SELECT (SELECT count(*) FROM partner_budget_slots WHERE account = $1 AND held_until > clock_timestamp())::int AS held,
                (SELECT count(*) FROM partner_budget_waiters WHERE account = $1
                   AND seen_at > clock_timestamp() - $2 * interval '1 millisecond')::int AS waiting`,
        [settings.account, settings.staleMs],
      );
      return { held: Math.min(row!.held, limit.requests), requests: limit.requests, waitingInstances: row!.waiting };
    },
    acquire(priority, signal) {
      const rank = RANK[priority];
      return new Promise<PartnerBudgetRelease>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const waiter = { rank, keepsFree: KEEPS_FREE[priority], resolve, reject };
        const at = waiting.findIndex((w) => w.rank > rank);
        if (at === -1) waiting.push(waiter);
        else waiting.splice(at, 0, waiter);
        signal?.addEventListener(
          'abort',
          () => {
            const queued = waiting.indexOf(waiter);
            if (queued === -1) return;
            waiting.splice(queued, 1);
            reject(signal.reason);
            // Another instance may be holding back for this one's rank: register what still waits, or nothing.
            if (waiting.length > 0) kick();
            else void forgetWaiters(db, settings).catch(() => undefined);
          },
          { once: true },
        );
        kick();
      });
    },
  };
}

import type { Queryable } from '../db/db.types.ts';

/** Advisory lock class of the budget (pg_advisory_xact_lock(class, hashtext(account))); any fixed number. */
const BUDGET_LOCK = 1_404_202_620;

/** What a turn needs to know of a request waiting in this instance. */
export interface QueuedRequest {
  /** RANK of its priority (partner-budget.ts): lower goes first. */
  rank: number;
  /** KEEPS_FREE of its priority. */
  keepsFree: number;
}

/** One instance's budget of one partner account, as a turn reads and writes it. */
export interface TurnSettings {
  account: string;
  /** This instance's id in partner_budget_waiters. */
  instance: string;
  /** At most this many slots held at once (the partner's requests per window). */
  requests: number;
  leaseMs: number;
  pollMs: number;
  staleMs: number;
}

/** This instance no longer has a request waiting: other instances stop holding back for it. */
export async function forgetWaiters(db: Queryable, { account, instance }: Pick<TurnSettings, 'account' | 'instance'>): Promise<void> {
  await db.query('DELETE FROM partner_budget_waiters WHERE account = $1 AND instance = $2', [account, instance]);
}

/**
 * One turn in the budget's transaction (postgresPartnerBudget, its rules 1 to 3): frees the slots
 * whose time ran out and forgets the waiters of instances that died, then hands out a slot (held
 * for the lease) to each request of `queue`, in its order, that may go now; registers this
 * instance's most urgent request still `waiting` (or none). Answers the slots granted and how long
 * to wait before looking again.
 */
export async function takeTurn<Waiter extends QueuedRequest>(
  tx: Queryable,
  settings: TurnSettings,
  queue: readonly Waiter[],
  waiting: readonly Waiter[],
): Promise<{ granted: { waiter: Waiter; slot: number }[]; waitMs: number }> {
  const { account, instance } = settings;
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BUDGET_LOCK, account]);
  await tx.query('DELETE FROM partner_budget_slots WHERE account = $1 AND held_until <= clock_timestamp()', [account]);
  await tx.query(`DELETE FROM partner_budget_waiters WHERE account = $1 AND seen_at <= clock_timestamp() - $2 * interval '1 millisecond'`, [
    account,
    settings.staleMs,
  ]);
  const [state] = await tx.query<{ held: number; soonest_ms: number | null; other_rank: number | null }>(
    `SELECT (SELECT count(*) FROM partner_budget_slots WHERE account = $1) AS held,
            (SELECT (extract(epoch FROM min(held_until) - clock_timestamp()) * 1000)::float8
               FROM partner_budget_slots WHERE account = $1 AND ended_at IS NOT NULL) AS soonest_ms,
            (SELECT min(priority) FROM partner_budget_waiters WHERE account = $1 AND instance <> $2) AS other_rank`,
    [account, instance],
  );
  let held = state!.held;
  const otherRank = state!.other_rank;
  // The queue is in order: the first that may not go stops everyone after it (rule 3).
  const granted: { waiter: Waiter; slot: number }[] = [];
  for (const waiter of queue) {
    if (held >= Math.max(1, settings.requests - waiter.keepsFree) || (otherRank !== null && otherRank < waiter.rank)) break;
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO partner_budget_slots (account, priority, held_until)
       VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond') RETURNING id`,
      [account, waiter.rank, settings.leaseMs],
    );
    granted.push({ waiter, slot: row!.id });
    held++;
  }
  // The most urgent request left waiting here, including any queued while this ran.
  const next = waiting.find((waiter) => !granted.some((g) => g.waiter === waiter));
  if (next) {
    await tx.query(
      `INSERT INTO partner_budget_waiters (account, instance, priority, seen_at) VALUES ($1, $2, $3, clock_timestamp())
       ON CONFLICT (account, instance) DO UPDATE SET priority = excluded.priority, seen_at = excluded.seen_at`,
      [account, instance, next.rank],
    );
  } else {
    await forgetWaiters(tx, settings);
  }
  // Held back by another instance's waiter, or only requests under way hold slots: look again
  // soon. Else when the soonest released slot frees (a release from now on frees later).
  const soonest = state!.soonest_ms;
  const heldBack = next !== undefined && otherRank !== null && otherRank < next.rank;
  const waitMs = heldBack || soonest === null ? settings.pollMs : Math.max(1, Math.ceil(soonest));
  return { granted, waitMs };
}

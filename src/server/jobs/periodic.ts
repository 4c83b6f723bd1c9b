import type { Db } from '../db/db.types.ts';
import { claimIfDue, release } from './queue.ts';

/** A periodic job: one of the reconcile job's sweeps, run when its time has come (every `everyMs`). */
export interface Sweep {
  name: string;
  /** How long after a run it is due again (0: at every tick of the reconcile job). */
  everyMs: number;
  /** Answers how many things it handled; a throw is a failed try, retried after `everyMs` (at least a second). */
  run: () => Promise<number>;
}

/** A sweep never gives up (it would stop for good): its failures count, and the back office shows its error. */
const SWEEP_MAX_ATTEMPTS = 2_147_483_647;
const SWEEP_LEASE_MS = 5 * 60_000;

/**
 * Runs the sweeps that are due, in the order given, each a job of its own ('sweep:<name>', queued
 * the first time): claimed with SKIP LOCKED, so two instances never run one sweep at once. Answers
 * how many things they handled.
 */
export async function runDueSweeps(db: Db, sweeps: readonly Sweep[], leaseMs = SWEEP_LEASE_MS): Promise<number> {
  let handled = 0;
  for (const sweep of sweeps) {
    const key = `sweep:${sweep.name}`;
    let job = await claimIfDue(db, key, leaseMs);
    if (!job) {
      await db.query(`INSERT INTO jobs (kind, key, max_attempts) VALUES ('sweep', $1, $2) ON CONFLICT (key) DO NOTHING`, [
        key,
        SWEEP_MAX_ATTEMPTS,
      ]);
      job = await claimIfDue(db, key, leaseMs);
    }
    if (!job) continue;
    const claim = { id: job.id, lease: job.lease, revision: job.revision };
    try {
      handled += await sweep.run();
      await release(db, claim, { kind: 'periodic', inMs: sweep.everyMs });
    } catch (error) {
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      console.error(`reconcile: ${sweep.name} failed`, text);
      await release(db, claim, { kind: 'retry', error: text, delaysMs: [Math.max(1_000, sweep.everyMs)] });
    }
  }
  return handled;
}

import type { DataKind } from '../../catalogue/schema.ts';
import type { EsimKey, EsimRow } from '../esims/store.types.ts';
import * as jobs from '../jobs/queue.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { ClaimLost, createChargeJob, fencedWrites, type ChargeJobDeps } from './charge-job.ts';
import { crossingOf } from './crossing.ts';
import { autoTopUpJobKey, markCrossing, settingOf, unreadWatched } from './store.ts';

/** The automatic top-ups (issue 49): what the alerts, the reconcile job and the routes call. */
export interface AutoTopUps {
  /** The eSIM's usage or state was just stored: when it crossed 10 % left and its top-ups are on, one top-up is due. Never rejects. */
  crossed(order: OrderRow, esim: EsimRow, dataKind: DataKind['kind']): Promise<void>;
  /** The reconcile job's part: the automatic top-ups that are due (a restart's, a retry's); answers how many ran. */
  runDue(limit?: number): Promise<number>;
  /** The reconcile job's part: eSIMs they are on for whose usage nobody read for `maxAgeMs` (store.unreadWatched), at most 20. */
  unreadWatched(maxAgeMs: number): Promise<EsimKey[]>;
  /** Waits for the runs under way (a server stopping, a test). */
  settled(): Promise<void>;
}

const LEASE_MS = 2 * 60_000;
/** A charge that could not be asked (Stripe or the partner unreachable) is asked again after these waits. */
const RETRY_DELAYS_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000];

/** How long a run's claim lasts (its instance may die), and the waits before a charge that could not be asked is asked again. */
export interface AutoTopUpTiming {
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
}

export function createAutoTopUps(deps: ChargeJobDeps & AutoTopUpTiming): AutoTopUps {
  const { db } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  const job = createChargeJob(deps);
  const running = new Set<Promise<void>>();

  async function runClaimed(claimed: jobs.JobRow): Promise<void> {
    const claim = { id: claimed.id, lease: claimed.lease, revision: claimed.revision };
    let next: jobs.NextRun;
    try {
      next = await job.step(claimed.key, claimed.attempts, fencedWrites(db, claimed));
    } catch (error) {
      if (error instanceof ClaimLost) return;
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      console.error('auto top-ups: will try again', claimed.key, text);
      next = { kind: 'retry', error: text, delaysMs: deps.retryDelaysMs ?? RETRY_DELAYS_MS };
    }
    await jobs.release(db, claim, next);
  }

  function track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) =>
      console.error('auto top-ups: run failed', error instanceof Error ? error.message : error),
    );
    running.add(tracked);
    void tracked.finally(() => running.delete(tracked));
  }

  return {
    async crossed(order, esim, dataKind) {
      const crossing = crossingOf(order, esim, dataKind);
      if (!crossing) return;
      try {
        if (!(await settingOf(db, order.id))?.enabled) return;
        const key = autoTopUpJobKey(order.id, crossing);
        if (!(await db.transaction((tx) => markCrossing(tx, order.id, crossing)))) return;
        // Charged now; the job stays queued for the reconcile job if this instance stops first.
        track(
          (async () => {
            const claimed = await jobs.claimByKey(db, key, leaseMs);
            if (claimed) await runClaimed(claimed);
          })(),
        );
      } catch (error) {
        console.error('auto top-ups: crossing not recorded', order.id, error instanceof Error ? error.message : error);
      }
    },

    async runDue(limit = 20) {
      let count = 0;
      for (let claimed = await jobs.claimDue(db, ['auto_top_up'], leaseMs); claimed;) {
        count++;
        await runClaimed(claimed);
        claimed = count < limit ? await jobs.claimDue(db, ['auto_top_up'], leaseMs) : undefined;
      }
      return count;
    },

    unreadWatched: (maxAgeMs) => unreadWatched(db, maxAgeMs, 20),

    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}

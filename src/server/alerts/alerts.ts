import {
  ALERT_READY_AFTER_MS,
  ALERT_READY_WITHIN_MS,
  ALERT_RETRY_WITHIN_MS,
  ALERT_USAGE_BATCH_MS,
  ALERT_VALIDITY_LEFT_MS,
  ESIM_USAGE_MAX_AGE_MS,
  TRIP_CHECK_AFTER_START_MS,
  TRIP_CHECK_WITHIN_MS,
} from '../../config/constants.ts';
import type { EsimKey } from '../esims/store.types.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import { createAlertRecords } from './alert-records.ts';
import { createAlertSender, errorText, type AlertSenderOptions } from './alert-sender.ts';
import type { Alerts } from './alerts.types.ts';
import { unseenDelivery } from './thresholds.ts';

/** What the sender needs, and the partner whose usage reads check the DATA_USAGE hints. */
export interface AlertsOptions extends AlertSenderOptions {
  partners: Partners;
  /** How long after delivery an unseen eSIM gets the 'eSIM ready' push (tests make it short). */
  readyAfterMs?: number;
  /** How long DATA_USAGE hints gather before one batched usage read (tests make it short). */
  usageBatchMs?: number;
}

/** After a usage read the partner did not answer, the hints are read again this much later. */
const USAGE_RETRY_MS = 30_000;

/**
 * The alerts engine (issue 23): which alerts are due (thresholds.ts), each claimed once in
 * esim_alerts before anything is sent (alert-records.ts), then sent by e-mail and Web Push as the
 * buyer chose; a send that fails stays pending for the reconcile job's `sweep`. The partner's
 * DATA_USAGE notifications are only hints: they gather for a moment and one batched usage read
 * says the real figures. Nothing ever goes about an order that is being or was refunded, or to an
 * account that was deleted (its orders are detached: no uid, no e-mail).
 */
export function createAlerts(options: AlertsOptions): Alerts {
  const { esims, partners } = options;
  const records = createAlertRecords(options.db);
  const { checkOne, ready, retry } = createAlertSender(options, records);
  const readyAfterMs = options.readyAfterMs ?? ALERT_READY_AFTER_MS;
  const usageBatchMs = options.usageBatchMs ?? ALERT_USAGE_BATCH_MS;

  /** Work under way, for `settle`; each never rejects (it logs). */
  const work = new Set<Promise<void>>();
  function track(task: Promise<void>, what: string): Promise<void> {
    const tracked = task.catch((error: unknown) => console.error('alerts:', what, errorText(error)));
    work.add(tracked);
    void tracked.finally(() => work.delete(tracked));
    return tracked;
  }
  /** The hinted eSIMs' ids by their partner's id. */
  const hinted = new Map<string, Set<string>>();
  let batchTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const readyTimers = new Map<string, NodeJS.Timeout>();

  /**
   * The hints gathered so far: one usage read (the adapter asks 10 eSIMs a call, within the
   * partner's budget), stored, then checked. When the partner cannot answer they wait for the next
   * read (the partner does not repeat a threshold's notification).
   */
  async function readHinted(): Promise<void> {
    const batches = [...hinted].map(([partner, tranNos]) => ({ partner, batch: [...tranNos] }));
    hinted.clear();
    await readBatches(batches);
  }

  /** Each partner's eSIMs read (the adapter batches them), stored, then checked; what a partner did not answer is hinted again. */
  async function readBatches(batches: { partner: string; batch: string[] }[]): Promise<void> {
    let failed: unknown;
    for (const { partner, batch } of batches) {
      let usages;
      try {
        usages = await partners.of(partner).usage(batch);
      } catch (error) {
        for (const esim_tran_no of batch) usageHint({ partner, esim_tran_no }, USAGE_RETRY_MS);
        failed = error;
        continue;
      }
      for (const usage of usages) await esims.recordUsage(partner, usage);
      await check(batch.map((esim_tran_no) => ({ partner, esim_tran_no })));
    }
    if (failed) throw failed;
  }

  function schedule(inMs: number): void {
    if (stopped || batchTimer) return;
    batchTimer = setTimeout(() => {
      batchTimer = undefined;
      void track(readHinted(), 'usage read failed');
    }, inMs).unref();
  }

  /** A DATA_USAGE hint, or an eSIM whose usage the sweep must know: read in the next batch, then checked. */
  function usageHint(esim: EsimKey, inMs = usageBatchMs): void {
    const ofPartner = hinted.get(esim.partner) ?? new Set<string>();
    hinted.set(esim.partner, ofPartner.add(esim.esim_tran_no));
    schedule(inMs);
  }

  /** Usage or state of these eSIMs was just stored: sends what is due. Never rejects; the work is tracked for `settle`. */
  function check(keys: readonly EsimKey[]): Promise<void> {
    const now = new Date();
    const unique = new Map(keys.map(({ partner, esim_tran_no }) => [`${partner} ${esim_tran_no}`, { partner, esim_tran_no }]));
    return track(
      (async () => {
        for (const key of unique.values()) await checkOne(key, now);
      })(),
      'check failed',
    );
  }

  return {
    usageHint,

    readUsage(keys) {
      const byPartner = Map.groupBy(keys, (key) => key.partner);
      return readBatches([...byPartner].map(([partner, ofPartner]) => ({ partner, batch: ofPartner.map((key) => key.esim_tran_no) })));
    },

    check,

    /** An eSIM order was delivered and its e-mail sent: 'eSIM ready' later if the buyer has not seen it. */
    delivered(orderId: string): void {
      if (stopped) return;
      clearTimeout(readyTimers.get(orderId));
      const timer = setTimeout(() => {
        readyTimers.delete(orderId);
        void track(ready(orderId), 'ready alert failed');
      }, readyAfterMs).unref();
      readyTimers.set(orderId, timer);
    },

    /** The buyer was shown these orders' eSIMs (the payment page's answer, My eSIMs): those delivered and not yet seen are marked. */
    seen(shown: readonly Pick<OrderRow, 'id' | 'kind' | 'state'>[]): Promise<void> {
      return records.markSeen(shown.filter((order) => unseenDelivery(order)).map((order) => order.id));
    },

    /**
     * The reconcile job's part: ready alerts due whose timer a restart lost, '1 day left' of eSIMs
     * in their last day that no notification raised (from the stored end: no partner call), eSIMs
     * still offline the day after their trip began (one usage read each, then the checklist), and
     * failed sends whose wait is over (younger than a day). Answers how many it found; they are
     * sent after it answers (tracked for `settle`), so a push service or mail relay that is slow to
     * answer never holds up the job's deliveries, refunds and checkout sync.
     */
    async sweep(): Promise<number> {
      const lost = (await records.readyDue(readyAfterMs, ALERT_READY_WITHIN_MS)).filter((id) => !readyTimers.has(id));
      const ending = await records.validityDue(ALERT_VALIDITY_LEFT_MS);
      const retries = await records.takeRetries(ALERT_RETRY_WITHIN_MS);
      // Trips that began with the eSIM still offline: their usage is read (batched, like a hint), then checked.
      const offline = await records.tripCheckDue(TRIP_CHECK_AFTER_START_MS, TRIP_CHECK_WITHIN_MS, ESIM_USAGE_MAX_AGE_MS);
      for (const esim of offline) usageHint(esim);
      for (const id of lost) void track(ready(id), 'ready alert failed');
      void check(ending);
      for (const alert of retries) void track(retry(alert), 'retry failed');
      return lost.length + ending.length + retries.length + offline.length;
    },

    /** Waits for the work under way, reading any gathered hints now (a clean stop; tests). */
    async settle(): Promise<void> {
      if (batchTimer) {
        clearTimeout(batchTimer);
        batchTimer = undefined;
        void track(readHinted(), 'usage read failed');
      }
      while (work.size > 0) await Promise.all(work);
    },

    /** Stops the ready timers (the reconcile job sends them after a restart), then settles. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of readyTimers.values()) clearTimeout(timer);
      readyTimers.clear();
      await this.settle();
    },
  };
}

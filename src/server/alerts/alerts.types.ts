import type { EsimKey } from '../esims/store.types.ts';
import type { EsimAlerts } from '../esims/services.types.ts';

/** The alerts engine (alerts.ts): data, validity and 'eSIM ready' alerts by e-mail and Web Push, each sent once. */
export interface Alerts extends EsimAlerts {
  /** A DATA_USAGE hint: the eSIM's real usage is read (batched with the others that come meanwhile), then checked. */
  usageHint(esim: EsimKey): void;
  /** These eSIMs' usage read now (batched per partner), stored and checked; rejects when a partner did not answer. */
  readUsage(esims: readonly EsimKey[]): Promise<void>;
  /** An eSIM order was delivered and its e-mail sent: 'eSIM ready' later if the buyer has not seen it. */
  delivered(orderId: string): void;
  /** The reconcile job's part: lost ready alerts, '1 day left' due, failed sends due; answers how many it found. */
  sweep(): Promise<number>;
  /** Waits for the work under way, reading any gathered hints now (a clean stop; tests). */
  settle(): Promise<void>;
  /** Stops the ready timers (the reconcile job sends them after a restart), then settles. */
  stop(): Promise<void>;
}

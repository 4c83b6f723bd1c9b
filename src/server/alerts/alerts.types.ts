import type { OrderRow } from '../orders/store.types.ts';

/** The alerts engine (alerts.ts): data, validity and 'eSIM ready' alerts by e-mail and Web Push, each sent once. */
export interface Alerts {
  /** A DATA_USAGE hint: the eSIM's real usage is read (batched with the others that come meanwhile), then checked. */
  usageHint(esimTranNo: string): void;
  /** Usage or state of these eSIMs was just stored: sends what is due. Never rejects; tracked for `settle`. */
  check(esimTranNos: readonly string[]): Promise<void>;
  /** An eSIM order was delivered and its e-mail sent: 'eSIM ready' later if the buyer has not seen it. */
  delivered(orderId: string): void;
  /** The buyer was shown these orders' eSIMs: those delivered and not yet seen are marked. */
  seen(shown: readonly Pick<OrderRow, 'id' | 'kind' | 'state'>[]): Promise<void>;
  /** The reconcile job's part: lost ready alerts, '1 day left' due, failed sends due; answers how many it found. */
  sweep(): Promise<number>;
  /** Waits for the work under way, reading any gathered hints now (a clean stop; tests). */
  settle(): Promise<void>;
  /** Stops the ready timers (the reconcile job sends them after a restart), then settles. */
  stop(): Promise<void>;
}

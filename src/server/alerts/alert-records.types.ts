import type { EsimKey } from '../esims/store.types.ts';
import type { AlertChannel, AlertKind } from '../../contract/shop-api.ts';
import type { AlertFacts } from './messages.ts';

/** One alert: at most once per eSIM (its partner and id), kind and round (migrations 0011 and 0050, esim_alerts). */
export interface AlertKey {
  partner: string;
  esimTranNo: string;
  kind: AlertKind;
  round: string;
}

/**
 * A channel's state: pending until sent (a failed send stays pending), skipped (turned off, no
 * address, no device), or given up (still failing after its last attempt).
 */
export type ChannelState = 'pending' | 'sent' | 'skipped' | 'given_up';

export interface AlertRecord extends AlertKey {
  orderId: string;
  facts: AlertFacts;
  states: Record<AlertChannel, ChannelState>;
}

/** The alerts' SQL (alert-records.ts): the once-only claim, each channel's state, what the reconcile job picks up. */
export interface AlertRecords {
  /** Claims the alert before anything is sent: false when it was claimed before (sent, skipped or under way). */
  claim(alert: AlertRecord): Promise<boolean>;
  /** A channel sent, or skipped after all (turned off meanwhile, no device left, the order refunded). */
  settle(key: AlertKey, channel: AlertChannel, state: 'sent' | 'skipped'): Promise<void>;
  /** A send failed: its pending channels wait, longer each time, until given up after `maxAttempts`; answers whether it was. */
  failed(key: AlertKey, error: string, backoff: { firstWaitMs: number; maxAttempts: number }): Promise<boolean>;
  /** Pending alerts younger than `withinMs` and due, leased to this caller (two instances never send one twice at once). */
  takeRetries(withinMs: number, limit?: number): Promise<AlertRecord[]>;
  /** Delivered orders whose 'ready' push is due and was never claimed (its timer lost with a restart). */
  readyDue(afterMs: number, withinMs: number, limit?: number): Promise<string[]>;
  /** Installed eSIMs in their last `leftMs` whose '1 day left' for that end was never claimed. */
  validityDue(leftMs: number, limit?: number): Promise<EsimKey[]>;
  /** eSIMs still offline in their trip's check window, not told and not read within `freshMs`. */
  tripCheckDue(afterStartMs: number, withinMs: number, freshMs: number, limit?: number): Promise<EsimKey[]>;
  /** The buyer saw these delivered eSIMs: no 'ready' push for them. */
  markSeen(orderIds: readonly string[]): Promise<void>;
  /** When the buyer first saw the order's delivered eSIM; null: not yet. */
  seenAt(orderId: string): Promise<Date | null>;
  /** The day the order's trip starts (YYYY-MM-DD), if the buyer said. */
  tripStartOf(orderId: string): Promise<string | null>;
}

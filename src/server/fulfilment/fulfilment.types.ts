import type { RefundCommand } from '../refunds/refund-command.types.ts';

/** Delivery (fulfilment.ts): every paid order driven to delivered or refunded. */
export interface Fulfilment {
  /** Moves one order as far as it can now; a second call while it runs makes it run once more after. Never rejects. */
  run(id: string): Promise<void>;
  /** The reconcile job's part: runs up to `limit` orders that are due; answers how many. */
  runDue(limit?: number): Promise<number>;
  /** The one refund command (refunds/refund-command.ts), its Stripe part carried by this order's run. */
  requestRefund: RefundCommand['requestRefund'];
  /** Waits for the runs under way (a server stopping, a test). */
  settled(): Promise<void>;
}

/** Delivery (fulfilment.ts): every paid order driven to delivered or refunded. */
export interface Fulfilment {
  /** Moves one order as far as it can now; a second call while it runs makes it run once more after. Never rejects. */
  run(id: string): Promise<void>;
  /** The reconcile job's part: runs up to `limit` orders that are due; answers how many. */
  runDue(limit?: number): Promise<number>;
  /** The buyer's refund of a never-installed eSIM: recorded, then carried out; false when its state allows none. */
  requestRefund(id: string): Promise<boolean>;
  /** Waits for the runs under way (a server stopping, a test). */
  settled(): Promise<void>;
}

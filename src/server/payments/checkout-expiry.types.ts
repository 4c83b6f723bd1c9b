/** Closed orders' payment pages closed at Stripe (checkout-expiry.ts). */
export interface CheckoutExpiry {
  /** Closes these sessions now; never rejects (what fails stays queued for the job). */
  close(sessionIds: readonly string[]): Promise<void>;
  /** The reconcile job's part: every queued session that is due (up to `limit`); answers how many it tried. */
  closeDue(limit?: number): Promise<number>;
}

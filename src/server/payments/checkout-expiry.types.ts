/** When a payment page that could not be closed at Stripe is tried again (CHECKOUT_EXPIRY_RETRY). */
export interface CheckoutExpiryRetry {
  /** The wait after the first failure, the second, …; the last one repeats. */
  delaysMs: readonly number[];
  /** How long a try's claim keeps another instance's job from taking the same page. */
  claimMs: number;
}

/** Closed orders' payment pages closed at Stripe (checkout-expiry.ts). */
export interface CheckoutExpiry {
  /** Closes these sessions now; never rejects (what fails stays queued for the job). */
  close(sessionIds: readonly string[]): Promise<void>;
  /** The reconcile job's part: every queued session that is due (up to `limit`); answers how many it tried. */
  closeDue(limit?: number): Promise<number>;
}

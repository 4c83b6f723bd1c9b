/** One long-poll's wait for its order to change. */
export interface OrderWait {
  /** Resolves when the order was announced changed (since the last call) or may have been, after `ms`, or when `signal` aborts. */
  next(ms: number, signal: AbortSignal): Promise<void>;
  /** Ends the wait and frees the user's slot. */
  close(): void;
  /** Whether the instance is shutting down (OrderWaits.endAll): the long-poll answers now, as when its time is up. */
  readonly ended: boolean;
}

/** The long-polls of one API instance, woken by the order changes announced on the database (order-changes.ts). */
export interface OrderWaits {
  /** A wait of `uid` on order `orderId` for at most `waitMs`, listening from now on; when the user holds too many: the seconds until the first ends. */
  open(uid: string, orderId: string, waitMs: number): Promise<OrderWait | { retryAfterSeconds: number }>;
  /**
   * The instance is shutting down (SIGTERM: Cloud Run allows 10 s): every open wait, and any opened
   * from now on, ends at once, so each long-poll answers as when its time is up and the page asks
   * again, of an instance that stays.
   */
  endAll(): void;
}

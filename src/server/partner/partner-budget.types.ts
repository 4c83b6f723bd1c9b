import type { RateLimit } from '../../lib/rate-limiter.ts';

/**
 * The partner's request budget (DESIGN 7): eSIM Access allows 8 requests a second per account,
 * and that is one budget for the whole shop, however many API instances run.
 *
 * A request takes a turn with `acquire(priority)` before it is sent and gives it back with the
 * answer's release once its answer came back (or it failed). How urgent a call is:
 * - 'allocated': reading the profile of an eSIM the partner has allocated, the last call of a
 *   delivery: before any new order, so in a rush each buyer gets the QR code as early as the
 *   partner's limit allows, in the order they paid, rather than every delivery waiting twice;
 * - 'delivery': ordering an eSIM and reading an order's profiles (a buyer who paid is waiting);
 * - 'refund': cancels (refunds), top-ups and reading one eSIM (a refund or a top-up under way);
 * - 'usage': data-use reads and the catalogue's package list (they can wait);
 * - 'operator': the back office's "read again from the partner" on request (the lowest: an
 *   operator looking at an order never holds up a buyer's delivery, refund or data use).
 */
export type PartnerPriority = 'allocated' | 'delivery' | 'refund' | 'usage' | 'operator';

/** Called once the request's answer came back or it failed; never throws. */
export type PartnerBudgetRelease = () => void | Promise<void>;

export interface PartnerBudget {
  /**
   * Resolves when a request of this priority may be sent. With a `signal`, a request whose caller
   * stopped waiting (a buyer's page gave up in a rush) leaves the queue unsent and rejects with the
   * signal's reason: it never takes a turn that nobody waits for any more.
   */
  acquire(priority: PartnerPriority, signal?: AbortSignal): Promise<PartnerBudgetRelease>;
}

/** How long this many requests take at the budget's rate (issue 48's routing: the deliveries under way, each its requests). */
export interface PartnerBudgetRate {
  secondsFor(requests: number): number;
}

/** How much of a budget in the database is in use now (the back office's dashboard, issue 48 item 7). */
export interface PartnerBudgetUse {
  /** Slots held: requests under way, or answered less than a window ago. */
  held: number;
  /** At most this many at once: the partner's requests a window. */
  requests: number;
  /** API instances with a request waiting for a slot. */
  waitingInstances: number;
}

/** Requests per window, plus a margin (src/lib/rate-limiter.ts). */
export type PartnerBudgetLimit = RateLimit;

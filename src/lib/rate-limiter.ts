export interface RateLimit {
  /** Calls per window. */
  requests: number;
  windowMs: number;
  /** Added to the window: clock ticks and rounding must not let one call too many into the other side's window. */
  marginMs: number;
}

export interface RateLimiter {
  /** Resolves when a call may start; the function it gives is called once the call ended (answered or failed). */
  acquire(): Promise<() => void>;
}

/**
 * One process's limiter, first come first served: at most `requests` calls in any window, counted
 * from each call's END. The other side counts arrivals, and a call arrives somewhere between its
 * start and its end (a first call that opens a connection arrives late), so only spacing from the
 * end holds whatever the network does. Two processes with one each make twice the calls.
 */
export function createRateLimiter(limit: RateLimit): RateLimiter {
  const windowMs = limit.windowMs + limit.marginMs;
  /** The last calls' end times; Infinity while in flight. */
  const slots = new Set<{ end: number }>();
  let wake: (() => void) | undefined;
  let queue = Promise.resolve();
  return {
    acquire() {
      const slot = { end: Infinity };
      const turn = queue.then(async () => {
        for (;;) {
          const now = performance.now();
          for (const s of slots) if (s.end + windowMs <= now) slots.delete(s);
          if (slots.size < limit.requests) break;
          const soonest = Math.min(...[...slots].map((s) => s.end));
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (soonest !== Infinity) setTimeout(resolve, soonest + windowMs - now);
          });
          wake = undefined;
        }
        slots.add(slot);
      });
      queue = turn;
      return turn.then(() => () => {
        slot.end = performance.now();
        wake?.();
      });
    },
  };
}

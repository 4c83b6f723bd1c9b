import { PARTNER_BREAKER } from '../../config/constants.ts';
import { PartnerError } from './partner.ts';
import type { EsimPartner } from './partner.types.ts';

/** A partner's breaker as the back office shows it. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * One partner's circuit breaker on recent failures (issue 48 item 6), in this instance: new orders
 * go elsewhere while it is open (partner-choice.ts), and a delivery not yet sent fails over. Calls
 * already owed to the partner (an eSIM's own top-up, cancel, reads) still go: only it can answer
 * them, and their retries are the jobs'. Not opossum: that library runs the calls (time-outs,
 * fallbacks), which the adapters and jobs already do; only the count is wanted here.
 */
export class PartnerBreaker {
  #failures = 0;
  #openedAt: number | undefined;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A call's outcome: a failure that may mean the partner is down counts; a refusal is an answer. */
  observe(error: unknown): void {
    const down = error instanceof PartnerError && !error.refused && error.kind !== 'busy';
    if (error === undefined || (error instanceof PartnerError && !down)) {
      this.#failures = 0;
      this.#openedAt = undefined;
    } else if (down && ++this.#failures >= PARTNER_BREAKER.failures) {
      this.#openedAt = this.#now();
    }
  }

  get state(): BreakerState {
    if (this.#openedAt === undefined) return 'closed';
    return this.#now() - this.#openedAt < PARTNER_BREAKER.openMs ? 'open' : 'half_open';
  }

  /** Failed calls in a row. */
  get failures(): number {
    return this.#failures;
  }
}

/** The partner with each call it answers (or fails) counted by its breaker. */
export function withBreaker(partner: EsimPartner, breaker: PartnerBreaker): EsimPartner {
  return new Proxy(partner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer: unknown) => {
            breaker.observe(undefined);
            return answer;
          },
          (error: unknown) => {
            breaker.observe(error);
            throw error;
          },
        );
      };
    },
  });
}

import { DELIVERY_IN_FLIGHT_MAX_MS } from '../../config/constants.ts';
import type { EsimPartner } from './partner.types.ts';

/**
 * The deliveries a partner has under way in this instance (issue 48's routing): an order sent,
 * its eSIM not read back ready yet. What spreads a rush by the budget each partner will still
 * spend, not by the one request each delivery has queued now: a delivery at eSIM Go takes six
 * requests, one at eSIM Access two (EsimPartner.requestsPerDelivery). One whose eSIM is never read
 * (refunded, its process restarted) stops counting after DELIVERY_IN_FLIGHT_MAX_MS.
 */
export class DeliveriesInFlight {
  readonly #startedAt = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  start(transactionId: string): void {
    this.#startedAt.set(transactionId, this.#now());
  }

  end(transactionId: string): void {
    this.#startedAt.delete(transactionId);
  }

  get count(): number {
    const stale = this.#now() - DELIVERY_IN_FLIGHT_MAX_MS;
    for (const [id, at] of this.#startedAt) if (at < stale) this.#startedAt.delete(id);
    return this.#startedAt.size;
  }
}

/** The partner with each order counted in flight from when it is sent until its eSIM is read ready (or the order is refused). */
export function countingDeliveries(partner: EsimPartner, inFlight: DeliveriesInFlight): EsimPartner {
  return new Proxy(partner, {
    get(target, property, receiver) {
      if (property === 'orderEsim')
        return async (...[order]: Parameters<EsimPartner['orderEsim']>) => {
          inFlight.start(order.transactionId);
          try {
            return await target.orderEsim(order);
          } catch (error) {
            inFlight.end(order.transactionId);
            throw error;
          }
        };
      if (property === 'queryProfiles')
        return async (...args: Parameters<EsimPartner['queryProfiles']>) => {
          const answer = await target.queryProfiles(...args);
          if (answer.status === 'ready') for (const { transactionId } of answer.profiles) if (transactionId) inFlight.end(transactionId);
          return answer;
        };
      return Reflect.get(target, property, receiver);
    },
  });
}

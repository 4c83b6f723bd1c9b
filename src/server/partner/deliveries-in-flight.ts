import { DELIVERY_IN_FLIGHT_MAX_MS } from '../../config/constants.ts';
import type { EsimPartner } from './partner.types.ts';

/**
 * The deliveries a partner has under way in this instance (issue 48's routing): an order being
 * sent, or sent with its eSIM still to be read here. What spreads a rush by the budget each
 * partner's deliveries will still spend, not by the one request each has queued now
 * (EsimPartner.requestsPerDelivery: eSIM Access's order and read, eSIM Go's validate and
 * transaction). An order whose eSIM is read when the partner says it is allocated stops counting
 * once sent: that notification reaches any instance, which reads it there, so this one would never
 * see its read (found by the rush benchmark: eSIM Access's deliveries then looked ever busier, and
 * the rush went to eSIM Go). One whose eSIM is never read (refunded, its process restarted) stops
 * counting after DELIVERY_IN_FLIGHT_MAX_MS.
 */
export class DeliveriesInFlight {
  readonly #under = new Map<string, { at: number; ordered: boolean }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  start(transactionId: string): void {
    this.#prune();
    this.#under.set(transactionId, { at: this.#now(), ordered: false });
  }

  ordered(transactionId: string): void {
    const delivery = this.#under.get(transactionId);
    if (delivery) delivery.ordered = true;
  }

  end(transactionId: string): void {
    this.#under.delete(transactionId);
  }

  /** The requests they still take: each being ordered `order + read`, each ordered `read`. */
  requestsLeft({ order, read }: { order: number; read: number }): number {
    this.#prune();
    let left = 0;
    for (const delivery of this.#under.values()) left += delivery.ordered ? read : order + read;
    return left;
  }

  /** Forgets the deliveries never read back (also when nothing asks for the count: a shop without budgets). */
  #prune(): void {
    const stale = this.#now() - DELIVERY_IN_FLIGHT_MAX_MS;
    for (const [id, delivery] of this.#under) if (delivery.at < stale) this.#under.delete(id);
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
            const placed = await target.orderEsim(order);
            // Answered with its eSIMs (eSIM Go), or read wherever the partner's notification lands (eSIM Access): none of this instance's.
            if (placed.profiles?.length || target.notifiesAllocation) inFlight.end(order.transactionId);
            else inFlight.ordered(order.transactionId);
            return placed;
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

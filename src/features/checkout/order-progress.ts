import type { OrderState, OrderView } from '../../contract/shop-api.ts';

/** The order is not finished yet (its payment unconfirmed, or its eSIM being prepared): payment success keeps asking. */
export const inProgress = (order: OrderView) =>
  order.state === 'pending_payment' ||
  order.state === 'paid' ||
  order.state === 'provisioning' ||
  (order.state === 'delivered' && !order.esim);

/** Delivery failed: the money is being or has been returned. */
export const REFUND_STATES: readonly OrderState[] = ['fulfilment_failed', 'refund_requested', 'refunded'];

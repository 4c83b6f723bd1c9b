import { isTopUpOrder } from '../../contract/order-kinds.ts';
import type { OrderState, OrderView } from '../../contract/shop-api.ts';

/**
 * Delivered, with what payment success shows of it: a new eSIM's codes; a top-up needs nothing more
 * (bought from a traveller's link, issue 33, the eSIM is not the payer's to see).
 */
export const deliveredWithEsim = (order: OrderView) => order.state === 'delivered' && (isTopUpOrder(order) || !!order.esim);

/** The order is not finished yet (its payment unconfirmed, or its eSIM being prepared): payment success keeps asking. */
export const inProgress = (order: OrderView) =>
  order.state === 'pending_payment' ||
  order.state === 'paid' ||
  order.state === 'provisioning' ||
  (order.state === 'delivered' && !deliveredWithEsim(order));

/** Delivery failed: the money is being or has been returned. */
export const REFUND_STATES: readonly OrderState[] = ['fulfilment_failed', 'refund_requested', 'refunded'];

import type { OrderState } from '../../contract/shop-api.ts';

/** Every order state, in the order an order moves through them (the filter's options). */
export const ORDER_STATES = [
  'pending_payment',
  'paid',
  'provisioning',
  'delivered',
  'fulfilment_failed',
  'refund_requested',
  'refunded',
  'payment_failed',
  'expired',
  'cancelled',
] as const satisfies readonly OrderState[];

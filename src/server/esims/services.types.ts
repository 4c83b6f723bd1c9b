import type { OrderRow } from '../orders/store.types.ts';
import type { EsimKey } from './store.types.ts';
import type { RefundCommand } from '../refunds/refund-command.types.ts';

/**
 * What the eSIMs' routes ask of the services built above them, declared here so that this folder
 * imports nothing above it: the fulfilment (fulfilment/fulfilment.types.ts, Fulfilment) and the
 * alerts (alerts/alerts.types.ts, Alerts) extend these.
 */

/** The delivery: moves an order as far as it can, and carries the one refund command. */
export interface OrderRunner {
  /** Moves one order as far as it can now; a second call while it runs makes it run once more after. Never rejects. */
  run(id: string): Promise<void>;
  /** The one refund command (refunds/refund-command.ts), its Stripe part carried by this order's run. */
  requestRefund: RefundCommand['requestRefund'];
}

/** The alerts an eSIM's data use and its being seen can raise. */
export interface EsimAlerts {
  /** Usage or state of these eSIMs was just stored: sends what is due. Never rejects. */
  check(esims: readonly EsimKey[]): Promise<void>;
  /** The buyer was shown these orders' eSIMs: those delivered and not yet seen are marked. */
  seen(shown: readonly Pick<OrderRow, 'id' | 'kind' | 'state'>[]): Promise<void>;
}

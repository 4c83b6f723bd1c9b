import type { Queryable } from '../db/db.types.ts';
import { linksOf } from '../orders/order-links.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { startBuyersRefund } from '../refunds/refund-command.ts';
import { RefundRefused, type RefundRequest } from '../refunds/refund-command.types.ts';
import { recordRequest } from '../refunds/store.ts';
import type { EsimRow, OwnedEsim } from './store.types.ts';
import { deletedUnused, esimStatus, isRefundable } from './view.ts';

/**
 * An eSIM bought for the wrong destination, exchanged in one step (issue 32 item 5): the buyer
 * orders and pays for the plan they meant, naming the unused eSIM it replaces, and once the new
 * eSIM is delivered the old one is cancelled at the partner and refunded in full through the one
 * refund command. The old one is never refunded before the new one arrives, so a payment given up,
 * or a delivery that fails (and is refunded itself), leaves the buyer their first eSIM.
 */

/** Why an eSIM cannot be exchanged now: POST /orders answers 409 with it and opens no order. */
export type ExchangeRefusal =
  /** Not the caller's eSIM, installed, older than the refund window, or not delivered: the refund rules. */
  | 'not_refundable'
  /** The new plan is for the same destination: an exchange is for the destination that was meant. */
  | 'same_destination'
  /** Another exchange of this eSIM was paid already. */
  | 'already_exchanged'
  /** A replacement at our cost: nothing was paid for it to refund (support can help with the original). */
  | 'replacement';

/** Whether the caller's eSIM may be exchanged for a plan of `destination` (the rules; the partner is asked when it is cancelled). */
export function exchangeRefusal(
  owned: OwnedEsim | undefined,
  destination: string,
  exchangedAlready: boolean,
  now: Date,
): ExchangeRefusal | undefined {
  if (owned?.order.replaces) return 'replacement';
  if (!owned || owned.order.kind !== 'esim' || !isRefundable(esimStatus(owned.order, owned.esim, now), owned.order, owned.esim, now))
    return 'not_refundable';
  if (owned.order.destination === destination) return 'same_destination';
  if (exchangedAlready) return 'already_exchanged';
  return undefined;
}

/**
 * In the transaction that delivers an exchange's new eSIM: the old one's refund, as the buyer's own
 * (refund_requested, which cancels it at the partner before Stripe is asked; installed meanwhile,
 * it stays the buyer's and nothing is refunded, as the terms say). Answers the old order's id when
 * its refund was asked (its run then carries it), or undefined when the rules no longer let it be
 * refunded, which the new order's timeline records.
 */
export async function refundExchanged(tx: Queryable, order: OrderRow): Promise<string | undefined> {
  const { exchange_of: old } = await linksOf(tx, order.id);
  if (!old) return undefined;
  // Locked first, so nothing refunds or moves it between this look and the refund's row.
  const [found] = await tx.query<{
    state: string;
    status: string | null;
    installed: boolean | null;
    install_step: EsimRow['install_step'];
    used_bytes: number;
    refunded: number;
  }>(
    `SELECT o.state, e.status, e.installed, e.install_step, e.used_bytes,
       (SELECT count(*) FROM refunds r WHERE r.order_id = o.id AND r.status <> 'cancelled')::int AS refunded
     FROM orders o LEFT JOIN esims e ON e.order_id = o.id WHERE o.id = $1 FOR UPDATE OF o`,
    [old],
  );
  const unused = found && ((found.status === 'ready' && !found.installed) || (found.status !== 'cancelled' && deletedUnused(found)));
  let why = `${old} is ${found?.state ?? 'missing'}${found?.installed ? ', installed' : ''}`;
  if (found?.state === 'delivered' && unused && found.refunded === 0) {
    const request: RefundRequest = {
      orderId: old,
      requestedBy: 'buyer',
      reason: 'exchanged',
      exchangeOrderId: order.id,
      idempotencyKey: `exchange:${order.id}`,
    };
    // The one outcome decides (orders/purchase-outcome.ts): replaced or refunded meanwhile, the old
    // eSIM's purchase is not refunded a second time, and this delivery still ends (a refusal is
    // thrown before any write of the refund's).
    try {
      const recorded = await recordRequest(tx, request);
      if (recorded.created) await startBuyersRefund(tx, request, recorded);
      return old;
    } catch (error) {
      if (!(error instanceof RefundRefused)) throw error;
      why = `${old}: ${error.message}`;
    }
  }
  await tx.query('INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, $2, $2, $3)', [
    order.id,
    'delivered',
    `exchange_not_refunded: ${why}`,
  ]);
  return undefined;
}

import type { Db, Queryable } from '../db/db.types.ts';
import { queueOrder } from '../jobs/order-jobs.ts';
import { createOrderStore, moveOrder } from '../orders/store.ts';
import { RefundRefused, type RefundCommand, type RefundOutcome, type RefundRequest } from './refund-command.types.ts';
import { refundRequested } from './refund-reasons.ts';
import { recordRequest, refundById } from './store.ts';

/**
 * The one refund command (refund-command.types.ts). It records the refund as a row, checked against
 * what was paid in the transaction that locks the order, and moves the order as the refund means:
 *
 * - the buyer's refund of their delivered, never-installed eSIM: delivered → refund_requested (the
 *   eSIM is cancelled at the partner before Stripe is asked; installed meanwhile, the refund is void);
 * - the rest of the payment for an order not delivered (paid, or held), or an operator's refund of
 *   the rest of a delivered eSIM order whose eSIM was never installed: → refund_requested, which
 *   cancels the unused eSIM at the partner and ends refunded with the refund e-mail;
 * - anything else (part of the payment, or an operator's refund of a delivered eSIM): the order
 *   stays as it is, with an order event that says so.
 *
 * Then the order's run (the fulfilment, under its claim on the order) asks Stripe (settle.ts), so
 * only one worker ever asks Stripe for a row. Answers the row as it stands after that run.
 */
/** A new eSIM's order whose eSIM is allocated and was never installed (the partner can still cancel it). */
async function unusedEsim(tx: Queryable, orderId: string): Promise<boolean> {
  const [esim] = await tx.query<{ status: string; installed: boolean }>(
    `SELECT e.status, e.installed FROM esims e JOIN orders o ON o.id = e.order_id WHERE o.id = $1 AND o.kind = 'esim'`,
    [orderId],
  );
  return esim?.status === 'ready' && !esim.installed;
}

/**
 * The buyer's refund of the whole of their delivered eSIM (their button, or their exchange once the
 * new eSIM is delivered), in the caller's transaction after its row was recorded: the order goes to
 * refund_requested, which cancels the eSIM at the partner before Stripe is asked. Refused (throws
 * RefundRefused, before any write of its own) when the order moved on or was refunded in part.
 */
export async function startBuyersRefund(
  tx: Queryable,
  request: RefundRequest,
  recorded: { state: string; leftMinor: number },
): Promise<void> {
  if (recorded.state !== 'delivered' || recorded.leftMinor !== 0)
    throw new RefundRefused('not_refundable', `order ${request.orderId} is ${recorded.state}`);
  await moveOrder(tx, request.orderId, 'refund_requested', request.reason === 'requested' ? 'buyer_requested' : `buyer_${request.reason}`);
  await refundRequested(tx, request.orderId, request.reason);
}

export function createRefundCommand(deps: { db: Db; run: (orderId: string) => Promise<void> }): RefundCommand {
  const { db } = deps;
  const orders = createOrderStore(db);

  async function requestRefund(request: RefundRequest, options: { answerWithinMs?: number } = {}): Promise<RefundOutcome> {
    const { refund, created } = await db.transaction(async (tx) => {
      const recorded = await recordRequest(tx, request);
      if (!recorded.created) return recorded;
      const { refund: row, state } = recorded;
      const by = request.requestedBy === 'operator' ? `operator ${request.operatorUid}` : request.requestedBy;
      const cause = `refund ${row.id}: ${row.amount_minor} ${row.currency} asked by ${by} (${row.reason})`;
      const whole = recorded.leftMinor === 0;
      if (request.requestedBy === 'buyer') {
        await startBuyersRefund(tx, request, recorded);
      } else if (
        whole &&
        (state !== 'delivered' || (request.requestedBy === 'operator' && (await unusedEsim(tx, request.orderId)))) &&
        (await orders.move(tx, request.orderId, 'refund_requested', cause))
      ) {
        // Not delivered, or an operator's refund of the whole of a delivered eSIM never installed:
        // the order's own refund, which cancels an unused eSIM at the partner first (fulfilment.ts,
        // cancelAtPartner). Installed meanwhile, the eSIM stays the buyer's and the operator's refund is still made.
        await refundRequested(tx, request.orderId, row.reason);
      } else {
        // The order's state says nothing of this refund: its own event does (the order's timeline).
        await tx.query('INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, $2, $2, $3)', [
          request.orderId,
          state,
          cause,
        ]);
        // Due at once: the order's run asks Stripe for it.
        await queueOrder(tx, request.orderId, 'refund');
      }
      return recorded;
    });
    // The run never rejects; left running, it is one of the runs a stopping server waits for.
    const run = deps.run(request.orderId);
    if (options.answerWithinMs === undefined) await run;
    else {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([run, new Promise((done) => (timer = setTimeout(done, options.answerWithinMs)))]);
      clearTimeout(timer);
    }
    return { refund: (await refundById(db, refund.id)) ?? refund, created };
  }

  return { requestRefund };
}

/**
 * The buyer's refund button: the rest of the payment, once per order (the key), for a delivered
 * eSIM that the route found never installed and within the refund window.
 */
export const buyersRefund = (orderId: string): RefundRequest => ({
  orderId,
  requestedBy: 'buyer',
  reason: 'requested',
  idempotencyKey: `buyer:${orderId}`,
});

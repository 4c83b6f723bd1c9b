import { refundRequested } from '../../refunds/refund-reasons.ts';
import { decideOutcome } from '../../orders/purchase-outcome.ts';
import type { Lease } from '../lease.types.ts';
import type { OrderInWork, StepContext } from './step.ts';

/**
 * The replacement workflow's compensation: a replacement that could not be delivered (nothing was
 * paid for it) refunds the order it replaces instead, whose eSIM is cancelled or deleted, with its
 * refund e-mail; the replacement ends refunded of nothing.
 */
export async function replacementFailed(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<void> {
  const old = order.replaces!;
  await lease.write(async (tx) => {
    // The purchase was replaced; now it is refunded instead (the one change an outcome allows).
    await decideOutcome(tx, { orderId: old, outcome: 'refunded', askedBy: 'system', cause: `replacement_failed: ${order.id}` });
    if (await ctx.orders.move(tx, old, 'refund_requested', `replacement_failed: ${order.id}`))
      await refundRequested(tx, old, 'not_delivered');
    await ctx.orders.move(tx, order.id, 'refunded', `replacement_failed: ${old} refunded instead`);
  });
  void ctx.run(old);
}

import type { OrderRow } from '../../orders/store.types.ts';
import { setRefundReason } from '../../refunds/refund-reasons.ts';
import type { Lease } from '../lease.types.ts';
import * as queue from '../queue.ts';
import type { Step, StepContext } from './step.ts';

/**
 * The delivered order's e-mail, once (the e-mail outbox, migration 0035), and the alerts' 'eSIM
 * ready'. An eSIM order whose account was deleted while it was being delivered reached nobody: it
 * goes back for a refund instead ('refund'). Nothing to compensate: an e-mail cannot be unsent.
 */
async function run(ctx: StepContext, lease: Lease, order: OrderRow): Promise<'sent' | 'refund'> {
  const id = order.id;
  if (order.uid === null && order.kind === 'esim' && !(await queue.emailSent(ctx.db, id, 'order'))) {
    await lease.write(async (tx) => {
      await setRefundReason(tx, id, 'account_deleted');
      await ctx.orders.move(tx, id, 'refund_requested', 'account_deleted');
    });
    return 'refund';
  }
  if (!(await queue.emailOwed(ctx.db, id, 'order'))) return 'sent';
  await ctx.emails.sendOrderEmail(lease, order);
  if (order.kind === 'esim') ctx.onDelivered?.(id);
  return 'sent';
}

export const deliverAndEmail: Step<'sent' | 'refund'> = { name: 'deliver and e-mail', run };

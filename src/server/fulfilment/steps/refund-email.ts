import type { Lease } from '../lease.types.ts';
import * as queue from '../queue.ts';
import type { OrderInWork, Step, StepContext } from './step.ts';

/**
 * The refunded order's e-mail, once, when it was refunded as a whole (its reason). 'wait': an
 * undelivered eSIM of a cart waits for the cart's other eSIMs, one e-mail tells them all.
 */
async function run(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<'sent' | 'wait'> {
  if (!order.refund_reason || !(await queue.emailOwed(ctx.db, order.id, 'refund'))) return 'sent';
  return (await ctx.emails.sendRefundEmail(lease, order)) === 'wait' ? 'wait' : 'sent';
}

export const refundEmail: Step<'sent' | 'wait'> = { name: 'refund e-mail', run };

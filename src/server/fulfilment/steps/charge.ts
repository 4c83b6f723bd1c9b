import type { OrderRow } from '../../orders/store.types.ts';
import type { RefundReason } from '../../refunds/refund-command.types.ts';
import { setRefundReason } from '../../refunds/refund-reasons.ts';
import { settleRefund } from '../../refunds/settle.ts';
import * as refunds from '../../refunds/store.ts';
import { LeaseLost } from '../lease.ts';
import type { Lease } from '../lease.types.ts';
import * as queue from '../queue.ts';
import type { OrderInWork, Step, StepContext } from './step.ts';

/** One refund row at Stripe under this claim (refunds/settle.ts has its state model). */
const settle = (ctx: StepContext, lease: Lease, id: string) =>
  settleRefund(
    {
      db: ctx.db,
      stripe: ctx.stripe,
      write: (work) => lease.write(work),
      check: () => lease.check(),
      retryDelaysMs: ctx.delays,
      pollMs: ctx.refundPollMs,
    },
    id,
  );

/**
 * The charge's part after the sale: the refunds of an order that is not refunded as a whole (an
 * operator's, part of the payment), carried at Stripe. Their failures never count against the
 * order's delivery (whose failed tries end in a refund): they are logged and looked at again.
 * Answers when to look again, or undefined when none is open.
 */
async function run(ctx: StepContext, lease: Lease, order: OrderRow): Promise<number | undefined> {
  if (order.state === 'fulfilment_failed' || order.state === 'refund_requested') return undefined;
  let retryInMs: number | undefined;
  for (const row of await refunds.refundsOf(ctx.db, order.id)) {
    if (!refunds.OPEN_STATUSES.includes(row.status)) continue;
    const wait = await settle(ctx, lease, row.id).then(
      (settled) => settled.retryInMs,
      (error: unknown) => {
        if (error instanceof LeaseLost) throw error;
        console.error('fulfilment: refund will be asked again', row.id, error instanceof Error ? error.message : error);
        return ctx.delays[Math.min(row.failures + 1, ctx.delays.length) - 1]!;
      },
    );
    if (wait !== undefined) retryInMs = Math.min(retryInMs ?? Infinity, wait);
  }
  return retryInMs;
}

/**
 * The charge compensated: the order refunded as a whole (fulfilment_failed, refund_requested).
 * What is left of its payment is refunded through a row of its own (the refund command's, or the
 * shop's, made here), every open row of the order is carried at Stripe, and the order is called
 * refunded only once Stripe says all of them succeeded and together they give back what was paid;
 * the refund e-mail is then owed, once (a refund that fails late reopens the order:
 * webhooks/stripe-event.ts, and it is asked again without a second e-mail). Answers 'refunded' once the
 * order is refunded, else when to look again.
 */
export async function refundOrder(
  ctx: StepContext,
  lease: Lease,
  order: OrderInWork,
  reason: RefundReason,
): Promise<'refunded' | { retryInMs: number }> {
  const { db } = ctx;
  const payment = await refunds.paidPayment(db, order.id);
  if (!payment?.payment_intent_id) throw new Error(`order ${order.id}: no payment to refund`);
  // Why the order is refunded as a whole (the refund e-mail's words, and what makes it owed): a
  // delivery that ran out of tries enters fulfilment_failed with none yet.
  if (!order.refund_reason) await lease.write((tx) => setRefundReason(tx, order.id, reason));
  const counted = (await refunds.refundsOf(db, order.id)).filter((r) => r.status !== 'cancelled');
  const given = counted.reduce((sum, r) => sum + r.amount_minor, 0);
  if (given < payment.amount_minor) {
    // The key names what it refunds: another worker's or run's try finds the same row.
    await lease.write((tx) =>
      refunds.recordRequest(tx, {
        orderId: order.id,
        requestedBy: reason === 'requested' ? 'buyer' : 'system',
        reason,
        idempotencyKey: `order-rest:${order.id}:${given}`,
      }),
    );
  }
  let retryInMs: number | undefined;
  for (const row of await refunds.refundsOf(db, order.id)) {
    if (!refunds.OPEN_STATUSES.includes(row.status)) continue;
    const settled = await settle(ctx, lease, row.id);
    if (settled.retryInMs !== undefined) retryInMs = Math.min(retryInMs ?? Infinity, settled.retryInMs);
  }
  if (retryInMs !== undefined) return { retryInMs };
  const back = (await refunds.refundsOf(db, order.id)).filter((r) => r.status === 'succeeded');
  if (back.reduce((sum, r) => sum + r.amount_minor, 0) < payment.amount_minor) return { retryInMs: 0 };
  await lease.write(async (tx) => {
    // The refund e-mail goes once: not again after a refund that failed late and was asked again.
    await queue.oweRefundEmail(tx, order.id);
    await ctx.orders.move(tx, order.id, 'refunded', `stripe:refund ${back.map((r) => r.stripe_refund_id).join(' ')}`);
  });
  return 'refunded';
}

/** The buyer's charge (taken at Stripe before the workflow starts); compensated by its refund. */
export const charge: Step<number | undefined> = {
  name: 'the charge',
  run,
  compensate: async (ctx, lease, order) => {
    await refundOrder(ctx, lease, order, order.refund_reason ?? 'not_delivered');
  },
};

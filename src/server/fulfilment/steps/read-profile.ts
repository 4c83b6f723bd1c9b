import { refundExchanged } from '../../esims/exchange.ts';
import type { OrderRow, OrderSourcing } from '../../orders/store.types.ts';
import type { Lease } from '../lease.types.ts';
import { errorText } from '../../partner/partner-http.ts';
import type { EsimProfile, ProfileAnswer } from '../../partner/partner.types.ts';
import type { OrderInWork, Step, StepContext } from './step.ts';

/**
 * Reads the ordered eSIM's profile at the partner (the delivery's second and last call, before new
 * orders: partner-budget.ts), unless the partner answered it with the order, and, once allocated,
 * stores it and calls the order delivered. An
 * exchange's old eSIM is refunded in the same transaction (esims/exchange.ts). Answers false while
 * the partner allocates (up to 30 s; much longer counts as a failed try, so the order ends refunded
 * if it never comes). Nothing to compensate: a read.
 */
type Ordered = OrderRow & OrderSourcing & { partner_order_no: string };

async function run(ctx: StepContext, lease: Lease, order: Ordered, answered?: EsimProfile[]): Promise<boolean> {
  const partnerOrderNo = order.partner_order_no;
  const partner = ctx.partners.of(order.partner);
  const ordered = { transactionId: order.id, partnerCode: order.partner_code };
  const answer: ProfileAnswer = answered?.length
    ? { status: 'ready', profiles: answered }
    : await partner.queryProfiles({ partnerOrderNo, ordered }, { priority: 'allocated' });
  if (answer.status === 'allocating' || answer.profiles.length === 0) {
    // (updated_at is when the partner order was recorded: nothing else changes the order meanwhile.)
    if (Date.now() - order.updated_at.getTime() > ctx.allocationLimitMs) {
      throw new Error(`${partnerOrderNo}: not allocated within ${Math.round(ctx.allocationLimitMs / 1000)} s`);
    }
    return false;
  }
  const exchanged = await lease.write(async (tx) => {
    // A profile already stored for another order is the partner's mistake or ours: never a silent 'delivered'.
    await ctx.esims.saveProfile(tx, order.id, order.partner, answer.profiles[0]!);
    await ctx.orders.move(tx, order.id, 'delivered', `partner:${partnerOrderNo}`);
    return refundExchanged(tx, order);
  });
  // Its own run cancels it at the partner and asks Stripe (run never rejects; the job retries it).
  if (exchanged) void ctx.run(exchanged);
  // Marked the order's at the partner when it wants that, after the rush (a later read marks one this misses).
  partner.labelEsim?.(answer.profiles[0]!.esimTranNo).catch((error: unknown) => {
    console.error('fulfilment: the eSIM is not marked as its order’s at the partner yet', order.id, errorText(error));
  });
  return true;
}

/** `answered`: the profiles the partner answered the order with (eSIM Go's), read no more. */
export const readProfile: Step<boolean> & {
  run(ctx: StepContext, lease: Lease, order: OrderInWork, answered?: EsimProfile[]): Promise<boolean>;
} = {
  name: 'read the profile',
  run: (ctx: StepContext, lease: Lease, order: OrderInWork, answered?: EsimProfile[]) => run(ctx, lease, order as Ordered, answered),
};

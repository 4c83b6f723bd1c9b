import type { OrderRow, OrderSourcing } from '../../orders/store.types.ts';
import type { TopUpResult } from '../../partner/partner.types.ts';
import type { Lease } from '../lease.types.ts';
import { partnerWrites } from '../partner-writes.ts';
import { partnerEsim, refused, type Step, type StepContext } from './step.ts';

/**
 * Adds the top-up package's data and days to the buyer's eSIM: the partner's own top-up the order
 * sold (its code is the order's partner_code). The partner does not promise that a repeated top-up
 * is harmless, so it is recorded before it is sent with the eSIM's totals, and after a lost answer
 * the partner's totals say whether it was applied before anything is resent. One top-up of an eSIM
 * at a time: the record is its slot, held until the write is settled. Answers false while another
 * order's top-up of the eSIM holds the slot. Nothing to compensate at the partner (a top-up cannot
 * be taken back): a failed one is refunded (charge.ts).
 */
async function run(ctx: StepContext, lease: Lease, order: OrderRow & OrderSourcing): Promise<boolean> {
  const { db, esims } = ctx;
  const esim = await esims.ofOrder(db, order.top_up_of!);
  if (!esim) throw new Error(`top-up ${order.id}: its eSIM is not delivered`);
  const tranNo = esim.esim_tran_no;
  const deliver = (write: number, totals: TopUpResult, how: string) =>
    lease.write(async (tx) => {
      await partnerWrites.settle(tx, write, 'applied', how);
      await esims.recordTopUp(tx, esim, totals);
      await ctx.orders.move(tx, order.id, 'delivered', `partner:topup ${tranNo}`);
    });

  // The eSIM's top-up slot (migration 0012): this order's write an earlier try left unsettled, or a new one.
  const earlier = await partnerWrites.unsettled(db, order.id, 'esim/topup');
  let write: number | undefined = earlier?.id;
  if (earlier?.before_total_bytes != null) {
    // Sent, answer lost. While the slot is held no other order's top-up of this eSIM can be
    // applied, so a higher total can only be this one.
    const now = await partnerEsim(ctx, esim);
    if (now.totalBytes > earlier.before_total_bytes) {
      await deliver(earlier.id, now, 'read back: applied');
      return true;
    }
    // Not applied: settled so, and the slot taken again in the same transaction (nobody slips in).
    write = await lease.write(async (tx) => {
      await partnerWrites.settle(tx, earlier.id, 'refused', 'read back: not applied');
      return partnerWrites.claimTopUp(tx, order.id, esim);
    });
  }
  write ??= await lease.write((tx) => partnerWrites.claimTopUp(tx, order.id, esim));
  if (write === undefined) {
    // Another order's top-up of this eSIM is being delivered: waiting for it is no failed try. A
    // slot left by an order that is no longer delivered (its write unsettled) is one, so a paid
    // top-up still ends refunded if it never frees.
    const holder = await partnerWrites.topUpSlotHolder(db, esim);
    if (!holder || holder.state === 'paid' || holder.state === 'provisioning') return false;
    throw new Error(`top-up ${order.id}: ${tranNo}'s top-up by order ${holder.order_id} (${holder.state}) is unsettled`);
  }
  // Read only now that the slot is held: no other order's top-up can change it before this one is sent.
  const before = await partnerEsim(ctx, esim);
  await lease.write((tx) => partnerWrites.setTotalBefore(tx, write, before.totalBytes));
  await lease.check();
  let result: TopUpResult;
  try {
    // Its eSIM's partner, the one the order was priced at (place-order.ts).
    result = await ctx.partners.of(esim.partner).topUp({ esimTranNo: tranNo, partnerCode: order.partner_code, transactionId: order.id });
  } catch (error) {
    if (refused(error)) await lease.write((tx) => partnerWrites.settle(tx, write, 'refused', error.code ?? error.message));
    throw error;
  }
  await deliver(write, result, 'answered');
  return true;
}

export const topUp: Step<boolean> = { name: 'top up at the partner', run };

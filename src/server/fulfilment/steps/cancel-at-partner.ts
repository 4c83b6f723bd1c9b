import { refreshEsims } from '../../esims/refresh.ts';
import { setRefundReason } from '../../refunds/refund-reasons.ts';
import { deletedUnused } from '../../esims/view.ts';
import { voidOutcome } from '../../orders/purchase-outcome.ts';
import type { OrderRow } from '../../orders/store.types.ts';
import * as refunds from '../../refunds/store.ts';
import type { Lease } from '../lease.types.ts';
import { partnerWrites } from '../partner-writes.ts';
import { ambiguous, partnerEsim, refused, type Step, type StepContext } from './step.ts';

/**
 * Cancels the order's delivered eSIM at the partner before its refund (the compensation of the
 * partner's order once the eSIM was delivered). An ambiguous answer, or 'not allowed' (which a
 * retry of a cancel that was applied also gets), is settled by reading the eSIM: cancelled goes on
 * to the refund; installed meanwhile keeps the eSIM the buyer's (terms). Answers true when the eSIM
 * stays the buyer's.
 */
async function run(ctx: StepContext, lease: Lease, order: OrderRow): Promise<boolean> {
  const { db, esims } = ctx;
  const esim = await esims.ofOrder(db, order.id);
  if (!esim) return false;
  // Nothing to cancel: cancelled already (the partner's CANCEL notification refreshed the eSIM), or
  // deleted from the phone before it carried data (the partner cancels only what was never
  // downloaded, and no phone can take it again; refunded at our cost). A cancel an earlier try sent,
  // whose answer was lost, is settled by reading the eSIM, not left 'sent' forever (found by the
  // fault runs): cancelled, it was applied.
  if (esim.status === 'cancelled' || deletedUnused(esim)) {
    const earlier = await partnerWrites.unsettled(db, order.id, 'esim/cancel');
    if (earlier) {
      const known = esim.status === 'cancelled';
      const status = known ? esim.status : (await partnerEsim(ctx, esim)).status;
      const how = known ? 'read back: cancelled' : `read back: ${status}, deleted from the phone before it carried data`;
      await lease.write((tx) => partnerWrites.settle(tx, earlier.id, status === 'cancelled' ? 'applied' : 'refused', how));
    }
    return false;
  }
  const tranNo = esim.esim_tran_no;
  const write =
    (await partnerWrites.unsettled(db, order.id, 'esim/cancel'))?.id ??
    (await lease.write((tx) =>
      partnerWrites.record(tx, { orderId: order.id, call: 'esim/cancel', partner: esim.partner, esimTranNo: tranNo }),
    ));
  await lease.check();
  let how = 'answered';
  try {
    await ctx.partners.of(esim.partner).cancelProfile(tranNo);
  } catch (error) {
    const notAllowed = refused(error) && error.kind === 'not_allowed';
    if (!notAllowed && !ambiguous(error)) throw error;
    const now = await partnerEsim(ctx, esim);
    if (now.status !== 'cancelled') {
      if (!notAllowed || (!now.installed && now.status === 'ready')) throw error;
      // Installed in the meantime: not refundable (terms), so the eSIM stays the buyer's.
      await lease.write(async (tx) => {
        await partnerWrites.settle(tx, write, 'refused', `read back: ${now.status}`);
        await setRefundReason(tx, order.id, null);
        await refunds.cancelUnasked(tx, order.id);
        await voidOutcome(tx, order.id, 'installed before its refund');
        await ctx.orders.move(tx, order.id, 'delivered', 'refund_refused: installed');
      });
      await refreshEsims(ctx.partners, esims, [esim]).catch(() => undefined);
      return true;
    }
    how = 'read back: cancelled';
  }
  await lease.write(async (tx) => {
    await partnerWrites.settle(tx, write, 'applied', how);
    await esims.setStatus(tx, esim, 'cancelled');
  });
  return false;
}

export const cancelAtPartner: Step<boolean> = { name: 'cancel the eSIM at the partner', run };

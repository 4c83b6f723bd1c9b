import { PARTNER_BUSY_AFTER_SECONDS, PARTNER_WRITE_GONE_AFTER_MS } from '../../../config/constants.ts';
import type { Queryable } from '../../db/db.types.ts';
import { pauseSales, salesPaused } from '../../orders/sales-pause.ts';
import { setPartnerOrder, switchPartner } from '../../orders/sourcing.ts';
import { PartnerError } from '../../partner/partner.ts';
import type { EsimPartner, EsimProfile, PartnerErrorKind } from '../../partner/partner.types.ts';
import type { PartnerOffer } from '../../../catalogue/schema.ts';
import type { OrderRow, OrderSourcing } from '../../orders/store.types.ts';
import type { Lease } from '../lease.types.ts';
import { partnerWrites } from '../partner-writes.ts';
import { LeaseLost } from '../lease.ts';
import { releaseOrderEsims } from '../release-order-esims.ts';
import { refused, type Step, type StepContext } from './step.ts';

/** Refusals another partner may not share: it has the package, the stock, the balance, the price. */
const FAILOVER = new Set<PartnerErrorKind>(['out_of_stock', 'insufficient_balance', 'price_changed', 'not_found']);

/**
 * The order switched, in its fenced transaction, to the next partner whose margin holds
 * (StepContext.nextPartner): none that was tried, is paused for want of balance, or is the order's
 * own; with `healthy`, none whose circuit breaker is open either; with `lessBusy`, only one whose
 * requests wait less for its budget than the order's own partner's. Undefined: no such partner.
 */
async function switchToNext(ctx: StepContext, tx: Queryable, order: OrderRow & OrderSourcing, choice: NextChoice = {}) {
  const offer = await nextOffer(ctx, tx, order, choice);
  return offer && (await switchPartner(tx, order.id, offer)) ? offer : undefined;
}

interface NextChoice {
  healthy?: boolean;
  lessBusy?: boolean;
}

/** The partner switchToNext would switch the order to, switching nothing. */
async function nextOffer(
  ctx: StepContext,
  tx: Queryable,
  order: OrderRow & OrderSourcing,
  { healthy = false, lessBusy = false }: NextChoice,
) {
  const skip = [order.partner, ...(await partnerWrites.orderedFrom(tx, order.id)), ...(await salesPaused(tx)).partners];
  const offer = ctx.nextPartner?.(order, skip);
  if (!offer || (healthy && ctx.partners.breaker(offer.partner).state === 'open')) return undefined;
  if (lessBusy && ctx.partners.backlogSeconds(offer.partner) >= ctx.partners.backlogSeconds(order.partner)) return undefined;
  return offer;
}

/**
 * Orders the eSIM at the partner, at most the price it was sold at (the partner refuses a higher
 * one). A partner paused for want of balance, or whose circuit breaker is open, is passed over
 * before anything is sent when another can deliver the plan. A refusal another partner may not
 * share (FAILOVER), or a send whose connection was refused (the partner is down: nothing reached
 * it), sends the order to the next partner whose margin holds, in the same try: the
 * first partner's write is settled refused (nothing applied) before the second is sent, so an order
 * never has two eSIMs; a refusal for want of balance pauses that partner too (sales-pause.ts). In a
 * rush, an order whose partner's requests wait longer than PARTNER_BUSY_AFTER_SECONDS goes, before
 * anything is sent, to another whose margin holds and whose requests wait less (partner-choice.ts).
 * The write is recorded before it is sent; an earlier try whose answer never came is settled by
 * looking the order up at the partner first (a repeat is harmless where the partner keeps one order
 * per transactionId; where it cannot, eSIM Go, the eSIM a lost answer bought is an orphan the
 * reconcile job releases). Answers the partner's order number, or undefined when it was
 * ordered just now (the partner allocates and says so: ORDER_STATUS GOT_RESOURCE runs the order again).
 */
async function run(ctx: StepContext, lease: Lease, order: OrderRow & OrderSourcing): Promise<Placed | undefined> {
  if (order.partner_order_no) return { partnerOrderNo: order.partner_order_no };
  const { db } = ctx;
  const partner = ctx.partners.of(order.partner);
  // An earlier try whose answer never came: the partner may hold the order already, and it
  // need not answer a repeat with the same orderNo (the docs do not say), so it is looked up first.
  const earlier = await partnerWrites.unsettled(db, order.id, 'esim/order');
  const unhealthy = (await salesPaused(db)).partners.includes(order.partner) || ctx.partners.breaker(order.partner).state === 'open';
  if (!earlier && unhealthy) {
    const next = await lease.write((tx) => switchToNext(ctx, tx, order, { healthy: true }));
    if (next) return failOver(ctx, lease, order, next, `${order.partner} is paused or not answering`);
  }
  if (!earlier && !unhealthy && ctx.partners.backlogSeconds(order.partner) > PARTNER_BUSY_AFTER_SECONDS) {
    const next = await lease.write((tx) => switchToNext(ctx, tx, order, { healthy: true, lessBusy: true }));
    if (next) return run(ctx, lease, switched(order, next));
  }
  const lookUp = () => (earlier ? partner.findOrder(order.id, earlier.sent_at) : Promise.resolve(undefined));
  const write =
    earlier?.id ?? (await lease.write((tx) => partnerWrites.record(tx, { orderId: order.id, call: 'esim/order', partner: order.partner })));
  let partnerOrderNo = (await lookUp()) ?? null;
  let profiles: EsimProfile[] | undefined;
  // Read back: not there, though first sent a while ago, and every send since has failed (else it
  // would be settled). Once its last send has been quiet that long too, nothing of it is on its way:
  // settled so, and the order goes to the next partner that can deliver it (issue 48 item 5). Until
  // then, when another partner could take it, it is not sent here again (each send would restart the wait).
  if (earlier && !partnerOrderNo && earlier.sentAgoMs > PARTNER_WRITE_GONE_AFTER_MS) {
    if (earlier.lastSentAgoMs > PARTNER_WRITE_GONE_AFTER_MS) {
      const next = await lease.write(async (tx) => {
        const offer = await switchToNext(ctx, tx, order, { healthy: true });
        if (offer) await partnerWrites.settle(tx, write, 'refused', 'read back: no order');
        return offer;
      });
      if (next) return failOver(ctx, lease, order, next, `${order.partner} does not hold the order, and its sends keep failing`);
    } else if (await nextOffer(ctx, db, order, { healthy: true })) {
      throw new PartnerError({
        partner: order.partner,
        call: 'esim/order',
        retryable: true,
        attempts: 0,
        reason: `its last send ${Math.round(earlier.lastSentAgoMs / 1000)} s ago may still be on its way: another partner is asked once it cannot be`,
      });
    }
  }
  if (!partnerOrderNo) {
    // Sent again after a lost answer: the wait before another partner starts from here.
    if (earlier) await lease.write((tx) => partnerWrites.sendingAgain(tx, write));
    else await lease.check();
    try {
      ({ partnerOrderNo, profiles } = await partner.orderEsim({
        transactionId: order.id,
        partnerCode: order.partner_code,
        priceUsdE4: order.wholesale_usd_e4,
        count: 1,
      }));
    } catch (error) {
      // Refused after an unknown earlier try: the refusal may be 'that order exists'.
      partnerOrderNo = refused(error) ? ((await lookUp()) ?? null) : null;
      // Its connection refused: the request never reached the partner (down), so nothing was applied either.
      const notSent = error instanceof PartnerError && error.notSent;
      if (!partnerOrderNo) {
        if ((!refused(error) && !notSent) || earlier) throw error;
        // Refused or not sent, nothing applied: settled so, and the order goes to the next partner if one can deliver it.
        const next = await lease.write(async (tx) => {
          await partnerWrites.settle(tx, write, 'refused', notSent ? error.message : (error.code ?? error.message));
          if (error.kind === 'insufficient_balance') await pauseSales(tx, order.partner, order.wholesale_usd_e4);
          if (notSent) return switchToNext(ctx, tx, order, { healthy: true });
          return FAILOVER.has(error.kind!) ? switchToNext(ctx, tx, order) : undefined;
        });
        if (!next) throw error;
        return failOver(ctx, lease, order, next, error.message);
      }
    }
  }
  await lease.write(async (tx) => {
    await partnerWrites.settle(tx, write, 'applied', partnerOrderNo!);
    await setPartnerOrder(tx, order.id, partnerOrderNo!);
  });
  // Just ordered: asking now would only hear "allocating" and spend one of the shop's 8 requests
  // a second: a delivery is two calls, order and query (issue 31). A partner may have answered
  // the profiles with the order (eSIM Go): the next step reads them from here.
  return profiles ? { partnerOrderNo: partnerOrderNo!, profiles } : undefined;
}

/** The partner's order, and the profiles when the partner answered them with it. */
type Placed = Awaited<ReturnType<EsimPartner['orderEsim']>>;

/** The order as it is once switched to this partner's offer. */
function switched(order: OrderRow & OrderSourcing, next: PartnerOffer): OrderRow & OrderSourcing {
  return { ...order, partner: next.partner, partner_code: next.partnerCode, wholesale_usd_e4: next.wholesaleUsdE4 };
}

/** The same try again at the partner the order was just switched to. */
function failOver(ctx: StepContext, lease: Lease, order: OrderRow & OrderSourcing, next: PartnerOffer, why: string) {
  console.error('fulfilment: failing over', order.id, `${order.partner} → ${next.partner}:`, why);
  return run(ctx, lease, switched(order, next));
}

/**
 * Before an undelivered order is refunded: an eSIM the partner allocated for it after all (a lost
 * answer, an allocation that came late) is cancelled, so no paid eSIM stays at the partner that no
 * buyer receives. What happened to an order whose answer was lost is settled by reading the
 * partner first; not there while its last send may still be on its way (PARTNER_WRITE_GONE_AFTER_MS),
 * it is not settled on that read: the reconcile job reads it back once its sends have been quiet
 * that long (reconcile/refunded-order-writes.ts). The buyer's refund never waits on it, nor on a
 * partner that cannot be asked now: what stays unsettled is that sweep's.
 */
async function compensate(ctx: StepContext, lease: Lease, order: OrderRow & OrderSourcing): Promise<void> {
  if (order.kind !== 'esim') return;
  const { db } = ctx;
  const partner = ctx.partners.of(order.partner);
  try {
    const earlier = await partnerWrites.unsettled(db, order.id, 'esim/order');
    const partnerOrderNo = order.partner_order_no ?? (earlier ? await partner.findOrder(order.id, earlier.sent_at) : undefined);
    if (earlier && (partnerOrderNo || earlier.lastSentAgoMs > PARTNER_WRITE_GONE_AFTER_MS))
      await lease.write((tx) =>
        partnerWrites.settle(tx, earlier.id, partnerOrderNo ? 'applied' : 'refused', `read back: ${partnerOrderNo ?? 'no order'}`),
      );
    if (partnerOrderNo) await releaseOrderEsims(partner, order, partnerOrderNo, (work) => lease.write(work));
  } catch (error) {
    if (error instanceof LeaseLost) throw error;
    console.error(
      'fulfilment: an undelivered eSIM could not be released; refunding the buyer all the same',
      order.id,
      error instanceof Error ? error.message : error,
    );
  }
}

/** The partner's order for the eSIM; compensated by cancelling what it allocated. */
export const orderAtPartner: Step<Placed | undefined> = { name: 'order at the partner', run, compensate };

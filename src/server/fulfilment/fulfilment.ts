import type Stripe from 'stripe';
import type { Locale } from '../../i18n/locales.ts';
import type { Db } from '../db/db.ts';
import { refundExchanged } from '../esims/exchange.ts';
import { refreshEsims } from '../esims/refresh.ts';
import { deletedUnused } from '../esims/view.ts';
import { createEsimStore } from '../esims/store.ts';
import { screenBeforeDelivery } from '../fraud/holds.ts';
import type { Mailer } from '../mail/mailer.ts';
import { linksOf } from '../orders/order-links.ts';
import { decideOutcome, voidOutcome } from '../orders/purchase-outcome.ts';
import { createOrderStore } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { PartnerError, type EsimPartner, type EsimProfile, type TopUpResult } from '../partner/partner.ts';
import { createRefundCommand } from '../refunds/refund-command.ts';
import { settleRefund } from '../refunds/settle.ts';
import * as refunds from '../refunds/store.ts';
import { createFulfilmentEmails } from './emails.ts';
import { claimOrder, LeaseLost, type Lease } from './lease.ts';
import type { Fulfilment } from './fulfilment.types.ts';
import { partnerWrites } from './partner-writes.ts';
import * as queue from './queue.ts';
import { pauseSales } from '../orders/sales-pause.ts';
import { DELIVERY_PROMISE_MS } from '../../config/constants.ts';

/**
 * Delivery (DESIGN 6): every paid order ends delivered or refunded. One step function moves an
 * order as far as it can now: paid → provisioning → the partner's order (our id as its
 * transactionId, so a retry never buys twice) → its profile → delivered → the order e-mail, once;
 * or, when the retries run out, fulfilment_failed → a Stripe refund → refunded → the refund e-mail.
 * Whatever fails is tried again later by the reconcile job, with backoff. The payment webhook,
 * the partner's webhook, the refund button and the job all call the same `run`. The SQL it runs
 * is queue.ts's, the e-mails it sends emails.ts's.
 */
export interface FulfilmentOptions {
  db: Db;
  partner: EsimPartner;
  stripe: Stripe;
  mailer: Mailer;
  /** The site's address (links in e-mails) and its name. */
  siteUrl: string;
  siteName: string;
  destinationName: (code: string, lang: Locale) => string;
  /**
   * The waits between failed tries; their number is how many tries a delivery gets before the
   * order is refunded. Refunds and e-mails keep trying at the last wait.
   */
  retryDelaysMs?: readonly number[];
  /** How soon to ask the partner again while it allocates (its webhook usually comes first). */
  allocationPollMs?: number;
  /** An order still allocating after this long counts its polls as failed tries. */
  allocationLimitMs?: number;
  /** How long a worker's claim on an order lasts unless renewed (it is renewed while the work goes on). */
  leaseMs?: number;
  /** How soon to read a pending refund at Stripe again (its webhook usually comes first). */
  refundPollMs?: number;
  /** A delivery still failing this long after the payment is refunded at once (DELIVERY_PROMISE_MS). */
  deliveryPromiseMs?: number;
  /** A new eSIM was delivered and its order e-mail sent (the alerts' 'eSIM ready', issue 23). */
  onDelivered?: (orderId: string) => void;
}

/** About two hours of tries before a buyer gets their money back. */
export const RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];
/** The partner allocates within 30 s (DESIGN 6); an order still allocating after this counts its polls as failed tries. */
const ALLOCATION_LIMIT_MS = 10 * 60_000;
/** A pending refund is read at Stripe again this often, in case its webhook is lost. */
const REFUND_POLL_MS = 5 * 60_000;
/** Whoever works on an order holds it this long unless renewed (a crashed process's hold runs out). */
const LEASE_MS = 60_000;

/** What a try that did not fail leaves: nothing to do, or a look again soon (the partner is still allocating). */
type Outcome = { retryInMs: number } | 'done';

/** A failure after which no partner write can have happened unseen: the partner said no in an answer we read. */
const refused = (error: unknown): error is PartnerError => error instanceof PartnerError && error.refused;

/** The partner's answer to a write is unknown: it may have been applied (DESIGN 7). */
const ambiguous = (error: unknown) => !refused(error) && !(error instanceof LeaseLost);

export function createFulfilment(options: FulfilmentOptions): Fulfilment {
  const { db, partner, stripe } = options;
  const orders = createOrderStore(db);
  const esims = createEsimStore(db);
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const allocationPollMs = options.allocationPollMs ?? 3_000;
  const allocationLimitMs = options.allocationLimitMs ?? ALLOCATION_LIMIT_MS;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const refundPollMs = options.refundPollMs ?? REFUND_POLL_MS;
  const deliveryPromiseMs = options.deliveryPromiseMs ?? DELIVERY_PROMISE_MS;
  const emails = createFulfilmentEmails({ ...options, esims });
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();

  const fresh = async (id: string) => (await orders.byId(db, id))!;

  /** The eSIM as the partner has it now (after an ambiguous answer, its word settles what happened). */
  async function partnerEsim(esimTranNo: string): Promise<EsimProfile> {
    const answer = await partner.queryProfiles({ esimTranNo });
    const profile = answer.status === 'ready' ? answer.profiles.find((p) => p.esimTranNo === esimTranNo) : undefined;
    if (!profile) throw new Error(`${esimTranNo}: the partner did not list it`);
    return profile;
  }

  /**
   * One try: moves the order as far as it can, then carries its other refunds (an operator's, part
   * of the payment) at Stripe; throws what should be tried again. Every write checks the claim.
   */
  async function step(lease: Lease): Promise<Outcome> {
    const outcome = await moveOrder(lease);
    const aside = await settleAside(lease, await fresh(lease.order.id));
    if (aside === undefined) return outcome;
    return { retryInMs: outcome === 'done' ? aside : Math.min(outcome.retryInMs, aside) };
  }

  /** The order's state machine (DESIGN 6). */
  async function moveOrder(lease: Lease): Promise<Outcome> {
    const id = lease.order.id;
    const move = (to: OrderRow['state'], cause: string) => lease.write((tx) => orders.move(tx, id, to, cause));
    for (;;) {
      const order = await fresh(id);
      switch (order.state) {
        case 'paid': {
          // A buyer who deleted their account can no longer see an eSIM: give the money back.
          if (order.uid === null) {
            await lease.write((tx) => queue.setRefundReason(tx, id, 'account_deleted'));
            await move('fulfilment_failed', 'account_deleted');
            continue;
          }
          // A replacement at our cost (esims/replacement.ts) has no charge to screen: the eSIM it
          // replaces is released first. Otherwise a charge Radar rates highest risk waits for an
          // admin, with no partner call (fraud/holds.ts).
          const replaced = (await linksOf(db, id)).replaces;
          if (replaced) await releaseReplaced(lease, order, replaced);
          else if ((await screenBeforeDelivery({ db, stripe }, id, (work) => lease.write(work))) === 'held') return 'done';
          await move('provisioning', 'fulfilment_started');
          continue;
        }
        case 'provisioning': {
          const delivered = order.kind === 'top_up' ? await topUp(lease, order) : await provision(lease, order);
          if (!delivered) return { retryInMs: allocationPollMs };
          continue;
        }
        case 'delivered':
          // Deleted while it was being delivered: it reached nobody, so it goes back for a refund.
          if (order.uid === null && order.kind === 'esim' && !order.email_sent_at) {
            await lease.write(async (tx) => {
              await queue.setRefundReason(tx, id, 'account_deleted');
              await orders.move(tx, id, 'refund_requested', 'account_deleted');
            });
            continue;
          }
          if (order.email_sent_at) return 'done';
          await emails.sendOrderEmail(lease, order);
          if (order.kind === 'esim') options.onDelivered?.(id);
          return 'done';
        case 'refund_requested': {
          const kept = await cancelAtPartner(lease, order);
          if (kept) return 'done';
          const refunded = await refund(lease, order, order.refund_reason ?? 'requested');
          if (refunded !== 'refunded') return refunded;
          continue;
        }
        case 'fulfilment_failed': {
          // Once, before the first refund is asked for (a pending or failed one does not release again).
          if (!(await refunds.anyAsked(db, id))) await releaseUndelivered(lease, order);
          const { replaces } = await linksOf(db, id);
          if (replaces) {
            await replacementFailed(lease, order, replaces);
            continue;
          }
          const refunded = await refund(lease, order, order.refund_reason ?? 'not_delivered');
          if (refunded !== 'refunded') return refunded;
          continue;
        }
        case 'refunded':
          // An undelivered eSIM of a cart waits for the cart's other eSIMs: one e-mail tells them all.
          if (order.refund_reason && !order.email_sent_at && (await emails.sendRefundEmail(lease, order)) === 'wait')
            return { retryInMs: allocationPollMs };
          return 'done';
        default:
          return 'done';
      }
    }
  }

  /**
   * Orders the eSIM, at most the price it was sold at (the partner refuses a higher one), and
   * stores its profile once allocated. A repeat is harmless: the partner keeps one order per
   * transactionId (our order id).
   */
  async function provision(lease: Lease, order: OrderRow): Promise<boolean> {
    let partnerOrderNo = order.partner_order_no;
    if (!partnerOrderNo) {
      // An earlier try whose answer never came: the partner may hold the order already, and it
      // need not answer a repeat with the same orderNo (the docs do not say), so it is looked up first.
      const earlier = await partnerWrites.unsettled(db, order.id, 'esim/order');
      const lookUp = () => (earlier ? partner.findOrder(order.id, earlier.sent_at) : Promise.resolve(undefined));
      const write = earlier?.id ?? (await lease.write((tx) => partnerWrites.record(tx, { orderId: order.id, call: 'esim/order' })));
      partnerOrderNo = (await lookUp()) ?? null;
      if (!partnerOrderNo) {
        await lease.check();
        try {
          ({ partnerOrderNo } = await partner.orderEsim({
            transactionId: order.id,
            partnerCode: order.partner_code,
            priceUsdE4: order.wholesale_usd_e4,
            count: 1,
          }));
        } catch (error) {
          // Refused after an unknown earlier try: the refusal may be 'that order exists'.
          partnerOrderNo = refused(error) ? ((await lookUp()) ?? null) : null;
          if (!partnerOrderNo) {
            if (refused(error) && !earlier)
              await lease.write((tx) => partnerWrites.settle(tx, write, 'refused', error.code ?? error.message));
            throw error;
          }
        }
      }
      await lease.write(async (tx) => {
        await partnerWrites.settle(tx, write, 'applied', partnerOrderNo!);
        await queue.setPartnerOrder(tx, order.id, partnerOrderNo!);
      });
      // Just ordered: the partner allocates in a second or more and says so (ORDER_STATUS
      // GOT_RESOURCE), which runs this order again. Asking now would only hear "allocating" and
      // spend one of the shop's 8 requests a second: a delivery is two calls, order and query
      // (issue 31). Without the notification, the look-again below asks.
      return false;
    }
    // The delivery's last call goes before new orders (partner-budget.ts).
    const answer = await partner.queryProfiles({ partnerOrderNo }, { priority: 'allocated' });
    if (answer.status === 'allocating' || answer.profiles.length === 0) {
      // Allocation takes up to 30 s; much longer counts as a failed try, so the order ends refunded if it never comes.
      // (updated_at is when the partner order was recorded: nothing else changes the order meanwhile.)
      if (order.partner_order_no && Date.now() - order.updated_at.getTime() > allocationLimitMs) {
        throw new Error(`${partnerOrderNo}: not allocated within ${Math.round(allocationLimitMs / 1000)} s`);
      }
      return false;
    }
    const exchanged = await lease.write(async (tx) => {
      // A profile already stored for another order is the partner's mistake or ours: never a silent 'delivered'.
      await esims.saveProfile(tx, order.id, answer.profiles[0]!);
      await orders.move(tx, order.id, 'delivered', `partner:${partnerOrderNo}`);
      // An exchange: the eSIM it replaces is refunded now that this one is here (esims/exchange.ts).
      return refundExchanged(tx, order);
    });
    // Its own run cancels it at the partner and asks Stripe (run never rejects; the job retries it).
    if (exchanged) void run(exchanged);
    return true;
  }

  /**
   * Adds the top-up package's data and days to the buyer's eSIM: the partner's own top-up the
   * order sold (its code is the order's partner_code). The partner does not promise that a
   * repeated top-up is harmless, so it is recorded before it is sent with the eSIM's totals, and
   * after a lost answer the partner's totals say whether it was applied before anything is resent.
   * One top-up of an eSIM at a time: the record is its slot, held until the write is settled.
   */
  async function topUp(lease: Lease, order: OrderRow): Promise<boolean> {
    const esim = await esims.ofOrder(db, order.top_up_of!);
    if (!esim) throw new Error(`top-up ${order.id}: its eSIM is not delivered`);
    const tranNo = esim.esim_tran_no;
    const deliver = (write: number, totals: TopUpResult, how: string) =>
      lease.write(async (tx) => {
        await partnerWrites.settle(tx, write, 'applied', how);
        await esims.recordTopUp(tx, tranNo, totals);
        await orders.move(tx, order.id, 'delivered', `partner:topup ${tranNo}`);
      });

    // The eSIM's top-up slot (migration 0012): this order's write an earlier try left unsettled, or a new one.
    const earlier = await partnerWrites.unsettled(db, order.id, 'esim/topup');
    let write: number | undefined = earlier?.id;
    if (earlier?.before_total_bytes != null) {
      // Sent, answer lost. While the slot is held no other order's top-up of this eSIM can be
      // applied, so a higher total can only be this one.
      const now = await partnerEsim(tranNo);
      if (now.totalBytes > earlier.before_total_bytes) {
        await deliver(earlier.id, now, 'read back: applied');
        return true;
      }
      // Not applied: settled so, and the slot taken again in the same transaction (nobody slips in).
      write = await lease.write(async (tx) => {
        await partnerWrites.settle(tx, earlier.id, 'refused', 'read back: not applied');
        return partnerWrites.claimTopUp(tx, order.id, tranNo);
      });
    }
    write ??= await lease.write((tx) => partnerWrites.claimTopUp(tx, order.id, tranNo));
    if (write === undefined) {
      // Another order's top-up of this eSIM is being delivered: waiting for it is no failed try. A
      // slot left by an order that is no longer delivered (its write unsettled) is one, so a paid
      // top-up still ends refunded if it never frees.
      const holder = await partnerWrites.topUpSlotHolder(db, tranNo);
      if (!holder || holder.state === 'paid' || holder.state === 'provisioning') return false;
      throw new Error(`top-up ${order.id}: ${tranNo}'s top-up by order ${holder.order_id} (${holder.state}) is unsettled`);
    }
    // Read only now that the slot is held: no other order's top-up can change it before this one is sent.
    const before = await partnerEsim(tranNo);
    await lease.write((tx) => partnerWrites.setTotalBefore(tx, write, before.totalBytes));
    await lease.check();
    let result: TopUpResult;
    try {
      result = await partner.topUp({ esimTranNo: tranNo, partnerCode: order.partner_code, transactionId: order.id });
    } catch (error) {
      if (refused(error)) await lease.write((tx) => partnerWrites.settle(tx, write, 'refused', error.code ?? error.message));
      throw error;
    }
    await deliver(write, result, 'answered');
    return true;
  }

  /**
   * Cancels the order's eSIM at the partner before its refund. An ambiguous answer, or 'not
   * allowed' (which a retry of a cancel that was applied also gets), is settled by reading the
   * eSIM: cancelled goes on to the refund; installed meanwhile keeps the eSIM the buyer's (terms).
   * Answers true when the eSIM stays the buyer's.
   */
  async function cancelAtPartner(lease: Lease, order: OrderRow): Promise<boolean> {
    const esim = await esims.ofOrder(db, order.id);
    if (!esim) return false;
    // Deleted from the phone before it carried data: the partner cancels only what was never
    // downloaded, and no phone can take it again. Refunded at our cost, with nothing to cancel.
    if (esim.status !== 'cancelled' && deletedUnused(esim)) return false;
    if (esim.status === 'cancelled') {
      // Read back from the partner meanwhile (its CANCEL notification refreshes the eSIM): a cancel
      // sent before whose answer was lost was applied, and is settled so, not left 'sent' forever.
      const earlier = await partnerWrites.unsettled(db, order.id, 'esim/cancel');
      if (earlier) await lease.write((tx) => partnerWrites.settle(tx, earlier.id, 'applied', 'read back: cancelled'));
      return false;
    }
    const tranNo = esim.esim_tran_no;
    const write =
      (await partnerWrites.unsettled(db, order.id, 'esim/cancel'))?.id ??
      (await lease.write((tx) => partnerWrites.record(tx, { orderId: order.id, call: 'esim/cancel', esimTranNo: tranNo })));
    await lease.check();
    let how = 'answered';
    try {
      await partner.cancelProfile(tranNo);
    } catch (error) {
      const notAllowed = refused(error) && error.kind === 'not_allowed';
      if (!notAllowed && !ambiguous(error)) throw error;
      const now = await partnerEsim(tranNo);
      if (now.status !== 'cancelled') {
        if (!notAllowed || (!now.installed && now.status === 'ready')) throw error;
        // Installed in the meantime: not refundable (terms), so the eSIM stays the buyer's.
        await lease.write(async (tx) => {
          await partnerWrites.settle(tx, write, 'refused', `read back: ${now.status}`);
          await queue.setRefundReason(tx, order.id, null);
          await refunds.cancelUnasked(tx, order.id);
          await voidOutcome(tx, order.id, 'installed before its refund');
          await orders.move(tx, order.id, 'delivered', 'refund_refused: installed');
        });
        await refreshEsims(partner, esims, [tranNo]).catch(() => undefined);
        return true;
      }
      how = 'read back: cancelled';
    }
    await lease.write(async (tx) => {
      await partnerWrites.settle(tx, write, 'applied', how);
      await esims.setStatus(tx, tranNo, 'cancelled');
    });
    return false;
  }

  /**
   * Before a replacement is ordered: the eSIM it replaces, when never downloaded, is cancelled at
   * the partner (which refunds us for it), settled by reading as every cancel is. Installed
   * meanwhile, it is the buyer's still, and the replacement goes ahead at our cost all the same.
   */
  async function releaseReplaced(lease: Lease, order: OrderRow, replaces: string): Promise<void> {
    const old = await fresh(replaces);
    const esim = await esims.ofOrder(db, old.id);
    if (!esim || esim.status !== 'ready' || esim.installed) return;
    if (await cancelAtPartner(lease, old))
      await lease.write((tx) =>
        tx.query('INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, $2, $2, $3)', [
          order.id,
          'paid',
          `replaced eSIM ${esim.esim_tran_no} was installed meanwhile: not cancelled`,
        ]),
      );
  }

  /**
   * A replacement that could not be delivered (nothing was paid for it): the order it replaces,
   * whose eSIM is cancelled or deleted, is refunded instead, with its refund e-mail; the
   * replacement ends refunded of nothing.
   */
  async function replacementFailed(lease: Lease, order: OrderRow, old: string): Promise<void> {
    await lease.write(async (tx) => {
      // The purchase was replaced; now it is refunded instead (the one change an outcome allows).
      await decideOutcome(tx, { orderId: old, outcome: 'refunded', askedBy: 'system', cause: `replacement_failed: ${order.id}` });
      if (await orders.move(tx, old, 'refund_requested', `replacement_failed: ${order.id}`))
        await queue.refundRequested(tx, old, 'not_delivered');
      await orders.move(tx, order.id, 'refunded', `replacement_failed: ${old} refunded instead`);
    });
    void run(old);
  }

  /**
   * Before an undelivered order is refunded: an eSIM the partner allocated for it after all (a
   * lost answer, an allocation that came late) is cancelled, so no paid eSIM stays at the partner
   * that no buyer receives. The buyer's refund never waits on it: what cannot be settled now stays
   * an unsettled partner write, which the audit shows.
   */
  async function releaseUndelivered(lease: Lease, order: OrderRow): Promise<void> {
    if (order.kind !== 'esim') return;
    try {
      const earlier = await partnerWrites.unsettled(db, order.id, 'esim/order');
      const partnerOrderNo = order.partner_order_no ?? (earlier ? await partner.findOrder(order.id, earlier.sent_at) : undefined);
      if (earlier)
        await lease.write((tx) =>
          partnerWrites.settle(tx, earlier.id, partnerOrderNo ? 'applied' : 'refused', `read back: ${partnerOrderNo ?? 'no order'}`),
        );
      if (!partnerOrderNo) return;
      const answer = await partner.queryProfiles({ partnerOrderNo });
      // Only this order's own eSIMs: a partner order number can point elsewhere (the partner's mistake or ours).
      const own = answer.status === 'ready' ? answer.profiles.filter((p) => p.transactionId === order.id && p.status !== 'cancelled') : [];
      for (const profile of own) {
        const write = await lease.write((tx) =>
          partnerWrites.record(tx, { orderId: order.id, call: 'esim/cancel', esimTranNo: profile.esimTranNo }),
        );
        await partner.cancelProfile(profile.esimTranNo).catch(async (error: unknown) => {
          if ((await partnerEsim(profile.esimTranNo)).status !== 'cancelled') throw error;
        });
        await lease.write((tx) => partnerWrites.settle(tx, write, 'applied', 'undelivered eSIM cancelled'));
      }
    } catch (error) {
      if (error instanceof LeaseLost) throw error;
      console.error(
        'fulfilment: an undelivered eSIM could not be released; refunding the buyer all the same',
        order.id,
        error instanceof Error ? error.message : error,
      );
    }
  }

  /** One refund row at Stripe under this claim (refunds/settle.ts has its state model). */
  const settle = (lease: Lease, id: string) =>
    settleRefund(
      { db, stripe, write: (work) => lease.write(work), check: () => lease.check(), retryDelaysMs: delays, pollMs: refundPollMs },
      id,
    );

  /**
   * The order refunded as a whole (fulfilment_failed, refund_requested): what is left of its
   * payment is refunded through a row of its own (the refund command's, or the shop's, made here),
   * every open row of the order is carried at Stripe, and the order is called refunded only once
   * Stripe says all of them succeeded and together they give back what was paid; then the refund
   * e-mail, once (a refund that fails late reopens the order: stripe-webhook.ts, and it is asked
   * again without a second e-mail). Answers 'refunded' once the order is refunded, else when to look again.
   */
  async function refund(
    lease: Lease,
    order: OrderRow,
    reason: NonNullable<OrderRow['refund_reason']>,
  ): Promise<'refunded' | { retryInMs: number }> {
    const payment = await refunds.paidPayment(db, order.id);
    if (!payment?.payment_intent_id) throw new Error(`order ${order.id}: no payment to refund`);
    // Why the order is refunded as a whole (the refund e-mail's words, and what makes it owed): a
    // delivery that ran out of tries enters fulfilment_failed with none yet.
    if (!order.refund_reason) await lease.write((tx) => queue.setRefundReason(tx, order.id, reason));
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
      const settled = await settle(lease, row.id);
      if (settled.retryInMs !== undefined) retryInMs = Math.min(retryInMs ?? Infinity, settled.retryInMs);
    }
    if (retryInMs !== undefined) return { retryInMs };
    const rows = await refunds.refundsOf(db, order.id);
    const back = rows.filter((r) => r.status === 'succeeded');
    if (back.reduce((sum, r) => sum + r.amount_minor, 0) < payment.amount_minor) return { retryInMs: 0 };
    await lease.write(async (tx) => {
      // The refund e-mail goes once: not again after a refund that failed late and was asked again.
      await queue.oweRefundEmail(tx, order.id);
      await orders.move(tx, order.id, 'refunded', `stripe:refund ${back.map((r) => r.stripe_refund_id).join(' ')}`);
    });
    return 'refunded';
  }

  /**
   * The refunds of an order that is not being refunded as a whole (an operator's, part of the
   * payment), carried at Stripe after its own step. Their failures never count against the
   * order's delivery (whose failed tries end in a refund): they are logged and looked at again.
   * Answers when to look again, or undefined when none is open.
   */
  async function settleAside(lease: Lease, order: OrderRow): Promise<number | undefined> {
    if (order.state === 'fulfilment_failed' || order.state === 'refund_requested') return undefined;
    let retryInMs: number | undefined;
    for (const row of await refunds.refundsOf(db, order.id)) {
      if (!refunds.OPEN_STATUSES.includes(row.status)) continue;
      const wait = await settle(lease, row.id).then(
        (settled) => settled.retryInMs,
        (error: unknown) => {
          if (error instanceof LeaseLost) throw error;
          console.error('fulfilment: refund will be asked again', row.id, error instanceof Error ? error.message : error);
          return delays[Math.min(row.failures + 1, delays.length) - 1]!;
        },
      );
      if (wait !== undefined) retryInMs = Math.min(retryInMs ?? Infinity, wait);
    }
    return retryInMs;
  }

  /** A failure the same call cannot fix by being tried again: the order goes straight to its refund. */
  const hopeless = (error: unknown) =>
    refused(error) &&
    (error.kind === 'not_found' ||
      error.kind === 'price_changed' ||
      error.kind === 'insufficient_balance' ||
      (error.call === 'esim/topup' && error.kind === 'not_allowed'));

  /** How long until the order's delivery promise runs out (negative once it has). */
  async function deliveryPromiseLeft(id: string): Promise<number> {
    const payment = await refunds.paidPayment(db, id);
    return payment ? payment.paid_at.getTime() + deliveryPromiseMs - Date.now() : Infinity;
  }

  async function runOnce(id: string): Promise<void> {
    const lease = await claimOrder(db, id, leaseMs);
    if (!lease) return;
    let outcome: Outcome;
    try {
      outcome = await step(lease);
    } catch (error) {
      if (error instanceof LeaseLost) {
        console.error('fulfilment: another worker took over', id);
        return lease.release({ kind: 'unchanged' });
      }
      // The message names the call and the partner's code, never an activation code (PartnerError, MailError).
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      // Every step's failures count against one limit; a delivery that reaches it is refunded.
      const attempts = lease.order.attempts + 1;
      const state = (await fresh(id)).state;
      const delivering = state === 'paid' || state === 'provisioning';
      // The promised time counts from the payment: a try left for after it is made at it instead.
      const promiseLeftMs = delivering ? await deliveryPromiseLeft(id) : Infinity;
      if (delivering && (attempts >= delays.length || hopeless(error) || promiseLeftMs <= 0)) {
        console.error('fulfilment: giving up, refunding', id, text);
        // Our prepaid balance at the partner ran dry: this buyer is refunded at once, and selling stops until it is topped up.
        const outOfBalance = refused(error) && error.kind === 'insufficient_balance';
        const moved = await lease
          .write(async (tx) => {
            await queue.giveUp(tx, id, text);
            if (outOfBalance) {
              await queue.setRefundReason(tx, id, 'out_of_balance');
              await pauseSales(tx, lease.order.wholesale_usd_e4);
            }
            return orders.move(
              tx,
              id,
              'fulfilment_failed',
              outOfBalance
                ? 'partner_out_of_balance'
                : promiseLeftMs <= 0
                  ? `delivery_promise_missed after ${attempts} tries`
                  : `retries_exhausted after ${attempts} tries`,
            );
          })
          .catch(() => false);
        await lease.release({ kind: 'unchanged' });
        // The refund follows at once (and is itself retried if it fails).
        if (moved) return runOnce(id);
        return;
      }
      console.error('fulfilment: will try again', id, `try ${attempts}`, text);
      const waitMs = Math.min(delays[Math.min(attempts, delays.length) - 1]!, promiseLeftMs);
      return lease.release({ kind: 'retry', attempts, error: text, inMs: waitMs });
    }
    await lease.release(outcome === 'done' ? { kind: 'done' } : { kind: 'look_again', inMs: outcome.retryInMs });
  }

  /**
   * Moves an order as far as it can now. Calls for the same order while one runs are folded
   * into one more run after it (a webhook that arrives mid-run is not lost).
   */
  function run(id: string): Promise<void> {
    const current = running.get(id);
    if (current) {
      again.add(id);
      return current;
    }
    const work = (async () => {
      try {
        do {
          again.delete(id);
          await runOnce(id);
        } while (again.has(id));
      } catch (error) {
        // The database itself failed: the order stays due, and the job tries it again.
        console.error('fulfilment: run failed', id, error instanceof Error ? error.message : error);
      } finally {
        running.delete(id);
      }
    })();
    running.set(id, work);
    return work;
  }

  /** The reconcile job's part: every order that is due (paid but not delivered, owed a refund or an e-mail). */
  async function runDue(limit = 50): Promise<number> {
    const due = await queue.due(db, limit);
    // One at a time: the partner allows 8 requests a second. (run never rejects: it logs.)
    for (const id of due) await run(id);
    return due.length;
  }

  /** The one refund command (refunds/refund-command.ts): a row, then this order's run asks Stripe. */
  const { requestRefund } = createRefundCommand({ db, run });

  /** Waits for the runs under way (a server stopping, a test). */
  const settled = () => Promise.allSettled([...running.values()]).then(() => undefined);

  return { run, runDue, requestRefund, settled };
}

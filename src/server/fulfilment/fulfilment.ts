import type Stripe from 'stripe';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Db, Queryable } from '../db/db.ts';
import { refreshEsims } from '../esims/refresh.ts';
import { createEsimStore } from '../esims/store.ts';
import type { Mailer } from '../mail/mailer.ts';
import { orderEmail, refundEmail, topUpEmail, type MailOrder, type RefundReason } from '../mail/order-email.ts';
import { createOrderStore, orderNumber, type OrderRow } from '../orders/store.ts';
import { PartnerError, type EsimPartner } from '../partner/partner.ts';
import { refundPayment } from '../payments/stripe.ts';

/**
 * Delivery (DESIGN 6): every paid order ends delivered or refunded. One step function moves an
 * order as far as it can now: paid → provisioning → the partner's order (our id as its
 * transactionId, so a retry never buys twice) → its profile → delivered → the order e-mail, once;
 * or, when the retries run out, fulfilment_failed → a Stripe refund → refunded → the refund e-mail.
 * Whatever fails is tried again later by the reconcile job, with backoff. The payment webhook,
 * the partner's webhook, the refund button and the job all call the same `run`.
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
}

/** About two hours of tries before a buyer gets their money back. */
export const RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];
/** The partner allocates within 30 s (DESIGN 6); an order still allocating after this counts its polls as failed tries. */
const ALLOCATION_LIMIT_MS = 10 * 60_000;
/** Whoever works on an order holds it this long at most (a crashed process's hold runs out). */
const LOCK_MS = 60_000;
/** eSIM Access names an eSIM's top-up package after its base package. */
const topUpCode = (partnerCode: string) => `TOPUP_${partnerCode}`;

/** What a try that did not fail leaves: nothing to do, or a look again soon (the partner is still allocating). */
type Outcome = { retryInMs: number } | 'done';

export function createFulfilment(options: FulfilmentOptions) {
  const { db, partner, stripe, mailer } = options;
  const orders = createOrderStore(db);
  const esims = createEsimStore(db);
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const allocationPollMs = options.allocationPollMs ?? 3_000;
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();

  const moveNow = (id: string, to: OrderRow['state'], cause: string) => db.transaction((tx) => orders.move(tx, id, to, cause));
  const fresh = async (id: string) => (await orders.byId(db, id))!;

  /** One try: moves the order as far as it can; throws what should be tried again. */
  async function step(id: string): Promise<Outcome> {
    for (;;) {
      const order = await fresh(id);
      switch (order.state) {
        case 'paid':
          // A buyer who deleted their account can no longer see an eSIM: give the money back.
          if (order.uid === null) await moveNow(id, 'fulfilment_failed', 'account_deleted');
          else await moveNow(id, 'provisioning', 'fulfilment_started');
          continue;
        case 'provisioning': {
          const delivered = order.kind === 'top_up' ? await topUp(order) : await provision(order);
          if (!delivered) return { retryInMs: allocationPollMs };
          continue;
        }
        case 'delivered':
          if (order.email_sent_at) return 'done';
          await sendOrderEmail(order);
          return 'done';
        case 'refund_requested': {
          const esim = await esims.ofOrder(db, id);
          if (esim && esim.status !== 'cancelled') {
            try {
              await partner.cancelProfile(esim.esim_tran_no);
            } catch (error) {
              // Installed in the meantime: not refundable (terms), so the eSIM stays the buyer's.
              if (!(error instanceof PartnerError && error.kind === 'not_allowed')) throw error;
              await db.query('UPDATE orders SET refund_reason = NULL WHERE id = $1', [id]);
              await moveNow(id, 'delivered', 'refund_refused: installed');
              await refreshEsims(partner, esims, [esim.esim_tran_no]).catch(() => undefined);
              return 'done';
            }
            await esims.setStatus(db, esim.esim_tran_no, 'cancelled');
          }
          await refund(order, 'requested');
          continue;
        }
        case 'fulfilment_failed':
          await refund(order, 'not_delivered');
          continue;
        case 'refunded':
          if (order.refund_reason && !order.email_sent_at) await sendRefundEmail(order, order.refund_reason);
          return 'done';
        default:
          return 'done';
      }
    }
  }

  /** Orders the eSIM (once: the partner keeps one order per transactionId) and stores its profile once allocated. */
  async function provision(order: OrderRow): Promise<boolean> {
    let partnerOrderNo = order.partner_order_no;
    if (!partnerOrderNo) {
      ({ partnerOrderNo } = await partner.orderEsim({ transactionId: order.id, partnerCode: order.partner_code, count: 1 }));
      await db.query('UPDATE orders SET partner_order_no = $2, updated_at = now() WHERE id = $1', [order.id, partnerOrderNo]);
    }
    const answer = await partner.queryProfiles({ partnerOrderNo });
    if (answer.status === 'allocating' || answer.profiles.length === 0) {
      // Allocation takes up to 30 s; much longer counts as a failed try, so the order ends refunded if it never comes.
      // (updated_at is when the partner order was recorded: nothing else changes the order meanwhile.)
      if (order.partner_order_no && Date.now() - order.updated_at.getTime() > ALLOCATION_LIMIT_MS) throw new Error(`${partnerOrderNo}: not allocated within ${ALLOCATION_LIMIT_MS / 60_000} minutes`);
      return false;
    }
    await db.transaction(async (tx) => {
      await esims.saveProfiles(tx, order.id, answer.profiles.slice(0, 1));
      await orders.move(tx, order.id, 'delivered', `partner:${partnerOrderNo}`);
    });
    return true;
  }

  /** Adds the plan's data and days to the buyer's eSIM (the partner keeps one top-up per transactionId). */
  async function topUp(order: OrderRow): Promise<boolean> {
    const esim = await esims.ofOrder(db, order.top_up_of!);
    if (!esim) throw new Error(`top-up ${order.id}: its eSIM is not delivered`);
    const result = await partner.topUp({ esimTranNo: esim.esim_tran_no, partnerCode: topUpCode(order.partner_code), transactionId: order.id });
    await db.transaction(async (tx) => {
      await esims.recordTopUp(tx, esim.esim_tran_no, result);
      await orders.move(tx, order.id, 'delivered', `partner:topup ${esim.esim_tran_no}`);
    });
    return true;
  }

  /** Refunds the order's payment in full (one refund per order: Stripe's idempotency key is the order id). */
  async function refund(order: OrderRow, reason: RefundReason): Promise<void> {
    const [payment] = await db.query<{ payment_intent_id: string | null; amount_minor: number }>(
      `SELECT payment_intent_id, amount_minor FROM payments WHERE order_id = $1 AND status = 'paid' ORDER BY id DESC LIMIT 1`,
      [order.id],
    );
    if (!payment?.payment_intent_id) throw new Error(`order ${order.id}: no payment to refund`);
    const refunded = await refundPayment(stripe, { orderId: order.id, paymentIntentId: payment.payment_intent_id, amountMinor: payment.amount_minor, reason });
    await db.transaction(async (tx) => {
      await tx.query('UPDATE orders SET refund_id = $2, refund_reason = $3, email_sent_at = NULL WHERE id = $1', [order.id, refunded.id, reason]);
      await orders.move(tx, order.id, 'refunded', `stripe:refund ${refunded.id}`);
    });
  }

  async function markEmailSent(tx: Queryable, id: string) {
    await tx.query('UPDATE orders SET email_sent_at = now() WHERE id = $1', [id]);
  }

  /** The order as its e-mails tell it. */
  const mailOrder = (order: OrderRow, lang: Locale): MailOrder => ({
    number: orderNumber(order),
    createdAt: order.created_at,
    total: { amountMinor: order.amount_minor, currency: order.currency },
    plan: order.plan,
    destinationName: options.destinationName(order.destination, lang),
    termsVersion: order.terms_version,
    consentedAt: order.immediate_start_requested_at,
  });

  /** The confirmation on a durable medium (BGB § 312f): with the eSIM for a new one, with the way to My eSIMs for a top-up. */
  async function sendOrderEmail(order: OrderRow): Promise<void> {
    const lang = order.lang as Locale;
    // A detached order (the account was deleted) has nobody to write to.
    if (!order.email) return markEmailSent(db, order.id);
    const email =
      order.kind === 'top_up'
        ? topUpEmail({ lang, order: mailOrder(order, lang), myEsimsUrl: `${siteUrl}${localizePath(lang, '/my-esim')}`, siteName: options.siteName })
        : await newEsimEmail(order, lang);
    await mailer.send({ ...email, to: order.email });
    await markEmailSent(db, order.id);
  }

  /** A new eSIM's e-mail carries the eSIM itself: QR code, manual codes, install links. */
  async function newEsimEmail(order: OrderRow, lang: Locale) {
    const esim = (await esims.ofOrder(db, order.id))!;
    return orderEmail({
      lang,
      order: mailOrder(order, lang),
      esim: { activationCode: esim.activation_code, smdpAddress: esim.smdp_address, matchingId: esim.matching_id },
      installGuideUrl: `${siteUrl}${localizePath(lang, '/install-esim')}`,
      siteName: options.siteName,
    });
  }

  async function sendRefundEmail(order: OrderRow, reason: RefundReason): Promise<void> {
    if (order.email) {
      const email = refundEmail({
        lang: order.lang as Locale,
        order: { number: orderNumber(order), total: { amountMinor: order.amount_minor, currency: order.currency } },
        reason,
        siteName: options.siteName,
      });
      await mailer.send({ ...email, to: order.email });
    }
    await markEmailSent(db, order.id);
  }

  /** Takes the order for this process for a while; undefined when another holds it. */
  async function claim(id: string): Promise<OrderRow | undefined> {
    const [row] = await db.query<OrderRow>(
      `UPDATE orders SET locked_until = now() + $2 * interval '1 millisecond'
       WHERE id = $1 AND (locked_until IS NULL OR locked_until < now()) RETURNING *`,
      [id, LOCK_MS],
    );
    return row;
  }

  /** A failure the same call cannot fix by being tried again: the order goes straight to its refund. */
  const hopeless = (error: unknown) => error instanceof PartnerError && error.kind === 'not_found';

  async function runOnce(id: string): Promise<void> {
    const claimed = await claim(id);
    if (!claimed) return;
    let outcome: Outcome;
    try {
      outcome = await step(id);
    } catch (error) {
      // The message names the call and the partner's code, never an activation code (PartnerError, MailError).
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const attempts = claimed.attempts + 1;
      const state = (await fresh(id)).state;
      const delivering = state === 'paid' || state === 'provisioning';
      if (delivering && (attempts >= delays.length || hopeless(error))) {
        console.error('fulfilment: giving up, refunding', id, text);
        await db.query('UPDATE orders SET attempts = 0, last_error = $2, locked_until = NULL, next_attempt_at = NULL WHERE id = $1', [id, text]);
        await moveNow(id, 'fulfilment_failed', `retries_exhausted after ${attempts} tries`);
        // The refund follows at once (and is itself retried if it fails).
        return runOnce(id);
      }
      console.error('fulfilment: will try again', id, `try ${attempts}`, text);
      await db.query(
        `UPDATE orders SET attempts = $2, last_error = $3, locked_until = NULL, next_attempt_at = now() + $4 * interval '1 millisecond' WHERE id = $1`,
        [id, attempts, text, delays[Math.min(attempts, delays.length) - 1]],
      );
      return;
    }
    if (outcome === 'done') await db.query('UPDATE orders SET locked_until = NULL, next_attempt_at = NULL, attempts = 0 WHERE id = $1', [id]);
    else await db.query(`UPDATE orders SET locked_until = NULL, next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`, [id, outcome.retryInMs]);
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

  /** The reconcile job: every order that is due (paid but not delivered, owed a refund or an e-mail). */
  async function reconcile(limit = 50): Promise<number> {
    const due = await db.query<{ id: string }>(
      `SELECT id FROM orders
       WHERE (state IN ('paid', 'provisioning', 'fulfilment_failed', 'refund_requested')
              OR (state = 'delivered' AND email_sent_at IS NULL)
              OR (state = 'refunded' AND refund_reason IS NOT NULL AND email_sent_at IS NULL))
         AND (next_attempt_at IS NULL OR next_attempt_at <= now())
         AND (locked_until IS NULL OR locked_until < now())
       ORDER BY next_attempt_at NULLS FIRST LIMIT $1`,
      [limit],
    );
    // One at a time: the partner allows 8 requests a second. (run never rejects: it logs.)
    for (const { id } of due) await run(id);
    return due.length;
  }

  /** The buyer's refund of a never-installed eSIM: recorded, then carried out at once. */
  async function requestRefund(id: string): Promise<boolean> {
    const moved = await db.transaction(async (tx) => {
      const ok = await orders.move(tx, id, 'refund_requested', 'buyer_requested');
      if (ok) await tx.query(`UPDATE orders SET refund_reason = 'requested', attempts = 0, next_attempt_at = NULL WHERE id = $1`, [id]);
      return ok;
    });
    if (moved) await run(id);
    return moved;
  }

  /** Waits for the runs under way (a server stopping, a test). */
  const settled = () => Promise.allSettled([...running.values()]).then(() => undefined);

  return { run, reconcile, requestRefund, settled };
}

export type Fulfilment = ReturnType<typeof createFulfilment>;

/** The reconcile job as a timer (locally; production calls POST /jobs/reconcile on a schedule). */
export function startReconciler(fulfilment: Fulfilment, everyMs: number): { stop: () => Promise<void> } {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    current = current.then(() => fulfilment.reconcile()).catch((error: unknown) => console.error('reconcile', error));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
      await fulfilment.settled();
    },
  };
}

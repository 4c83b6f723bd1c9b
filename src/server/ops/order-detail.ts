import { autoTopUpForOps } from '../auto-top-ups/ops-view.ts';
import type { OpsOrder } from '../../contract/ops-api.ts';
import type { Currency } from '../../config/currencies.ts';
import type { PerEuro } from '../../pricing/exchange-rates.ts';
import { includedVatMinor, pricingFor, wholesaleCostMinor } from '../../pricing/pricing.ts';
import type { Accounts } from '../auth.types.ts';
import type { Queryable } from '../db/db.types.ts';
import { createEsimStore } from '../esims/store.ts';
import type { EsimRow } from '../esims/store.types.ts';
import { orderSignals } from '../fraud/signals.ts';
import { signalText } from './signal-text.ts';
import { findOrder, summary, type OrderSummaryRow } from './order-search.ts';
import { linksOf } from '../orders/order-links.ts';
import { orderNumber } from '../orders/store.ts';
import { orderTimeline } from './timeline.ts';
import { jobByKey } from '../jobs/queue.ts';
import { orderJobKey } from '../jobs/order-jobs.ts';
import type { Partners } from '../partner/registry.types.ts';
import { convert, currencyOf, shareOf, type Charge, type Money } from './money.ts';

/** The buyer's account as the back office shows it: the accounts service's word, or 'deleted' for a detached order. */
export async function accountState(accounts: Accounts, uid: string | null): Promise<OpsOrder['buyer']['account']> {
  if (!uid) return 'deleted';
  try {
    const account = await accounts.find({ uid });
    return !account ? 'deleted' : account.disabled ? 'blocked' : 'active';
  } catch {
    return 'unknown';
  }
}

/** The eSIM an order bought or topped up: the eSIM store's read (its numbers and dates revived), by the eSIM's own order. */
export function esimOfOrder(db: Queryable, order: Pick<OrderSummaryRow, 'id' | 'top_up_of'>): Promise<EsimRow | undefined> {
  return createEsimStore(db).ofOrder(db, order.top_up_of ?? order.id);
}

/** An order's money as sold: its amount in its currency and the partner's wholesale price. */
export interface OrderMoneyRow {
  amount_minor: number;
  currency: string;
  wholesale_usd_e4: number;
}

/** The order's share of its charge's Stripe figures (shareOf), in the currency Stripe reported them in (the balance's, EUR). */
export interface StripeFigures {
  fee: Money | null;
  settled: Money | null;
}

/** The order's charge as Stripe booked it: what converts the order's amounts at Stripe's own rate (money.ts). */
export const chargeOf = (order: OrderMoneyRow, stripe: StripeFigures): Charge => ({
  charged: { amountMinor: order.amount_minor, currency: order.currency },
  settled: stripe.settled,
});

/**
 * What the shop kept of an order, in `currency` (the order's own unless told): retail without VAT,
 * less what was refunded (without VAT), less the wholesale price converted at the applied rates
 * (pricingFor, as the price was made), less Stripe's fee when known. Amounts in another currency
 * than `currency` are converted at the rate Stripe settled the charge at where it told us, else at
 * the applied rates (money.ts, convert).
 */
export function marginMinor(
  order: OrderMoneyRow,
  refundedMinor: number,
  stripe: StripeFigures,
  rates: PerEuro,
  currency: Currency = currencyOf(order.currency),
): number {
  const charge = chargeOf(order, stripe);
  const kept = convert({ amountMinor: order.amount_minor - refundedMinor, currency: order.currency }, currency, charge, rates).amountMinor;
  const fee = stripe.fee ? convert(stripe.fee, currency, charge, rates).amountMinor : 0;
  return Math.round(kept - includedVatMinor(kept) - wholesaleCostMinor(order.wholesale_usd_e4, pricingFor(currency, rates)) - fee);
}

/** A payment row's Stripe figures, the order's share of them: a cart's charge is recorded whole on each of its orders' payments. */
export function stripeFiguresOf(payment: {
  amount_minor: number;
  charge_total_minor: number | null;
  stripe_fee_minor: number | null;
  stripe_fee_currency: string | null;
  settled_amount_minor: number | null;
  settled_currency: string | null;
}): StripeFigures {
  const share = (figure: number) => shareOf(figure, payment.amount_minor, payment.charge_total_minor ?? payment.amount_minor);
  return {
    fee:
      payment.stripe_fee_minor === null || payment.stripe_fee_currency === null
        ? null
        : { amountMinor: share(payment.stripe_fee_minor), currency: payment.stripe_fee_currency },
    settled:
      payment.settled_amount_minor === null || payment.settled_currency === null
        ? null
        : { amountMinor: share(payment.settled_amount_minor), currency: payment.settled_currency },
  };
}

/**
 * The order's charge's figures with the amounts of the whole charge beside them: its paid payment
 * rows' sum by Checkout Session (a cart's orders' shares). SQL over `payments p`.
 */
export const CHARGE_TOTAL_SQL = `(SELECT sum(c.amount_minor) FROM payments c
  WHERE c.provider = p.provider AND c.checkout_session_id = p.checkout_session_id AND c.status = 'paid')::integer`;

export interface RefundRow {
  id: string;
  requested_by: 'buyer' | 'operator' | 'system';
  operator_uid: string | null;
  reason: string;
  amount_minor: number;
  currency: string;
  stripe_refund_id: string | null;
  status: string;
  created_at: Date;
}

interface PaymentRow {
  amount_minor: number;
  charge_total_minor: number | null;
  checkout_session_id: string | null;
  payment_intent_id: string | null;
  method_type: string | null;
  card_brand: string | null;
  card_last4: string | null;
  risk_level?: string | null;
  buyer_country?: string | null;
  stripe_fee_minor: number | null;
  stripe_fee_currency: string | null;
  settled_amount_minor: number | null;
  settled_currency: string | null;
}

/**
 * Everything the back office shows of one order (issue 30 item 3); undefined when there is no such
 * order. Its money in its own currency; `rates` are the catalogue's applied exchange rates, what the
 * wholesale price is converted at (as the price was made).
 */
export async function orderDetail(
  db: Queryable,
  accounts: Accounts,
  partners: Pick<Partners, 'nameOf'>,
  rates: PerEuro,
  id: string,
): Promise<OpsOrder | undefined> {
  const order = await findOrder(db, id);
  if (!order) return undefined;
  const [[payment], refunds, esim, timeline, account, signals, cartOrders, liveLinks, links, [traveller], job, autoTopUp] =
    await Promise.all([
      db.query<PaymentRow>(
        `SELECT p.*, ${CHARGE_TOTAL_SQL} AS charge_total_minor FROM payments p WHERE p.order_id = $1 AND p.status = 'paid' ORDER BY p.id DESC LIMIT 1`,
        [id],
      ),
      db.query<RefundRow>('SELECT * FROM refunds WHERE order_id = $1 ORDER BY created_at, id', [id]),
      esimOfOrder(db, order),
      orderTimeline(db, id),
      accountState(accounts, order.uid),
      orderSignals(db, id).then((found) => (found ?? []).map(signalText)),
      db.query<{ id: string; number: number; created_at: Date; state: string; plan_id: string; traveller_name: string | null }>(
        `SELECT o.id, o.number, o.created_at, o.state, o.plan_id, t.name AS traveller_name
       FROM orders o LEFT JOIN order_travellers t ON t.order_id = o.id WHERE o.cart_id = $1 AND o.id <> $2 ORDER BY o.number`,
        [order.cart_id, id],
      ),
      db.query<{ emailed_to: string | null }>('SELECT emailed_to FROM traveller_links WHERE order_id = $1 AND revoked_at IS NULL', [id]),
      linksOf(db, id),
      db.query<{ name: string | null; email: string | null }>('SELECT name, email FROM order_travellers WHERE order_id = $1', [id]),
      jobByKey(db, orderJobKey(id)),
      order.kind === 'esim' ? autoTopUpForOps(db, id) : null,
    ]);
  const refunded = refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount_minor, 0);
  const money = (amountMinor: number) => ({ amountMinor, currency: order.currency });
  const stripe: StripeFigures = payment ? stripeFiguresOf(payment) : { fee: null, settled: null };
  const currency = currencyOf(order.currency);
  const method = payment
    ? [payment.method_type, payment.card_brand, payment.card_last4 && `•••• ${payment.card_last4}`].filter(Boolean).join(' ')
    : null;
  return {
    order: {
      ...summary({ ...order, attention: [...order.attention, ...signals] }, partners),
      lang: order.lang,
      planId: order.plan_id,
      partnerOrderNo: order.partner_order_no,
      topUpOf: order.top_up_of,
      exchangeOf: links.exchange_of,
      replaces: links.replaces,
      replacedBy: links.replaced_by,
      cartOrders: cartOrders.map((o) => ({
        id: o.id,
        number: orderNumber(o),
        state: o.state,
        planId: o.plan_id,
        travellerName: o.traveller_name,
      })),
      traveller: traveller?.name ? { name: traveller.name, email: traveller.email, linkLive: liveLinks.length > 0 } : null,
      lastError: job?.last_error ?? null,
      job: job ? { kind: job.kind, state: job.state, attempts: job.attempts, runAt: job.run_at.toISOString() } : null,
      held: order.attention.includes('held'),
    },
    buyer: { uid: order.uid, email: order.email, account },
    money: {
      retail: money(order.amount_minor),
      vat: money(includedVatMinor(order.amount_minor)),
      wholesaleUsd: order.wholesale_usd_e4 / 10_000,
      wholesale: money(Math.round(wholesaleCostMinor(order.wholesale_usd_e4, pricingFor(currency, rates)))),
      stripeFee: stripe.fee,
      settled: stripe.settled,
      margin: money(marginMinor(order, refunded, stripe, rates, currency)),
      refunded: money(refunded),
    },
    payment: payment
      ? {
          method: method || null,
          checkoutSessionId: payment.checkout_session_id,
          paymentIntentId: payment.payment_intent_id,
          riskLevel: payment.risk_level ?? null,
          country: payment.buyer_country ?? null,
        }
      : null,
    esim: esim
      ? {
          iccid: esim.iccid,
          esimTranNo: esim.esim_tran_no,
          installStep: esim.install_step,
          status: esim.status,
          usedBytes: Number(esim.used_bytes),
          totalBytes: Number(esim.total_bytes),
          expiresAt: esim.expires_at ? new Date(esim.expires_at).toISOString() : null,
          readAt: esim.usage_checked_at ? new Date(esim.usage_checked_at).toISOString() : null,
        }
      : null,
    signals,
    autoTopUp,
    refunds: refunds.map((r) => ({
      id: String(r.id),
      requestedBy: r.requested_by,
      operator: r.operator_uid,
      reason: r.reason,
      amount: { amountMinor: r.amount_minor, currency: r.currency },
      status: r.status,
      stripeRefundId: r.stripe_refund_id,
      createdAt: new Date(r.created_at).toISOString(),
    })),
    timeline,
  };
}

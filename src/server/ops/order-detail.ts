import type { OpsOrder } from '../../contract/ops-api.ts';
import { PRICING } from '../../config/pricing.ts';
import { includedVatMinor, wholesaleCostMinor } from '../../pricing/pricing.ts';
import type { Accounts } from '../auth.ts';
import type { Queryable } from '../db/db.ts';
import { createEsimStore } from '../esims/store.ts';
import type { EsimRow } from '../esims/store.ts';
import { orderSignals } from '../fraud/signals.ts';
import { signalText } from './signal-text.ts';
import { findOrder, summary, type OrderSummaryRow } from './order-search.ts';
import { orderNumber } from '../orders/store.ts';
import { orderTimeline } from './timeline.ts';

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

/** What the shop kept of an order: retail without VAT, less what was refunded (without VAT), less the wholesale price, less Stripe's fee when known. */
export function marginMinor(
  order: { amount_minor: number; wholesale_usd_e4: number },
  refundedMinor: number,
  stripeFeeMinor: number | null,
): number {
  const kept = order.amount_minor - refundedMinor;
  return Math.round(kept - includedVatMinor(kept) - wholesaleCostMinor(order.wholesale_usd_e4, PRICING) - (stripeFeeMinor ?? 0));
}

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
  checkout_session_id: string;
  payment_intent_id: string | null;
  method_type: string | null;
  card_brand: string | null;
  card_last4: string | null;
  risk_level?: string | null;
  buyer_country?: string | null;
  stripe_fee_minor?: number | null;
}

/** Everything the back office shows of one order (issue 30 item 3); undefined when there is no such order. */
export async function orderDetail(db: Queryable, accounts: Accounts, id: string): Promise<OpsOrder | undefined> {
  const order = await findOrder(db, id);
  if (!order) return undefined;
  const [[payment], refunds, esim, timeline, account, signals, cartOrders, liveLinks] = await Promise.all([
    db.query<PaymentRow>(`SELECT * FROM payments WHERE order_id = $1 AND status = 'paid' ORDER BY id DESC LIMIT 1`, [id]),
    db.query<RefundRow>('SELECT * FROM refunds WHERE order_id = $1 ORDER BY created_at, id', [id]),
    esimOfOrder(db, order),
    orderTimeline(db, id),
    accountState(accounts, order.uid),
    orderSignals(db, id).then((found) => (found ?? []).map(signalText)),
    db.query<{ id: string; number: number; created_at: Date; state: string; plan_id: string; traveller_name: string | null }>(
      'SELECT id, number, created_at, state, plan_id, traveller_name FROM orders WHERE cart_id = $1 AND id <> $2 ORDER BY number',
      [order.cart_id, id],
    ),
    db.query<{ emailed_to: string | null }>('SELECT emailed_to FROM traveller_links WHERE order_id = $1 AND revoked_at IS NULL', [id]),
  ]);
  const refunded = refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount_minor, 0);
  const money = (amountMinor: number) => ({ amountMinor, currency: order.currency });
  const method = payment
    ? [payment.method_type, payment.card_brand, payment.card_last4 && `•••• ${payment.card_last4}`].filter(Boolean).join(' ')
    : null;
  return {
    order: {
      ...summary({ ...order, attention: [...order.attention, ...signals] }),
      lang: order.lang,
      planId: order.plan_id,
      partnerOrderNo: order.partner_order_no,
      topUpOf: order.top_up_of,
      exchangeOf: order.exchange_of,
      replaces: order.replaces,
      replacedBy: order.replaced_by,
      cartOrders: cartOrders.map((o) => ({
        id: o.id,
        number: orderNumber(o),
        state: o.state,
        planId: o.plan_id,
        travellerName: o.traveller_name,
      })),
      traveller: order.traveller_name ? { name: order.traveller_name, email: order.traveller_email, linkLive: liveLinks.length > 0 } : null,
      lastError: order.last_error,
      held: (order as { hold?: string | null }).hold === 'held',
    },
    buyer: { uid: order.uid, email: order.email, account },
    money: {
      retail: money(order.amount_minor),
      vat: money(includedVatMinor(order.amount_minor)),
      wholesaleUsd: order.wholesale_usd_e4 / 10_000,
      margin: money(marginMinor(order, refunded, payment?.stripe_fee_minor ?? null)),
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

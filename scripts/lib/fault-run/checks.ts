import type Stripe from 'stripe';
import type { EsimAccessStandIn } from '../../../stand-ins/esim-access/server.ts';
import type { SmtpStandIn } from '../../../stand-ins/smtp/server.ts';
import type { StripeStandIn } from '../../../stand-ins/stripe/server.ts';
import type { Db } from '../../../src/server/db/db.ts';
import { orderNumber } from '../../../src/server/orders/store.ts';
import type { EsimPartner } from '../../../src/server/partner/partner.ts';

/**
 * The fault-injection run's cross-checks against the stand-ins, after the order audit: what the
 * shop's database says must agree with what Stripe and the partner did, since the database alone
 * cannot show an eSIM allocated twice or a refund nobody recorded. Each check answers the
 * breaches it found, one line each.
 */
export interface CrossCheck {
  name: string;
  description: string;
  breaches: string[];
}

interface OrderRow {
  id: string;
  number: number;
  created_at: Date;
  kind: 'esim' | 'top_up';
  state: string;
  top_up_of: string | null;
  partner_code: string;
  amount_minor: number;
  refund_id: string | null;
  refund_reason: string | null;
  email_sent_at: Date | null;
  email: string | null;
  checkout_session_id: string | null;
}

export async function crossCheck(deps: {
  db: Db;
  stripe: Stripe;
  stripeStandIn: StripeStandIn;
  partnerStandIn: EsimAccessStandIn;
  /** The partner read directly (not through the fault proxy). */
  partner: EsimPartner;
  smtp: SmtpStandIn;
}): Promise<CrossCheck[]> {
  const { db, stripe, stripeStandIn, partnerStandIn, partner, smtp } = deps;
  const orders = await db.query<OrderRow>(
    `SELECT id, number, created_at, kind, state, top_up_of, partner_code, amount_minor, refund_reason, email_sent_at, email, checkout_session_id,
       (SELECT string_agg(r.stripe_refund_id, ' ') FROM refunds r WHERE r.order_id = orders.id AND r.status = 'succeeded') AS refund_id
     FROM orders`,
  );
  const byId = new Map(orders.map((o) => [o.id, o]));
  const esims = new Map(
    (await db.query<{ order_id: string; esim_tran_no: string }>('SELECT order_id, esim_tran_no FROM esims')).map((e) => [
      e.order_id,
      e.esim_tran_no,
    ]),
  );
  const name = (o: OrderRow) => `${orderNumber(o)} (${o.kind}, ${o.state}, ${o.id})`;

  // What Stripe took: each completed Checkout Session, by the order it names.
  const sessions = new Map<string, { sessionId: string; intent: string; amount: number }[]>();
  for (const { event } of stripeStandIn.events) {
    if (event.type !== 'checkout.session.completed') continue;
    const session = event.data.object;
    const orderId = String(session.client_reference_id);
    const list = sessions.get(orderId) ?? [];
    if (!list.some((s) => s.sessionId === session.id))
      list.push({ sessionId: session.id, intent: String(session.payment_intent), amount: session.amount_total });
    sessions.set(orderId, list);
  }
  // And what it gave back, per payment intent, as the SDK lists it.
  const refunds = new Map<string, Stripe.Refund[]>();
  for (const list of sessions.values()) {
    // A refund that failed gave nothing back (Stripe then asks the shop to refund again): only the others count.
    for (const { intent } of list) {
      refunds.set(
        intent,
        (await stripe.refunds.list({ payment_intent: intent, limit: 100 })).data.filter(
          (r) => r.status !== 'failed' && r.status !== 'canceled',
        ),
      );
    }
  }

  const paidOnce: string[] = [];
  const chargedOnce: string[] = [];
  const refundedRight: string[] = [];
  for (const [orderId, list] of sessions) {
    const order = byId.get(orderId);
    if (!order) {
      paidOnce.push(`session ${list[0]!.sessionId} paid for ${orderId}, which is no order of ours`);
      continue;
    }
    if (list.length > 1) chargedOnce.push(`${name(order)}: charged ${list.length} times (${list.map((s) => s.sessionId).join(', ')})`);
    if (order.state !== 'delivered' && order.state !== 'refunded') {
      // What Stripe did about it: its events for the order, each with its delivery attempts.
      const sent = stripeStandIn.events
        .filter(({ event }) => String(event.data.object.client_reference_id) === orderId)
        .map(
          ({ event, attempts, delivered }) =>
            `${event.type} ${event.id} (session ${event.data.object.id}) ${delivered ? 'delivered' : 'NEVER delivered'} after ${attempts.length} attempts [${attempts.map((a) => `${new Date(a.at).toISOString().slice(11, 23)} ${a.status ?? a.error ?? 'no answer'}`).join(', ')}]`,
        );
      paidOnce.push(
        `${name(order)}: paid at Stripe (session ${list.map((s) => s.sessionId).join(', ')}; the order's session ${order.checkout_session_id ?? 'none'}), ended ${order.state}; Stripe's events: ${sent.join('; ') || 'none'}`,
      );
    }
    const given = list.flatMap((s) => refunds.get(s.intent) ?? []);
    const paid = list.reduce((sum, s) => sum + s.amount, 0);
    if (order.state === 'delivered' && given.length > 0)
      refundedRight.push(`${name(order)}: delivered, and also refunded ${given.map((r) => r.amount).join(' + ')}`);
    if (order.state === 'refunded') {
      if (given.length !== 1) refundedRight.push(`${name(order)}: refunded, with ${given.length} refunds at Stripe`);
      else if (given[0]!.amount !== paid) refundedRight.push(`${name(order)}: refunded ${given[0]!.amount} of ${paid} paid`);
      else if (given[0]!.id !== order.refund_id)
        refundedRight.push(`${name(order)}: Stripe's refund ${given[0]!.id}, the order names ${order.refund_id}`);
    }
  }
  for (const list of sessions.values()) {
    for (const { intent, amount } of list) {
      const given = refunds.get(intent) ?? [];
      const total = given.reduce((sum, r) => sum + r.amount, 0);
      if (given.length > 1 || total > amount) refundedRight.push(`payment ${intent}: ${given.length} refunds, ${total} of ${amount}`);
    }
  }
  // An order the shop thinks paid that Stripe never completed.
  for (const order of orders) {
    if (
      ['paid', 'provisioning', 'delivered', 'fulfilment_failed', 'refund_requested', 'refunded'].includes(order.state) &&
      !sessions.has(order.id)
    ) {
      paidOnce.push(`${name(order)}: no payment at Stripe`);
    }
  }

  // The partner: one eSIM per transactionId, each one an order of ours, delivered as stored or refunded and cancelled.
  const transactions = new Set<string>();
  for (const request of partnerStandIn.requests) {
    const body = request.body as { transactionId?: unknown } | undefined;
    if (request.call === 'esim/order' && typeof body?.transactionId === 'string') transactions.add(body.transactionId);
  }
  const oneEsim: string[] = [];
  const cancelled: string[] = [];
  const allocated = [...transactions].filter((id) => partnerStandIn.tranNoOfTransaction(id));
  if (partnerStandIn.esimCount !== allocated.length) {
    oneEsim.push(`the partner handed out ${partnerStandIn.esimCount} eSIMs for ${allocated.length} transactionIds`);
  }
  const statusAtPartner = async (tranNo: string) => {
    const answer = await partner.queryProfiles({ esimTranNo: tranNo });
    return answer.status === 'ready' ? answer.profiles.find((p) => p.esimTranNo === tranNo) : undefined;
  };
  for (const id of allocated) {
    const order = byId.get(id);
    const tranNo = partnerStandIn.tranNoOfTransaction(id)!;
    if (!order || order.kind !== 'esim') {
      oneEsim.push(`eSIM ${tranNo} allocated for transactionId ${id}, which is no eSIM order of ours`);
      continue;
    }
    if (order.state === 'delivered' && esims.get(id) !== tranNo)
      oneEsim.push(`${name(order)}: the partner allocated ${tranNo}, the shop stored ${esims.get(id) ?? 'none'}`);
    const profile = await statusAtPartner(tranNo);
    if (order.state === 'refunded' && profile?.status !== 'cancelled') {
      cancelled.push(
        `${name(order)}: refunded (${order.refund_reason ?? 'no reason'}), but its eSIM ${tranNo} is ${profile?.status ?? 'unknown'} at the partner`,
      );
    }
    if (order.state !== 'refunded' && profile?.status === 'cancelled')
      cancelled.push(`${name(order)}: eSIM ${tranNo} cancelled at the partner, order ${order.state}`);
  }
  for (const order of orders) {
    if (order.kind === 'esim' && order.state === 'delivered' && !partnerStandIn.tranNoOfTransaction(order.id))
      oneEsim.push(`${name(order)}: delivered, but the partner has no eSIM for it`);
  }

  // Top-ups: applied once when delivered, never when not; the eSIM's data is its plan plus the top-ups delivered.
  const topUps: string[] = [];
  const volumeOf = (partnerCode: string) =>
    [...partnerStandIn.packages, ...partnerStandIn.topUpPackages].find((p) => p.packageCode === partnerCode)?.volume ?? NaN;
  const topped = new Map<string, OrderRow[]>();
  for (const order of orders) {
    if (order.kind !== 'top_up') continue;
    const applied = partnerStandIn.topUpsApplied(order.id);
    if (applied > 1) topUps.push(`${name(order)}: applied ${applied} times at the partner`);
    if (order.state === 'delivered' && applied === 0) topUps.push(`${name(order)}: delivered, never applied at the partner`);
    if (order.state !== 'delivered' && applied > 0) topUps.push(`${name(order)}: applied at the partner, but ended ${order.state}`);
    topped.set(order.top_up_of!, [...(topped.get(order.top_up_of!) ?? []), order]);
  }
  for (const [esimOrderId, list] of topped) {
    const base = byId.get(esimOrderId)!;
    const tranNo = partnerStandIn.tranNoOfTransaction(esimOrderId);
    if (!tranNo) continue;
    const profile = await statusAtPartner(tranNo);
    const expected =
      volumeOf(base.partner_code) + list.filter((o) => o.state === 'delivered').reduce((sum, o) => sum + volumeOf(o.partner_code), 0);
    if (profile && profile.totalBytes !== expected)
      topUps.push(
        `${name(base)}: eSIM ${tranNo} has ${profile.totalBytes} bytes at the partner, its plan and delivered top-ups make ${expected}`,
      );
  }

  // E-mails: the order's (or the top-up's, or the refund's) e-mail reached the buyer.
  const mails: string[] = [];
  const subjects = smtp.messages.map((m) => `${m.to.join(',')} ${m.subject}`);
  for (const order of orders) {
    if (!order.email) continue;
    const owed =
      order.state === 'delivered' ||
      (order.state === 'refunded' && (order.refund_reason === 'requested' || order.refund_reason === 'not_delivered'));
    if (!owed) continue;
    const number = orderNumber(order);
    const sent = subjects.filter((s) => s.includes(order.email!) && s.includes(number)).length;
    if (sent === 0) mails.push(`${name(order)}: no e-mail reached ${order.email}`);
  }

  return [
    {
      name: 'paid_delivered_or_refunded',
      description: 'every order paid at Stripe ended delivered or refunded, and every order the shop holds paid was paid at Stripe',
      breaches: paidOnce,
    },
    { name: 'charged_once', description: 'no buyer was charged twice for one order', breaches: chargedOnce },
    {
      name: 'refunds_once_in_full',
      description:
        'a refunded order has exactly one refund of what was paid, a delivered one none; no payment refunded twice or beyond its amount',
      breaches: refundedRight,
    },
    {
      name: 'one_esim_per_transaction',
      description: 'the partner allocated at most one eSIM per transactionId, each for an eSIM order of ours, the one the shop stored',
      breaches: oneEsim,
    },
    {
      name: 'refund_cancels_esim',
      description: 'an eSIM refunded is cancelled at the partner (unless never allocated), and one cancelled is refunded',
      breaches: cancelled,
    },
    {
      name: 'top_up_applied_once',
      description:
        'a delivered top-up was applied exactly once at the partner, one not delivered never; the eSIM holds its plan plus the delivered top-ups',
      breaches: topUps,
    },
    {
      name: 'email_sent',
      description: "every delivered or refunded order's e-mail reached the buyer (the SMTP stand-in)",
      breaches: mails,
    },
  ];
}

/** E-mails the SMTP stand-in received more than once for one order and kind (a crash between sending and recording: at-least-once). */
export function duplicateEmails(smtp: SmtpStandIn): number {
  const seen = new Map<string, number>();
  for (const m of smtp.messages) seen.set(`${m.to.join(',')} ${m.subject}`, (seen.get(`${m.to.join(',')} ${m.subject}`) ?? 0) + 1);
  return [...seen.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
}

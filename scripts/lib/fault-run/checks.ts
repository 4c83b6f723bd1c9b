import type Stripe from 'stripe';
import type { SmtpStandIn } from '../../../stand-ins/smtp/server.ts';
import type { StripeStandIn } from '../../../stand-ins/stripe/server.ts';
import type { Db } from '../../../src/server/db/db.types.ts';
import { auditStripeRefunds } from '../../../src/server/orders/audit.ts';
import { orderNumber } from '../../../src/server/orders/store.ts';
import { PartnerError, profileOf } from '../../../src/server/partner/partner.ts';
import type { OperatorClick } from './buyers.ts';
import { esimsOfOrders, type RunPartner } from './partners.ts';

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
  kind: 'esim' | 'top_up' | 'auto';
  state: string;
  top_up_of: string | null;
  partner: string | null;
  partner_code: string;
  amount_minor: number;
  refund_reason: string | null;
  email: string | null;
  checkout_session_id: string | null;
  traveller_email: string | null;
  /** A replacement at our cost (nothing paid) names the order it replaces; an exchange the eSIM it exchanges. */
  replaces: string | null;
  exchange_of: string | null;
}

interface RefundRow {
  id: string;
  order_id: string;
  requested_by: 'buyer' | 'operator' | 'system';
  amount_minor: number;
  status: string;
  stripe_refund_id: string | null;
  idempotency_key: string;
}

export async function crossCheck(deps: {
  db: Db;
  stripe: Stripe;
  stripeStandIn: StripeStandIn;
  /** Every partner of the run: what its stand-in issued, read through its adapter directly (not through the fault proxy). */
  partners: readonly RunPartner[];
  smtp: SmtpStandIn;
  /** The operator's refund clicks (buyers.ts). */
  operatorClicks: readonly OperatorClick[];
}): Promise<CrossCheck[]> {
  const { db, stripe, stripeStandIn, partners, smtp } = deps;
  const orders = await db.query<OrderRow>(
    `SELECT o.id, o.number, o.created_at, o.kind, o.state, o.top_up_of, os.partner, os.partner_code, o.amount_minor, r.reason AS refund_reason,
       o.email, c.checkout_session_id, t.email AS traveller_email,
       (SELECT x.of_order_id FROM order_links x WHERE x.order_id = o.id AND x.link = 'replacement') AS replaces,
       (SELECT x.of_order_id FROM order_links x WHERE x.order_id = o.id AND x.link = 'exchange') AS exchange_of
     FROM orders o LEFT JOIN order_checkouts c ON c.order_id = o.id LEFT JOIN order_travellers t ON t.order_id = o.id
       LEFT JOIN order_refund_reasons r ON r.order_id = o.id LEFT JOIN order_sourcing os ON os.order_id = o.id`,
  );
  const byId = new Map(orders.map((o) => [o.id, o]));
  // The shop's refunds, one row per refund asked (migration 0016).
  const refundRows = await db.query<RefundRow>(
    'SELECT id, order_id, requested_by, amount_minor, status, stripe_refund_id, idempotency_key FROM refunds ORDER BY created_at',
  );
  const rowsOf = (orderId: string) => refundRows.filter((r) => r.order_id === orderId);
  const reference = (r: Stripe.Refund) => r.metadata?.['reference'] ?? '';
  /** The row a Stripe refund was made for: it names the row (metadata.reference), or the row names it. */
  const rowOf = (r: Stripe.Refund) => refundRows.find((row) => row.id === reference(r) || row.stripe_refund_id === r.id);
  const esims = new Map(
    (await db.query<{ order_id: string; esim_tran_no: string }>('SELECT order_id, esim_tran_no FROM esims')).map((e) => [
      e.order_id,
      e.esim_tran_no,
    ]),
  );
  const name = (o: OrderRow) => `${orderNumber(o)} (${o.kind}, ${o.state}, ${o.id})`;

  // What Stripe took: each completed Checkout Session, by the order it names, or by each order of the
  // cart it names (issue 33), with that order's price as its share of the one payment; and each
  // automatic top-up's off-session charge (named "session" below as well: one payment of the order).
  const cartOrders = Map.groupBy(
    await db.query<{ id: string; cart_id: string; amount_minor: number }>(
      'SELECT id, cart_id, amount_minor FROM orders WHERE cart_id IS NOT NULL',
    ),
    (o) => o.cart_id,
  );
  const sessions = new Map<string, { sessionId: string; intent: string; amount: number; shared: boolean }[]>();
  /** Each payment once, with what it took in all. */
  const payments = new Map<string, number>();
  for (const { event } of stripeStandIn.events) {
    if (event.type !== 'checkout.session.completed') continue;
    const session = event.data.object;
    // A page that saved a card took no money.
    if (session.mode !== 'payment') continue;
    const cartId = (session.metadata as Record<string, string> | undefined)?.['cartId'];
    // A cart that is none of ours is named as such (no order matches it).
    const ofCart = cartId
      ? (cartOrders.get(cartId)?.map((o): [string, number] => [o.id, o.amount_minor]) ?? [[`cart ${cartId}`, session.amount_total]])
      : undefined;
    const payees: [string, number][] = ofCart ?? [[String(session.client_reference_id), session.amount_total]];
    payments.set(String(session.payment_intent), session.amount_total);
    for (const [orderId, amount] of payees) {
      const list = sessions.get(orderId) ?? [];
      if (!list.some((s) => s.sessionId === session.id))
        list.push({ sessionId: session.id, intent: String(session.payment_intent), amount, shared: cartId !== undefined });
      sessions.set(orderId, list);
    }
  }
  // Automatic top-ups (issue 49): each off-session payment intent that succeeded, by the order its metadata names.
  for (const intent of offSessionCharges(stripeStandIn)) {
    const orderId = String(intent.metadata['orderId']);
    payments.set(intent.id, intent.amount);
    const list = sessions.get(orderId) ?? [];
    if (!list.some((s) => s.intent === intent.id))
      list.push({ sessionId: intent.id, intent: intent.id, amount: intent.amount, shared: false });
    sessions.set(orderId, list);
  }
  // And what it gave back, per payment intent, as the SDK lists it.
  const refunds = new Map<string, Stripe.Refund[]>();
  const everyRefund: Stripe.Refund[] = [];
  for (const intent of payments.keys()) {
    // A refund that failed gave nothing back (Stripe then asks the shop to refund again): only the others count.
    const made = (await stripe.refunds.list({ payment_intent: intent, limit: 100 })).data;
    everyRefund.push(...made);
    refunds.set(
      intent,
      made.filter((r) => r.status !== 'failed' && r.status !== 'canceled'),
    );
  }

  const paidOnce: string[] = [];
  const chargedOnce: string[] = [];
  const refundedRight: string[] = [];
  /** Each paid order's payment (what Stripe took, less sessions given back whole) and the refunds Stripe made of it. */
  const money = new Map<string, { paid: number; given: Stripe.Refund[] }>();
  for (const [orderId, list] of sessions) {
    const order = byId.get(orderId);
    if (!order) {
      paidOnce.push(`session ${list[0]!.sessionId} paid for ${orderId}, which is no order of ours`);
      continue;
    }
    if (list.length > 1) chargedOnce.push(`${name(order)}: charged ${list.length} times (${list.map((s) => s.sessionId).join(', ')})`);
    // A session that did not match its order was given back whole (reference session:<id>); the rest are the order's refunds.
    const givenBack = (s: { sessionId: string; intent: string }) =>
      (refunds.get(s.intent) ?? []).some((r) => reference(r) === `session:${s.sessionId}`);
    // A cancelled order (its buyer blocked) paid on a page Stripe had not closed yet: the payment given back whole.
    const cancelledGivenBack = order.state === 'cancelled' && list.every(givenBack);
    if (order.state !== 'delivered' && order.state !== 'refunded' && !cancelledGivenBack) {
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
    const counted = list.filter((s) => !givenBack(s));
    // A cart's payment is shared: this order's refunds are those of its own rows.
    const given = counted.flatMap((s) => (refunds.get(s.intent) ?? []).filter((r) => !s.shared || rowOf(r)?.order_id === orderId));
    const paid = counted.reduce((sum, s) => sum + s.amount, 0);
    const total = given.reduce((sum, r) => sum + r.amount, 0);
    money.set(orderId, { paid, given });
    const rows = rowsOf(orderId);
    // Each refund at Stripe is one of the order's rows, of the row's amount; each row made at Stripe once.
    for (const r of given) {
      const row = rowOf(r);
      if (!row || row.order_id !== orderId)
        refundedRight.push(`${name(order)}: Stripe's refund ${r.id} of ${r.amount} is none of its refunds`);
      else if (r.amount !== row.amount_minor)
        refundedRight.push(`${name(order)}: Stripe's refund ${r.id} of ${r.amount}, its refund ${row.id} asked ${row.amount_minor}`);
    }
    for (const row of rows) {
      const made = given.filter((r) => reference(r) === row.id || r.id === row.stripe_refund_id);
      if (made.length > 1)
        refundedRight.push(`${name(order)}: refund ${row.id} made ${made.length} times at Stripe (${made.map((r) => r.id).join(', ')})`);
      if (row.status === 'succeeded' && !made.some((r) => r.id === row.stripe_refund_id && r.status === 'succeeded'))
        refundedRight.push(`${name(order)}: refund ${row.id} succeeded, but Stripe's ${row.stripe_refund_id ?? '(none named)'} did not`);
    }
    if (total > paid) refundedRight.push(`${name(order)}: refunded ${given.map((r) => r.amount).join(' + ')} of ${paid} paid`);
    if (order.state === 'refunded' && total !== paid)
      refundedRight.push(`${name(order)}: refunded, but ${total} of ${paid} paid given back`);
    // A delivered order keeps its eSIM: only an operator gives money back for it (a part, or all of it).
    const notOperators = given.filter((r) => rowOf(r)?.requested_by !== 'operator');
    if (order.state === 'delivered' && notOperators.length > 0)
      refundedRight.push(
        `${name(order)}: delivered, and also refunded ${notOperators.map((r) => r.amount).join(' + ')} not by an operator`,
      );
  }
  for (const [intent, amount] of payments) {
    const total = (refunds.get(intent) ?? []).reduce((sum, r) => sum + r.amount, 0);
    if (total > amount) refundedRight.push(`payment ${intent}: ${total} refunded of ${amount}`);
  }
  // Every refund Stripe made (failed ones too) is one the shop asked for: the audit's side of it.
  const strays = (await auditStripeRefunds(db, everyRefund)).map((f) => f.detail);

  // The operator's clicks: each made one refund, of what was asked, back at Stripe; a rest, the whole payment back.
  const operatorRefunds: string[] = [];
  for (const click of deps.operatorClicks) {
    const order = byId.get(click.orderId);
    const what = `the operator's refund of ${click.amountMinor ?? 'the rest'} (key ${click.idempotencyKey}, ${click.doubleClick ? 'double click, ' : ''}answered ${click.answers.join(' and ')})`;
    // The back office's key for the refund command (ops/order-actions.ts).
    const row = refundRows.find((r) => r.order_id === click.orderId && r.idempotency_key === `ops:${click.idempotencyKey}`);
    if (!order) operatorRefunds.push(`${what}: no order ${click.orderId}`);
    else if (!row) operatorRefunds.push(`${name(order)}: ${what} made no refund`);
    else {
      if (row.status !== 'succeeded') operatorRefunds.push(`${name(order)}: ${what}: refund ${row.id} ended ${row.status}`);
      if (click.amountMinor !== null && row.amount_minor !== click.amountMinor)
        operatorRefunds.push(`${name(order)}: ${what}: refund ${row.id} of ${row.amount_minor}`);
      const back = rowsOf(click.orderId)
        .filter((r) => r.status === 'succeeded')
        .reduce((sum, r) => sum + r.amount_minor, 0);
      if (click.amountMinor === null && back !== click.paidMinor)
        operatorRefunds.push(`${name(order)}: ${what}: ${back} of ${click.paidMinor} back in all`);
    }
  }
  // An order the shop thinks paid that Stripe never completed (a replacement at our cost is paid by nobody).
  for (const order of orders) {
    if (
      ['paid', 'provisioning', 'delivered', 'fulfilment_failed', 'refund_requested', 'refunded'].includes(order.state) &&
      !sessions.has(order.id) &&
      !(order.replaces && order.amount_minor === 0)
    ) {
      paidOnce.push(`${name(order)}: no payment at Stripe`);
    }
  }

  // The partners: one eSIM per order in all (never one at each after a failover), each for an eSIM
  // order of ours at the partner the order names, delivered as stored or refunded and cancelled; an
  // eSIM no order claims (eSIM Go's, bought by a transaction whose answer was lost) released.
  const oneEsim: string[] = [];
  const cancelled: string[] = [];
  const byOrder = await esimsOfOrders(partners);
  // Undefined: not listed, or gone from the partner's account (eSIM Go: released, or its label another order's).
  const statusAt = (partner: RunPartner, key: string) =>
    profileOf(partner.adapter, key).catch((error: unknown) => {
      if (error instanceof PartnerError && error.kind === 'not_found') return undefined;
      throw error;
    });
  const released = new Set(
    (await db.query<{ esim_key: string }>(`SELECT esim_key FROM partner_orphans WHERE outcome = 'released'`)).map((r) => r.esim_key),
  );
  for (const partner of partners) {
    const listed = await partner.esims();
    if (partner.issued !== listed.length) oneEsim.push(`${partner.id} issued ${partner.issued} eSIMs, ${listed.length} of them found`);
    for (const { orderId, key } of listed) {
      if (orderId) continue;
      const profile = await statusAt(partner, key);
      if (!released.has(key) || (profile && profile.status !== 'cancelled'))
        oneEsim.push(`${partner.id}: eSIM ${key} is no order's, and was not released (${profile?.status ?? 'gone'} at the partner)`);
    }
  }
  for (const [id, found] of byOrder) {
    const order = byId.get(id);
    const where = found.map((f) => `${f.partner.id} ${f.key}`).join(', ');
    if (!order || order.kind !== 'esim') {
      oneEsim.push(`eSIM ${where} issued for ${id}, which is no eSIM order of ours`);
      continue;
    }
    if (found.length > 1) oneEsim.push(`${name(order)}: ${found.length} eSIMs issued for it: ${where}`);
    for (const { partner, key } of found) {
      if (order.state === 'delivered' && (order.partner !== partner.id || esims.get(id) !== key))
        oneEsim.push(`${name(order)}: ${partner.id} issued ${key}, the shop stored ${order.partner ?? '-'} ${esims.get(id) ?? 'none'}`);
      const profile = await statusAt(partner, key);
      // Deleted from the phone before it carried data: refunded with nothing to cancel (the partner cancels only
      // what was never downloaded, and no phone can take it again; fulfilment.ts, cancelAtPartner).
      const deletedUnused = profile?.installStep === 'deleted' && profile.usedBytes === 0;
      if (order.state === 'refunded' && profile && profile.status !== 'cancelled' && !deletedUnused) {
        cancelled.push(
          `${name(order)}: refunded (${order.refund_reason ?? 'no reason'}), but its eSIM ${key} is ${profile.status} at ${partner.id}`,
        );
      }
      if (order.state !== 'refunded' && profile?.status === 'cancelled')
        cancelled.push(`${name(order)}: eSIM ${key} cancelled at ${partner.id}, order ${order.state}`);
    }
  }
  for (const order of orders) {
    if (order.kind === 'esim' && order.state === 'delivered' && !byOrder.has(order.id))
      oneEsim.push(`${name(order)}: delivered, but no partner issued an eSIM for it`);
  }

  // One outcome per purchase (issue 46): what Stripe gave back for each paid eSIM and whether the
  // partner holds a replacement of ours for it. A replacement the buyer holds (allocated at the
  // partner and not cancelled there, or delivered) and a refund that is not an operator's (the
  // buyer's, the exchange's, the shop's own) never both; a refund as exchanged only once an exchange
  // was delivered, and never beside another refund of the buyer's or the shop's; never more back than paid.
  const oneOutcome: string[] = [];
  const whyOf = (r: Stripe.Refund) => r.metadata?.['reason'] ?? rowOf(r)?.requested_by ?? 'unknown';
  for (const order of orders) {
    if (order.kind !== 'esim' || order.replaces) continue;
    const { paid, given } = money.get(order.id) ?? { paid: 0, given: [] };
    const replacements: string[] = [];
    for (const r of orders.filter((o) => o.replaces === order.id)) {
      const [at] = byOrder.get(r.id) ?? [];
      const profile = at && (await statusAt(at.partner, at.key));
      if (r.state === 'delivered' || (profile && profile.status !== 'cancelled'))
        replacements.push(`${r.id} (${r.state}, eSIM ${at?.key ?? 'none'} ${profile?.status ?? 'not at a partner'})`);
    }
    const exchangesDelivered = orders.filter((o) => o.exchange_of === order.id && o.state === 'delivered');
    const notOperators = given.filter((r) => whyOf(r) !== 'operator');
    const asExchanged = notOperators.filter((r) => whyOf(r) === 'exchanged');
    const asRefunded = notOperators.filter((r) => whyOf(r) !== 'exchanged');
    const listed = (list: Stripe.Refund[]) => list.map((r) => `${r.id} ${r.amount} (${whyOf(r)}, ${r.status})`).join(', ');
    const total = given.reduce((sum, r) => sum + r.amount, 0);
    const outcomes = [
      replacements.length > 0 && `replaced by ${replacements.join(', ')}`,
      asExchanged.length > 0 && `refunded as exchanged: ${listed(asExchanged)}`,
      asRefunded.length > 0 && `refunded: ${listed(asRefunded)}`,
    ].filter(Boolean);
    if (outcomes.length > 1) oneOutcome.push(`${name(order)}: ${outcomes.join('; and ')}`);
    if (replacements.length > 1) oneOutcome.push(`${name(order)}: ${replacements.length} replacements held: ${replacements.join(', ')}`);
    if (asExchanged.length > 0 && exchangesDelivered.length === 0)
      oneOutcome.push(`${name(order)}: refunded as exchanged (${listed(asExchanged)}), but no exchange of it was delivered`);
    if (total > paid) oneOutcome.push(`${name(order)}: ${total} given back at Stripe (${listed(given)}) of ${paid} paid`);
  }

  // Top-ups (bought, or automatic): applied once when delivered, never when not; the eSIM's data is its plan plus the top-ups delivered.
  const topUps: string[] = [];
  const topped = new Map<string, OrderRow[]>();
  for (const order of orders) {
    if (order.kind === 'esim') continue;
    topped.set(order.top_up_of!, [...(topped.get(order.top_up_of!) ?? []), order]);
  }
  for (const [esimOrderId, list] of topped) {
    const base = byId.get(esimOrderId)!;
    const [at] = byOrder.get(esimOrderId) ?? [];
    if (!at) continue;
    // Where the partner's requests name the top-up (eSIM Access's), each one counted; the data adds them all up.
    for (const order of list) {
      const applied = at.partner.topUpsApplied?.(order.id);
      if (applied === undefined) continue;
      if (applied > 1) topUps.push(`${name(order)}: applied ${applied} times at ${at.partner.id}`);
      if (order.state === 'delivered' && applied === 0) topUps.push(`${name(order)}: delivered, never applied at ${at.partner.id}`);
      if (order.state !== 'delivered' && applied > 0) topUps.push(`${name(order)}: applied at ${at.partner.id}, but ended ${order.state}`);
    }
    const profile = await statusAt(at.partner, at.key);
    const bytesOf = (o: OrderRow) => at.partner.bytesOf(o.partner_code);
    const expected = bytesOf(base) + list.filter((o) => o.state === 'delivered').reduce((sum, o) => sum + bytesOf(o), 0);
    if (profile && profile.status !== 'cancelled' && profile.totalBytes !== expected)
      topUps.push(
        `${name(base)}: eSIM ${at.key} has ${profile.totalBytes} bytes at ${at.partner.id}, its plan and delivered top-ups make ${expected}`,
      );
  }

  // E-mails: the order's (or the top-up's, or the refund's) e-mail reached the buyer.
  const mails: string[] = [];
  for (const order of orders) {
    if (!order.email) continue;
    const owed =
      order.state === 'delivered' ||
      (order.state === 'refunded' && (order.refund_reason === 'requested' || order.refund_reason === 'not_delivered'));
    if (!owed) continue;
    const number = orderNumber(order);
    // A cart's undelivered eSIMs share one refund e-mail, which names each of them.
    const sent = smtp.messages.filter(
      (m) => m.to.includes(order.email!) && (m.subject.includes(number) || (order.state === 'refunded' && m.text.includes(number))),
    ).length;
    if (sent === 0) mails.push(`${name(order)}: no e-mail reached ${order.email}`);
  }

  // Travellers (issue 33): a delivered eSIM's traveller with an address got their own e-mail with its
  // page's link, and no traveller's e-mail names the buyer; one never delivered got none.
  const travellers: string[] = [];
  for (const order of orders.filter((o) => o.traveller_email)) {
    const got = smtp.messages.filter((m) => m.to.includes(order.traveller_email!));
    if (order.state === 'delivered' && !got.some((m) => /\/traveller#[\w-]{43}/.test(m.text)))
      travellers.push(`${name(order)}: no e-mail with the eSIM's page reached its traveller ${order.traveller_email}`);
    if (order.state !== 'delivered' && order.state !== 'refunded' && got.length > 0)
      travellers.push(`${name(order)}: ${order.state}, yet its traveller got an e-mail`);
    if (order.email && got.some((m) => m.text.includes(order.email!) || m.html.includes(order.email!)))
      travellers.push(`${name(order)}: the traveller's e-mail names the buyer`);
  }

  return [
    {
      name: 'paid_delivered_or_refunded',
      description:
        'every order paid at Stripe ended delivered or refunded (or cancelled, its buyer blocked, with the payment given back whole), and every order the shop holds paid was paid at Stripe',
      breaches: paidOnce,
    },
    { name: 'charged_once', description: 'no buyer was charged twice for one order', breaches: chargedOnce },
    {
      name: 'refunds_once_in_full',
      description:
        "each refund at Stripe is one of the order's refunds, of its amount, made once; a refunded order got back what was paid, a delivered one only an operator's refunds; never beyond a payment",
      breaches: refundedRight,
    },
    {
      name: 'stripe_refunds_ours',
      description: 'every refund Stripe made (failed ones too) matches a refund the shop asked for (auditStripeRefunds)',
      breaches: strays,
    },
    {
      name: 'operator_refunds',
      description:
        "each click of an operator's refund (a double click, an answer lost and asked again) made one refund, of what was asked, back at Stripe; after the rest, the whole payment is back",
      breaches: operatorRefunds,
    },
    {
      name: 'one_outcome_per_purchase',
      description:
        "each paid eSIM ended kept, refunded, replaced or exchanged, never two, by the stand-ins: no replacement the partner holds (or delivered) beside a refund at Stripe that is not an operator's, a refund as exchanged only after an exchange was delivered and beside no other, never more given back than paid",
      breaches: oneOutcome,
    },
    {
      name: 'one_esim_per_order',
      description:
        "the partners issued at most one eSIM per order in all (a failover never left one at each), each for an eSIM order of ours at the partner it names, the one the shop stored; an eSIM no order claims (eSIM Go's orphans) released",
      breaches: oneEsim,
    },
    {
      name: 'refund_cancels_esim',
      description:
        'an eSIM refunded is cancelled at its partner (unless never allocated, or deleted from the phone before it carried data), and one cancelled is refunded',
      breaches: cancelled,
    },
    {
      name: 'top_up_applied_once',
      description:
        "a delivered top-up was applied exactly once at the eSIM's partner, one not delivered never (where its requests name the top-up); the eSIM holds its plan plus the delivered top-ups",
      breaches: topUps,
    },
    {
      name: 'auto_top_ups',
      description:
        "each automatic top-up was agreed to before it was made, charged only for a crossing the shop holds and within the buyer's limits (count and month); a refused one charged nothing off-session and its buyer was e-mailed the link; no crossing left undecided; every off-session charge at Stripe is an automatic top-up's",
      breaches: await autoTopUpChecks(db, stripeStandIn, smtp, byId, name),
    },
    {
      name: 'email_sent',
      description: "every delivered or refunded order's e-mail reached the buyer (the SMTP stand-in)",
      breaches: mails,
    },
    {
      name: 'traveller_emailed',
      description:
        "every delivered eSIM's traveller with an address got their own e-mail with its page's link, naming nothing of the buyer",
      breaches: travellers,
    },
  ];
}

/** The off-session charges Stripe made (payment_intent.succeeded: the hosted page's payments send checkout.session.completed instead). */
const offSessionCharges = (standIn: StripeStandIn) =>
  standIn.events.flatMap(({ event }) =>
    event.type === 'payment_intent.succeeded' ? [event.data.object as unknown as Stripe.PaymentIntent] : [],
  );

/**
 * Automatic top-ups (issue 49) by the rows and the stand-ins: each auto order made for a crossing
 * (auto_top_ups.order_id) of an eSIM whose buyer turned them on before it (auto_top_up_changes);
 * the paid ones within the limits as the setting says (at most max_count, at most the cap in each
 * calendar month, UTC); a refused crossing's order never charged off-session (only on-session, by
 * the e-mail's link), and its buyer told with that link; no crossing left due or charging; every
 * off-session payment intent that succeeded names an automatic top-up of ours.
 */
async function autoTopUpChecks(
  db: Db,
  stripeStandIn: StripeStandIn,
  smtp: SmtpStandIn,
  byId: ReadonlyMap<string, OrderRow>,
  name: (o: OrderRow) => string,
): Promise<string[]> {
  const breaches: string[] = [];
  const crossings = await db.query<{
    esim_order_id: string;
    crossing: string;
    state: string;
    why: string | null;
    order_id: string | null;
    notified_at: Date | null;
    turned_on_at: Date | null;
    created_at: Date;
  }>(
    `SELECT a.esim_order_id, a.crossing, a.state, a.why, a.order_id, a.notified_at, a.created_at,
       (SELECT min(c.at) FROM auto_top_up_changes c WHERE c.esim_order_id = a.esim_order_id AND c.change LIKE 'on:%') AS turned_on_at
     FROM auto_top_ups a ORDER BY a.created_at`,
  );
  const crossingOf = new Map(crossings.filter((c) => c.order_id).map((c) => [c.order_id!, c]));
  const offSession = new Map<string, string[]>();
  for (const intent of offSessionCharges(stripeStandIn)) {
    const orderId = String(intent.metadata['orderId']);
    offSession.set(orderId, [...(offSession.get(orderId) ?? []), intent.id]);
  }
  for (const [orderId, intents] of offSession) {
    const order = byId.get(orderId);
    if (!order || order.kind !== 'auto')
      breaches.push(`off-session charge ${intents.join(', ')} names ${orderId}, no automatic top-up of ours`);
  }
  for (const c of crossings) {
    const what = `eSIM ${c.esim_order_id} crossing ${c.crossing} (${c.state}${c.why ? `: ${c.why}` : ''})`;
    if (c.state === 'due' || c.state === 'charging') breaches.push(`${what}: never decided`);
    if (!c.turned_on_at || c.turned_on_at > c.created_at) breaches.push(`${what}: automatic top-ups were not turned on before it`);
    if (c.state === 'refused') {
      if (c.order_id && offSession.has(c.order_id))
        breaches.push(`${what}: refused, yet charged off-session (${offSession.get(c.order_id)!.join(', ')})`);
      const owner = c.order_id ? byId.get(c.esim_order_id)?.email : null;
      const told = owner && smtp.messages.some((m) => m.to.includes(owner) && /\/auto-top-up\?token=/.test(m.text));
      if (owner && (!c.notified_at || !told)) breaches.push(`${what}: its buyer ${owner} was not e-mailed the link to pay it`);
    }
  }
  for (const order of byId.values()) {
    if (order.kind === 'auto' && !crossingOf.has(order.id)) breaches.push(`${name(order)}: an automatic top-up no crossing made`);
  }
  // The limits the setting holds now (a buyer may lower them after a charge: then more than them is no breach of the consent given before).
  const overLimits = await db.query<{ esim_order_id: string; month: string; count: number; spent: number; max_count: number; cap: number }>(
    `SELECT o.top_up_of AS esim_order_id, to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS count,
       sum(o.amount_minor)::int AS spent, s.max_count, s.monthly_cap_minor AS cap
     FROM orders o JOIN auto_top_up_settings s ON s.esim_order_id = o.top_up_of
     WHERE o.kind = 'auto' AND EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'paid')
     GROUP BY o.top_up_of, month, s.max_count, s.monthly_cap_minor`,
  );
  for (const row of overLimits) {
    if (row.count > row.max_count)
      breaches.push(`eSIM ${row.esim_order_id}: ${row.count} automatic top-ups paid, at most ${row.max_count} allowed`);
    if (row.spent > row.cap) breaches.push(`eSIM ${row.esim_order_id}: ${row.spent} charged in ${row.month}, at most ${row.cap} allowed`);
  }
  return breaches;
}

/** E-mails the SMTP stand-in received more than once for one order and kind (a crash between sending and recording: at-least-once). */
export function duplicateEmails(smtp: SmtpStandIn): number {
  const seen = new Map<string, number>();
  for (const m of smtp.messages) seen.set(`${m.to.join(',')} ${m.subject}`, (seen.get(`${m.to.join(',')} ${m.subject}`) ?? 0) + 1);
  return [...seen.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
}

/** What the operator's blocks came to, from the rows: accounts, block and unblock actions, orders open at a block and how they ended. */
export interface BlockFigures {
  accounts: number;
  blocks: number;
  unblocks: number;
  openAtBlock: number;
  openCancelled: number;
  /** Open at the block but paid meanwhile (the payment reached the shop first): delivered or refunded. */
  openPaidMeanwhile: number;
}

/**
 * The operator's blocks (issue 30 item 6), from operator_actions: each block and unblock settled
 * 'done'; no order created for a blocked account while blocked (after its block was done, before
 * its unblock began); every order open when a block began, or opened while it ran, ended cancelled,
 * or, paid meanwhile, delivered or refunded: never left open, never lost.
 */
export async function blockChecks(db: Db): Promise<{ checks: CrossCheck[]; figures: BlockFigures }> {
  const actions = await db.query<{
    id: number;
    action: 'block' | 'unblock';
    account_uid: string;
    outcome: string;
    outcome_detail: string | null;
    created_at: Date;
    settled_at: Date | null;
  }>(
    `SELECT id, action, account_uid, outcome, outcome_detail, created_at, settled_at FROM operator_actions
     WHERE action IN ('block', 'unblock') ORDER BY created_at, id`,
  );
  const settled = actions
    .filter((a) => a.outcome !== 'done' || !a.settled_at)
    .map(
      (a) =>
        `${a.action} ${a.id} of ${a.account_uid}: ${a.outcome}${a.outcome_detail ? ` (${a.outcome_detail})` : ''}${a.settled_at ? '' : ', never settled'}`,
    );
  const uids = [...new Set(actions.map((a) => a.account_uid))];
  const orders = await db.query<{ id: string; number: number; created_at: Date; uid: string; state: string; kind: string }>(
    'SELECT id, number, created_at, uid, state, kind FROM orders WHERE uid = ANY($1::text[])',
    [uids],
  );
  const events = await db.query<{ order_id: string; to_state: string; at: Date }>(
    'SELECT order_id, to_state, at FROM order_events WHERE order_id = ANY($1::uuid[]) ORDER BY at, id',
    [orders.map((o) => o.id)],
  );
  const name = (o: (typeof orders)[number]) => `${orderNumber(o)} (${o.kind}, ${o.state}, ${o.id})`;
  const whileBlocked: string[] = [];
  const openEnded: string[] = [];
  const figures: BlockFigures = { accounts: 0, blocks: 0, unblocks: 0, openAtBlock: 0, openCancelled: 0, openPaidMeanwhile: 0 };
  const blockedUids = new Set<string>();
  const counted = new Set<string>();
  for (const [i, block] of actions.entries()) {
    if (block.action === 'unblock') {
      figures.unblocks++;
      continue;
    }
    figures.blocks++;
    blockedUids.add(block.account_uid);
    const unblock = actions.slice(i + 1).find((a) => a.account_uid === block.account_uid && a.action === 'unblock');
    const end = unblock ? unblock.created_at.getTime() : Infinity;
    const done = (block.settled_at ?? block.created_at).getTime();
    for (const order of orders.filter((o) => o.uid === block.account_uid)) {
      const created = order.created_at.getTime();
      if (created > done && created < end)
        whileBlocked.push(
          `${name(order)}: created ${order.created_at.toISOString()}, while ${block.account_uid} was blocked (block ${block.id} done ${new Date(done).toISOString()}${unblock ? `, unblock ${unblock.id} from ${unblock.created_at.toISOString()}` : ''})`,
        );
      if (created > done) continue;
      // Its state when the block began (none yet: opened while the block ran).
      const before = events.filter((e) => e.order_id === order.id && e.at.getTime() <= block.created_at.getTime()).at(-1);
      if (before && before.to_state !== 'pending_payment') continue;
      if (counted.has(order.id)) continue;
      counted.add(order.id);
      figures.openAtBlock++;
      if (order.state === 'cancelled') figures.openCancelled++;
      else if (order.state === 'delivered' || order.state === 'refunded') figures.openPaidMeanwhile++;
      else openEnded.push(`${name(order)}: open when ${block.account_uid} was blocked (block ${block.id}), ended ${order.state}`);
    }
  }
  figures.accounts = blockedUids.size;
  return {
    figures,
    checks: [
      {
        name: 'block_actions_done',
        description: "every operator's block and unblock (asked again with the same key after a lost answer) settled 'done'",
        breaches: settled,
      },
      {
        name: 'no_order_while_blocked',
        description: 'no order was created for a blocked account between its block and its unblock',
        breaches: whileBlocked,
      },
      {
        name: 'block_cancels_open_orders',
        description:
          'every order open when its buyer was blocked ended cancelled (its payment page closed), or, paid meanwhile, delivered or refunded',
        breaches: openEnded,
      },
    ],
  };
}

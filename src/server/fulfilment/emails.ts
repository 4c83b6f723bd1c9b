import { autoTopUpPagePath, autoTopUpToken } from '../auto-top-ups/links.ts';
import { settingOf } from '../auto-top-ups/store.ts';
import { isTopUpOrder } from '../../contract/order-kinds.ts';
import { TRAVELLER_ROUTE } from '../../config/site.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDateTime } from '../../lib/format.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { orderEmail } from '../mail/order-email.ts';
import { cartRefundEmail, refundEmail } from '../mail/refund-email.ts';
import { topUpEmail } from '../mail/top-up-email.ts';
import { travellerEmail } from '../mail/traveller-email.ts';
import { issueTravellerLink } from '../travellers/links.ts';
import { travellerEmailed, travellerOf } from '../travellers/travellers.ts';
import { orderNumber } from '../orders/store.ts';
import type { OrderConsent, OrderRow } from '../orders/store.types.ts';
import type { Lease } from './lease.types.ts';
import { emailSent, markEmailSent, type OutboxKind } from './queue.ts';
import type { RefundReason } from '../refunds/refund-command.types.ts';
import { REFUND_REASON_COLUMN } from '../refunds/refund-reasons.ts';
import { refundsOf } from '../refunds/store.ts';

/** An order with why it is refunded as a whole, if it is (order_refund_reasons). */
type Refunding = OrderRow & { refund_reason: RefundReason | null };

/**
 * Why the buyer is told the money came back, in their terms: not delivered (whatever failed on our
 * side), or as they asked. An operator refunds at the buyer's request (or for a fault of ours, which
 * the reason on record says). An exchange is the buyer's asking too: the new eSIM's own e-mail came first.
 */
const refundReasonOf = (order: Refunding) =>
  ['requested', 'operator', 'exchanged'].includes(order.refund_reason ?? '') ? ('requested' as const) : ('not_delivered' as const);

/** A cart's order that will not change by itself any more: its eSIM delivered, or it was refunded or never paid. */
const CART_SETTLED: ReadonlySet<OrderRow['state']> = new Set(['delivered', 'refunded', 'cancelled', 'expired', 'payment_failed']);

/** The order as its e-mails tell it. */
type MailOrder = Parameters<typeof topUpEmail>[0]['order'];

export interface FulfilmentEmailOptions {
  db: Db;
  esims: EsimStore;
  mailer: Mailer;
  /** The site's address (links in e-mails) and its name. */
  siteUrl: string;
  siteName: string;
  destinationName: (code: string, lang: Locale) => string;
  /** The e-mail links' signing key: an automatic top-up's e-mail turns them off in one click (issue 49). */
  linkSecret: string;
}

/** The order as its e-mails tell it, with the consents it confirms (order_consents, migration 0044). */
async function mailOrderOf(options: FulfilmentEmailOptions, order: OrderRow, lang: Locale): Promise<MailOrder> {
  const [consent] = await options.db.query<OrderConsent>('SELECT * FROM order_consents WHERE order_id = $1', [order.id]);
  if (!consent) throw new Error(`order ${order.id}: no consents on record`);
  return {
    number: orderNumber(order),
    createdAt: order.created_at,
    total: { amountMinor: order.amount_minor, currency: order.currency },
    plan: order.plan,
    destinationName: options.destinationName(order.destination, lang),
    termsVersion: consent.terms_version,
    consentedAt: consent.immediate_start_requested_at,
  };
}

/** A new eSIM's e-mail carries the eSIM itself (QR code, manual codes, install links), to a verified address only. */
async function newEsimEmailOf(options: FulfilmentEmailOptions, order: OrderRow, lang: Locale) {
  const { siteName } = options;
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const esim = await options.esims.ofOrder(options.db, order.id);
  if (!esim) throw new Error(`order ${order.id}: delivered without an eSIM`);
  return orderEmail({
    lang,
    order: await mailOrderOf(options, order, lang),
    esim: order.email_verified
      ? { activationCode: esim.activation_code, smdpAddress: esim.smdp_address, matchingId: esim.matching_id }
      : undefined,
    installGuideUrl: `${siteUrl}${localizePath(lang, '/install-esim')}`,
    myEsimsUrl: `${siteUrl}${localizePath(lang, '/my-esim')}`,
    profileUrl: `${siteUrl}${localizePath(lang, '/profile')}`,
    siteName,
  });
}

/** A top-up's confirmation; an automatic one's says so, with when the buyer agreed and the link that turns them off. */
async function topUpEmailOf(options: FulfilmentEmailOptions, order: OrderRow, lang: Locale) {
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const setting = order.kind === 'auto' ? await settingOf(options.db, order.top_up_of!) : undefined;
  return topUpEmail({
    lang,
    order: await mailOrderOf(options, order, lang),
    myEsimsUrl: `${siteUrl}${localizePath(lang, '/my-esim')}`,
    siteName: options.siteName,
    automatic: setting && {
      agreedAt: formatDateTime(setting.consented_at, lang),
      turnOffUrl: `${siteUrl}${autoTopUpPagePath(lang, autoTopUpToken(options.linkSecret, { purpose: 'off', esimId: setting.esim_order_id }))}`,
    },
  });
}

/**
 * The e-mails the fulfilment sends, each once: built from the order's row (the wording and
 * rendering are src/server/mail's), sent while the claim on the order holds, then recorded sent.
 */
export function createFulfilmentEmails(options: FulfilmentEmailOptions) {
  const { db, esims, mailer, siteName } = options;
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const sent = (lease: Lease, id: string, outbox: OutboxKind, kind: 'order' | 'top_up' | 'refund' | undefined) =>
    lease.write((tx) => markEmailSent(tx, id, outbox, kind));

  const newEsimEmail = (order: OrderRow, lang: Locale) => newEsimEmailOf(options, order, lang);

  /** A traveller's page (issue 33): the token in the fragment, which no server or proxy logs. */
  const travellerPageUrl = (lang: Locale, token: string) => `${siteUrl}${localizePath(lang, TRAVELLER_ROUTE)}#${token}`;

  /** The traveller's own e-mail with their eSIM and the link to its page, in the buyer's language. */
  async function sendTravellerEmail(order: OrderRow, token: string, to: string): Promise<void> {
    const lang = order.lang as Locale;
    const esim = await esims.ofOrder(db, order.id);
    const { traveller_name: name } = await travellerOf(db, order.id);
    if (!esim || !name) throw new Error(`order ${order.id}: no eSIM or no traveller to e-mail`);
    const email = await travellerEmail({
      lang,
      travellerName: name,
      order: { destinationName: options.destinationName(order.destination, lang), plan: order.plan },
      esim: { activationCode: esim.activation_code, smdpAddress: esim.smdp_address, matchingId: esim.matching_id },
      pageUrl: travellerPageUrl(lang, token),
      installGuideUrl: `${siteUrl}${localizePath(lang, '/install-esim')}`,
      siteName,
      name: order.id,
    });
    await mailer.send({ ...email, to });
  }

  /**
   * On delivery, a traveller with an address gets their eSIM first, once: a lost answer of the mail
   * relay sends it again with a new link (the first one revoked), never a second live link.
   */
  async function sendTravellerEmailOnce(lease: Lease, order: OrderRow): Promise<void> {
    if (order.kind !== 'esim') return;
    const { traveller_email: to, traveller_emailed_at: emailedAt } = await travellerOf(db, order.id);
    if (!to || emailedAt) return;
    const token = await lease.write((tx) => issueTravellerLink(tx, order.id, to));
    await sendTravellerEmail(order, token, to);
    await lease.write((tx) => travellerEmailed(tx, order.id));
  }

  /** The confirmation on a durable medium (BGB § 312f): with the eSIM for a new one, with the way to My eSIMs for a top-up. */
  async function sendOrderEmail(lease: Lease, order: OrderRow): Promise<void> {
    const lang = order.lang as Locale;
    await sendTravellerEmailOnce(lease, order);
    // A detached order (the account was deleted) has nobody to write to.
    if (!order.email) return sent(lease, order.id, 'order', undefined);
    const email = isTopUpOrder(order) ? await topUpEmailOf(options, order, lang) : await newEsimEmail(order, lang);
    await lease.check();
    await mailer.send({ ...email, to: order.email });
    await sent(lease, order.id, 'order', isTopUpOrder(order) ? 'top_up' : 'order');
  }

  /**
   * The refund's e-mail, once Stripe says the money went back. 'wait': an undelivered eSIM of a cart
   * whose other eSIMs are still on their way, told in the cart's one e-mail once they all are settled.
   */
  async function sendRefundEmail(lease: Lease, order: Refunding): Promise<void | 'wait'> {
    // Never 'refunded' to the buyer before Stripe says the money went back (fulfilment.ts, refund()).
    const unsettled = (await refundsOf(db, order.id)).filter((r) => r.status !== 'succeeded' && r.status !== 'cancelled');
    if (unsettled.length > 0) {
      throw new Error(`order ${order.id}: refund ${unsettled.map((r) => `${r.id} is ${r.status}`).join(', ')}, not succeeded`);
    }
    const reason = refundReasonOf(order);
    if (!order.email) return sent(lease, order.id, 'refund', undefined);
    if (order.cart_id && reason === 'not_delivered') return sendCartRefundEmail(lease, order);
    const email = refundEmail({
      lang: order.lang as Locale,
      order: { number: orderNumber(order), total: { amountMinor: order.amount_minor, currency: order.currency } },
      reason,
      siteName,
    });
    await lease.check();
    await mailer.send({ ...email, to: order.email });
    await sent(lease, order.id, 'refund', 'refund');
  }

  /**
   * A cart delivered in part (issue 33): one e-mail for all its undelivered eSIMs, once every eSIM of
   * the cart is settled, sent by the run of the first of them (by number) and recorded for each; the
   * others' runs leave it to that one. A relay that fails leaves them all due, so it is sent again.
   */
  async function sendCartRefundEmail(lease: Lease, order: Refunding): Promise<void | 'wait'> {
    const cart = await db.query<Refunding>(`SELECT o.*, ${REFUND_REASON_COLUMN} FROM orders o WHERE o.cart_id = $1 ORDER BY o.number`, [
      order.cart_id,
    ]);
    if (cart.some((o) => !CART_SETTLED.has(o.state))) return 'wait';
    const undelivered: Refunding[] = [];
    for (const o of cart)
      if (o.state === 'refunded' && refundReasonOf(o) === 'not_delivered' && !(await emailSent(db, o.id, 'refund'))) undelivered.push(o);
    if (undelivered[0]?.id !== order.id) return;
    const lang = order.lang as Locale;
    const item = (o: OrderRow) => ({
      number: orderNumber(o),
      total: { amountMinor: o.amount_minor, currency: o.currency },
      destinationName: options.destinationName(o.destination, lang),
      plan: o.plan,
    });
    const email = cartRefundEmail({
      lang,
      refunded: undelivered.map(item),
      arrived: cart.filter((o) => o.state === 'delivered' || (o.state === 'refunded' && refundReasonOf(o) === 'requested')).map(item),
      siteName,
    });
    await lease.check();
    await mailer.send({ ...email, to: order.email! });
    await lease.write(async (tx) => {
      for (const o of undelivered) await markEmailSent(tx, o.id, 'refund', 'refund');
    });
  }

  /**
   * The order's e-mail again, on an operator's request (issue 30): to the buyer's address or a
   * corrected one, recorded with the operator's action so the audit does not count it as a second
   * automatic e-mail. With the eSIM when the first one carried it, or when an operator gives an
   * address (they checked it with the buyer: the reason is on the record).
   */
  async function resendOrderEmail(orderId: string, to: string, operatorActionId: number): Promise<void> {
    const [order] = await db.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [orderId]);
    if (!order) throw new Error(`order ${orderId}: not found`);
    const lang = order.lang as Locale;
    const vouched = { ...order, email_verified: order.email_verified || to !== order.email };
    const email = isTopUpOrder(order) ? await topUpEmailOf(options, order, lang) : await newEsimEmail(vouched, lang);
    await mailer.send({ ...email, to });
    await db.query('INSERT INTO order_emails (order_id, kind, operator_action_id, to_address) VALUES ($1, $2, $3, $4)', [
      orderId,
      isTopUpOrder(order) ? 'top_up' : 'order',
      operatorActionId,
      to,
    ]);
  }

  return { sendOrderEmail, sendRefundEmail, resendOrderEmail, sendTravellerEmail, travellerPageUrl };
}

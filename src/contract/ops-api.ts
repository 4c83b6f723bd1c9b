import { z } from 'zod';
import { OrderKind, OrderState } from './shop-api.ts';

/**
 * The back office's API (issue 30, DESIGN 8), mounted at /ops beside the shop's routes, for the
 * pages at /ops (en, de). Every route takes `Authorization: Bearer <Firebase ID token>` of an
 * account with the custom claim `role` (OPS_ROLES): 401 without a valid token, 403 forbidden for
 * a buyer, or for `support` on an admin route; an admin route also wants a sign-in within
 * OPS_ADMIN_SIGN_IN_MS (403 recent_login_required). Failures are the shop API's ApiError.
 *
 *   GET  /ops/me                                   → OpsMe (who calls, with which role)
 *   GET  /ops/orders?q=&state=&from=&to=&attention=&partner= → OpsOrderList (newest first; q: order number with or without
 *                                                     ES-, e-mail, ICCID, Checkout Session id, payment intent id,
 *                                                     partner order number)
 *   GET  /ops/orders/{id}                          → OpsOrder (money, payment, eSIM, signals, refunds, one timeline)
 *   POST /ops/orders/{id}/esim/read                → OpsOrder (the eSIM read again from the partner, lowest priority)
 *   POST /ops/orders/{id}/notes        OpsNote     → OpsOrder                                (support)
 *   POST /ops/orders/{id}/resend-email OpsResend   → OpsActionResult (support: to the buyer or traveller; admin: any)
 *   POST /ops/orders/{id}/retry        OpsReason   → OpsActionResult (a failed or stuck delivery, now) (support)
 *   POST /ops/orders/{id}/deliver-elsewhere OpsReason → OpsActionResult (a stuck order through another partner) (support)
 *   POST /ops/orders/{id}/refunds      OpsRefund   → OpsActionResult                         (admin)
 *   POST /ops/orders/{id}/esim/{suspend|unsuspend|revoke} OpsReason → OpsActionResult        (admin)
 *   POST /ops/orders/{id}/{approve|reject} OpsReason → OpsActionResult (a held order)       (admin)
 *   GET  /ops/accounts?q=                          → OpsAccount (by e-mail or uid: the account, its orders)
 *   POST /ops/accounts/{uid}/{block|unblock|delete} OpsReason → OpsActionResult              (admin)
 *   GET  /ops/dashboard                            → OpsDashboard                           (admin)
 *   GET  /ops/reports/orders.csv?from=&to=         → text/csv, one row per order            (admin)
 *   POST /ops/sales/{pause|resume}     OpsReason   → OpsActionResult                         (admin)
 *   GET  /ops/support?state=open|closed&q=         → OpsSupportList (open: the longest waiting first; closed: the
 *                                                     latest closed first; q: a reference SR-…, an e-mail, an order
 *                                                     number or an account, in either state, the latest first) (support)
 *   POST /ops/support/{id}/reply       OpsSupportReply → OpsActionResult (e-mailed in the buyer's language) (support)
 *   POST /ops/support/{id}/close       OpsSupportClose → OpsActionResult (a buyer's new message reopens it) (support)
 *
 * Every action carries `idempotencyKey` (one per click of the page, kept while the form is open):
 * the same key again answers the first outcome and does nothing twice. The key is the request's
 * alone: the same key with another operator, action, order, account or body answers 409 key_reused
 * and does nothing.
 */

export const OPS_ROLES = ['support', 'admin'] as const;
export const OpsRole = z.enum(OPS_ROLES);
export type OpsRole = z.infer<typeof OpsRole>;

const Iso = z.iso.datetime({ offset: true });
/** An amount in minor units of its currency. */
const Money = z.object({ amountMinor: z.number().int(), currency: z.string().length(3) });

export const OpsMe = z.object({ uid: z.string(), email: z.string().nullable(), role: OpsRole });
export type OpsMe = z.infer<typeof OpsMe>;

const OneValue = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (Array.isArray(value) ? value[0] : value), schema);
export const OpsOrderQuery = z.object({
  q: OneValue(z.string().trim().max(200).optional()),
  state: OneValue(OrderState.optional()),
  from: OneValue(z.iso.date().optional()),
  to: OneValue(z.iso.date().optional()),
  attention: OneValue(z.enum(['1']).optional()),
  /** A partner's id (issue 48): only the orders sourced from it. */
  partner: OneValue(z.string().trim().max(40).optional()),
});
export type OpsOrderQuery = z.infer<typeof OpsOrderQuery>;

export const OpsOrderSummary = z.object({
  id: z.string(),
  number: z.string(),
  state: OrderState,
  kind: OrderKind,
  email: z.string().nullable(),
  planName: z.string(),
  destination: z.string(),
  total: Money,
  createdAt: Iso,
  /** The partner the order is sourced from, by name ('eSIM Go'; issue 48). */
  partner: z.string(),
  /** Why it needs someone: fraud signals, held, stuck, failed. Empty when all is well. */
  attention: z.array(z.string()),
});
export type OpsOrderSummary = z.infer<typeof OpsOrderSummary>;
export const OpsOrderList = z.object({
  orders: z.array(OpsOrderSummary),
  /** The partners this shop orders from, for the list's filter. */
  partners: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type OpsOrderList = z.infer<typeof OpsOrderList>;

export const OpsTimelineEntry = z.object({
  at: Iso,
  /** Where it comes from: order (a state change), partner (a write and how it was settled), mail, alert, refund, payment, operator. */
  source: z.enum(['order', 'partner', 'mail', 'alert', 'refund', 'payment', 'operator']),
  /** What happened, in the shop's words (an event's cause, an action's name). */
  what: z.string(),
  /** Details: the operator's reason, a write's outcome, an amount. */
  detail: z.string().nullable(),
  /** Who did it, for an operator's action: their e-mail or uid. */
  who: z.string().nullable(),
});
export type OpsTimelineEntry = z.infer<typeof OpsTimelineEntry>;

export const OpsRefundView = z.object({
  id: z.string(),
  requestedBy: z.enum(['buyer', 'operator', 'system']),
  operator: z.string().nullable(),
  reason: z.string(),
  amount: Money,
  status: z.string(),
  stripeRefundId: z.string().nullable(),
  createdAt: Iso,
});

/** An eSIM's automatic top-ups (issue 49) as the back office reads them: the consent and limits, each crossing, each change. */
export const OpsAutoTopUp = z.object({
  enabled: z.boolean(),
  packageId: z.string().nullable(),
  maxCount: z.number(),
  monthlyCap: Money,
  consentText: z.string(),
  consentLang: z.string(),
  consentedAt: Iso,
  refusalsInRow: z.number(),
  /** Each time the eSIM crossed 10 % left: what came of it (charged, refused, skipped and why) and its order. */
  crossings: z.array(
    z.object({
      crossing: z.string(),
      state: z.string(),
      why: z.string().nullable(),
      orderId: z.string().nullable(),
      orderNumber: z.string().nullable(),
      at: Iso,
    }),
  ),
  /** Who turned them on, changed or off, and when. */
  changes: z.array(z.object({ at: Iso, by: z.string(), change: z.string() })),
});
export type OpsAutoTopUp = z.infer<typeof OpsAutoTopUp>;

export const OpsOrder = z.object({
  order: OpsOrderSummary.extend({
    lang: z.string(),
    planId: z.string(),
    partnerOrderNo: z.string().nullable(),
    /** The eSIM an order of kind top_up added to. */
    topUpOf: z.string().nullable(),
    /** The buyer's unused eSIM this order exchanged (refunded once this one was delivered). */
    exchangeOf: z.string().nullable(),
    /** The eSIM this order replaced at our cost (nothing paid for this one). */
    replaces: z.string().nullable(),
    /** The order that replaced this one's eSIM at our cost. */
    replacedBy: z.string().nullable(),
    /** The other eSIMs paid on the same payment (a cart, issue 33), oldest first; empty for an order paid on its own. */
    cartOrders: z.array(
      z.object({ id: z.string(), number: z.string(), state: z.string(), planId: z.string(), travellerName: z.string().nullable() }),
    ),
    /** Who the buyer gave the eSIM to (issue 33), and whether a link to its page works now. */
    traveller: z.object({ name: z.string(), email: z.string().nullable(), linkLive: z.boolean() }).nullable(),
    lastError: z.string().nullable(),
    /** The order's job (src/server/jobs): what is left to do, its failed tries, when it runs next; 'dead' once it gave up. */
    job: z.object({ kind: z.string(), state: z.enum(['pending', 'dead']), attempts: z.number(), runAt: z.string() }).nullable(),
    held: z.boolean(),
  }),
  buyer: z.object({
    uid: z.string().nullable(),
    email: z.string().nullable(),
    /** 'active', 'blocked' (Firebase disabled), 'deleted' (the order was detached), 'unknown' (the accounts service did not answer). */
    account: z.enum(['active', 'blocked', 'deleted', 'unknown']),
  }),
  /** In the order's currency (issue 34: the traveller's), but for what Stripe reported in the balance's (EUR). */
  money: z.object({
    retail: Money,
    vat: Money,
    /** The partner's wholesale price when sold, in US dollars. */
    wholesaleUsd: z.number(),
    /** The wholesale price in the retail currency, at the catalogue's applied exchange rates (as prices are made). */
    wholesale: Money,
    /** The order's part of Stripe's fee as Stripe reported it (the balance's currency, EUR); null when not reported. */
    stripeFee: Money.nullable(),
    /**
     * What Stripe settled of the order into our balance (EUR), from the charge's balance transaction,
     * converted at Stripe's rate for a charge in another currency; null when not reported. A cart's
     * orders each show their share.
     */
    settled: Money.nullable(),
    /**
     * Retail without VAT, less refunds without VAT, less `wholesale`, less Stripe's fee (converted at
     * the rate Stripe settled the charge at, else the applied rate): in the retail currency.
     */
    margin: Money,
    refunded: Money,
  }),
  payment: z
    .object({
      method: z.string().nullable(),
      /** Null: charged off-session on the saved card (an automatic top-up). */
      checkoutSessionId: z.string().nullable(),
      paymentIntentId: z.string().nullable(),
      riskLevel: z.string().nullable(),
      country: z.string().nullable(),
    })
    .nullable(),
  esim: z
    .object({
      iccid: z.string().nullable(),
      esimTranNo: z.string().nullable(),
      installStep: z.string().nullable(),
      status: z.string().nullable(),
      usedBytes: z.number().nullable(),
      totalBytes: z.number().nullable(),
      expiresAt: Iso.nullable(),
      readAt: Iso.nullable(),
    })
    .nullable(),
  signals: z.array(z.string()),
  /** An eSIM order's automatic top-ups; null when they were never turned on (and for any other order). */
  autoTopUp: OpsAutoTopUp.nullable(),
  refunds: z.array(OpsRefundView),
  timeline: z.array(OpsTimelineEntry),
});
export type OpsOrder = z.infer<typeof OpsOrder>;

/** What every action takes: why (recorded with the operator), and the click's key. */
export const OpsReason = z.object({
  reason: z.string().trim().min(3).max(500),
  idempotencyKey: z.string().min(8).max(100),
});
export type OpsReason = z.infer<typeof OpsReason>;
export const OpsNote = OpsReason.pick({ idempotencyKey: true }).extend({ text: z.string().trim().min(1).max(2000) });
export type OpsNote = z.infer<typeof OpsNote>;
export const OpsResend = OpsReason.extend({
  /**
   * Absent: the buyer's address. The eSIM's traveller's, or the buyer's, is open to support; any
   * other needs an admin (403 address_needs_admin). Recorded with who sent it.
   */
  to: z.email().max(320).optional(),
});
export type OpsResend = z.infer<typeof OpsResend>;
export const OpsRefund = OpsReason.extend({
  /** Absent: what is left of the payment. */
  amountMinor: z.number().int().positive().optional(),
  /** An installed eSIM stays the buyer's unless the operator suspends it with the refund. */
  esim: z.enum(['leave', 'suspend']).default('leave'),
});
export type OpsRefund = z.infer<typeof OpsRefund>;

export const OpsActionResult = z.object({
  action: z.string(),
  /** done: applied now; already: the same click, or the state was already so; refused: not possible (why in detail). */
  outcome: z.enum(['done', 'already', 'refused', 'pending']),
  detail: z.string().nullable(),
});
export type OpsActionResult = z.infer<typeof OpsActionResult>;

export const OpsAccount = z.object({
  uid: z.string(),
  email: z.string().nullable(),
  account: z.enum(['active', 'blocked', 'deleted', 'unknown']),
  orders: z.array(OpsOrderSummary),
});
export type OpsAccount = z.infer<typeof OpsAccount>;

/**
 * One period's figures across every currency, in EUR (the balance's currency): an order's gross is
 * what Stripe settled of it where Stripe told us, else its amount at the catalogue's applied rate;
 * refunds at the rate their order's charge was settled at, else the applied rate; the margin is
 * reckoned from those (order-detail.ts, marginMinor).
 */
export const OpsPeriod = z.object({
  days: z.number().int(),
  orders: z.number().int(),
  gross: Money,
  /** Of `orders`, those whose EUR gross is converted at the applied rate (Stripe did not report what it settled). */
  estimatedOrders: z.number().int(),
  vat: Money,
  wholesaleUsd: z.number(),
  /** Only what Stripe reported (null when none did). */
  stripeFees: Money.nullable(),
  refunds: Money,
  margin: Money,
  topDestinations: z.array(z.object({ destination: z.string(), orders: z.number().int() })),
  /** The period's orders by the currency they were paid in, each gross in its own currency; the euro first, then by orders. */
  byCurrency: z.array(z.object({ currency: z.string().length(3), orders: z.number().int(), gross: Money })),
});
export type OpsPeriod = z.infer<typeof OpsPeriod>;

/** A partner the shop orders from, and its health (issue 48 item 6). */
export const OpsPartner = z.object({
  id: z.string(),
  name: z.string(),
  /** Its prepaid balance in USD, null when it could not be read now. */
  balanceUsd: z.number().nullable(),
  /** The answering instance's circuit breaker: closed (answering), open (new orders go elsewhere), half_open (its next call decides). */
  breaker: z.enum(['closed', 'open', 'half_open']),
  /** Since when no order goes to it for want of balance; null: it takes orders. */
  pausedSince: Iso.nullable(),
  /** Its request budget now, across instances: slots held of its requests a second, instances waiting; null: not shared in the database. */
  budget: z.object({ held: z.number().int(), requests: z.number().int(), waitingInstances: z.number().int() }).nullable(),
});
export type OpsPartner = z.infer<typeof OpsPartner>;

export const OpsDashboard = z.object({
  periods: z.array(OpsPeriod),
  /** The ECB reference day of the applied exchange rates the estimated figures are converted at. */
  ratesDate: z.iso.date(),
  partners: z.array(OpsPartner),
  lowBalanceUsd: z.number(),
  /** The shop's pause: an operator's, or every partner's for want of balance; null: it sells. */
  salesPause: z.object({ reason: z.string(), since: Iso }).nullable(),
  /** The order audit's findings, read now. */
  audit: z.array(z.object({ orderId: z.string().nullable(), finding: z.string() })),
  /** Support requests open now, and the median minutes to a first reply of those of the last 30 days (null: none answered). */
  support: z.object({ open: z.number().int(), medianFirstReplyMinutes: z.number().nullable() }),
});
export type OpsDashboard = z.infer<typeof OpsDashboard>;

export const OPS_ERROR_CODES = {
  /** 403: the caller's role does not allow this (a buyer anywhere in /ops; support on an admin action). */
  forbidden: 'forbidden',
  /** 409: an action the order's state does not allow now (detail says why). */
  conflict: 'conflict',
  /**
   * 409 on an action: its idempotency key was used for another request (another operator, action,
   * order, account or body); nothing was done. A new click (a new key) asks anew.
   */
  keyReused: 'key_reused',
  /**
   * 403 on POST /ops/orders/{id}/resend-email: support sends the order's e-mail (its eSIM's codes)
   * only to the buyer's or the eSIM's traveller's address; another address needs an admin.
   */
  addressNeedsAdmin: 'address_needs_admin',
} as const;

/** The support inbox (issue 32 item 4). */
export const OpsSupportQuery = z.object({
  state: OneValue(z.enum(['open', 'closed']).optional()),
  q: OneValue(z.string().trim().max(200).optional()),
});
export const OpsSupportReply = OpsReason.pick({ idempotencyKey: true }).extend({ text: z.string().trim().min(1).max(4000) });
export type OpsSupportReply = z.infer<typeof OpsSupportReply>;
export const OpsSupportClose = OpsReason.pick({ idempotencyKey: true });
export type OpsSupportClose = z.infer<typeof OpsSupportClose>;
export const OpsSupportRequest = z.object({
  id: z.string(),
  reference: z.string(),
  state: z.enum(['open', 'closed']),
  email: z.string(),
  lang: z.string(),
  /** No account: the reply goes by e-mail only. */
  visitor: z.boolean(),
  uid: z.string().nullable(),
  /** The order it is about (a visitor's number found), else null. */
  orderId: z.string().nullable(),
  orderNumber: z.string().nullable(),
  /** The number a visitor typed, as typed. */
  givenOrderNumber: z.string().nullable(),
  /** The phone's system, the page's cause, the eSIM's state and usage, the plan, when sent. */
  diagnosis: z.record(z.string(), z.unknown()),
  createdAt: Iso,
  firstReplyAt: Iso.nullable(),
  closedAt: Iso.nullable(),
  messages: z.array(
    z.object({ author: z.enum(['buyer', 'operator']), operatorUid: z.string().nullable(), body: z.string(), createdAt: Iso }),
  ),
});
export type OpsSupportRequest = z.infer<typeof OpsSupportRequest>;
export const OpsSupportList = z.object({
  requests: z.array(OpsSupportRequest),
  /** More requests match than the list shows (OPS_LIST_LIMIT): a search narrows them. */
  more: z.boolean(),
});
export type OpsSupportList = z.infer<typeof OpsSupportList>;

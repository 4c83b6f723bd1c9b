import type { DataKind, Price } from '../../catalogue/schema.ts';
import type { OrderKind, OrderState, PaymentMethod } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import type { LimitInStatement } from '../limits.types.ts';

/**
 * An order as stored (src/server/db/migrations/0001_orders.sql): the sale. What is not the sale is
 * in tables of its own (issue 47 item 3, migrations 0040-0044): the fraud hold (order_holds,
 * fraud/holds.ts), the payment page (order_checkouts, OrderWithCheckout), the exchange and
 * replacement links (order_links, order-links.ts), the traveller and trip start (order_travellers,
 * travellers/travellers.ts), the consents (order_consents, OrderConsent), why it is refunded as a
 * whole (order_refund_reasons, refunds/refund-reasons.ts).
 */
export interface OrderRow {
  id: string;
  number: number;
  uid: string | null;
  email: string | null;
  /** The address was verified when the buyer ordered (migration 0015): the order e-mail may carry the install codes. */
  email_verified: boolean;
  state: OrderState;
  plan_id: string;
  destination: string;
  plan: SoldPlan;
  amount_minor: number;
  currency: string;
  lang: string;
  created_at: Date;
  updated_at: Date;
  /** A new eSIM, a top-up the buyer bought, or an automatic top-up charged on their saved card (issue 49). */
  kind: OrderKind;
  /** A top-up's eSIM: the order that bought it. */
  top_up_of: string | null;
  /** The cart whose one payment this order shares (migration 0029); null: an order paid on its own. */
  cart_id: string | null;
}

/**
 * Where an order's eSIM or top-up comes from (order_sourcing, migration 0046): the partner (an id
 * of the registry, partner/registry.ts), its own code for the package, the wholesale price when it
 * was chosen, and the partner's order number once ordered.
 */
export interface OrderSourcing {
  partner: string;
  partner_code: string;
  wholesale_usd_e4: number;
  partner_order_no: string | null;
}

/** The plan as sold, kept on the order whatever the catalogue says later. */
export interface SoldPlan {
  id: string;
  metadata: { dataAmount: { value: number; unit: 'MB' | 'GB' } };
  validity: number;
  validityUnit: 'day' | 'week' | 'month';
  supportedCountries: string[];
  /**
   * A new eSIM's plan: whether it can be topped up later (the partner's word, from the catalogue).
   * Absent on top-ups, and on orders from before it was kept.
   */
  topUp?: boolean;
  /** A new eSIM's plan: how its data is counted (the "Not working?" diagnosis). Absent on top-ups and older orders. */
  data?: DataKind;
}

export interface NewOrder {
  uid: string;
  email: string | null;
  /** The token said the address is verified: the order e-mail may carry the install codes. */
  emailVerified: boolean;
  plan: SoldPlan;
  destination: string;
  /** The partner it is ordered from (a registry id), its code for the package and its price now. */
  partner: string;
  partnerCode: string;
  wholesaleUsdE4: number;
  price: Price;
  lang: string;
  termsVersion: string;
  /** When the buyer gave both consents (the moment they pressed Buy now). */
  consentedAt: Date;
  /** A top-up of this eSIM (the order that bought it); null: a new eSIM. */
  topUpOf: string | null;
  /** An automatic top-up (kind 'auto', issue 49), charged on the saved card. */
  automatic?: boolean;
  /** Automatic top-ups ticked at checkout: the payment saves the card (a changed tick opens a new order). */
  savesCard?: boolean;
  /** The day the buyer's trip starts (YYYY-MM-DD), if they said. */
  tripStartsOn: string | null;
  /** The buyer's unused eSIM (its order) this new eSIM exchanges; null: no exchange. */
  exchangeOf: string | null;
  /** Who the eSIM is for (a cart's, issue 33); absent: the buyer's own. */
  traveller?: { name: string; email: string | null } | undefined;
}

export interface PaymentRecord {
  provider: 'stripe';
  /** Null: charged off-session on the saved card (an automatic top-up), with no Checkout Session. */
  checkoutSessionId: string | null;
  paymentIntentId: string | null;
  status: 'paid' | 'failed';
  amountMinor: number;
  currency: string;
  method: PaymentMethod | null;
  receiptUrl: string | null;
}

/** An order with its payment page (order_checkouts, migration 0041); both null until one is attached. */
export interface OrderWithCheckout extends OrderRow {
  checkout_session_id: string | null;
  checkout_url: string | null;
}

/** The two consents the buyer gave before paying (BGB § 356(5)), when, and under which terms (order_consents, migration 0044). */
export interface OrderConsent {
  terms_version: string;
  terms_accepted_at: Date;
  immediate_start_requested_at: Date;
}

/** An order with its latest successful payment, as the buyer sees it. */
export interface OrderWithPayment extends OrderWithCheckout {
  paid_at: Date | null;
  method_type: string | null;
  card_brand: string | null;
  card_last4: string | null;
  receipt_url: string | null;
}

/** One step of an order's history (order_events). */
export interface OrderEvent {
  from_state: OrderState | null;
  to_state: OrderState;
  cause: string;
  at: Date;
}

/** An open order for the buyer: `created` false when it is their same open order again; `closedCheckouts` the payment pages of the orders it replaced. */
export interface OpenedOrder {
  order: OrderWithCheckout;
  created: boolean;
  closedCheckouts: string[];
}

/** The orders and their payments in the database (store.ts); writes given a `tx` run in the caller's transaction. */
export interface OrderStore {
  /** Moves an order and records why; false when the move is not allowed from its state now. Announced to its long-polls. */
  move(tx: Queryable, id: string, to: OrderState, cause: string): Promise<boolean>;
  /** The buyer's open order for this plan, or a new one (a stale or repriced open one closed, its page queued to close). */
  openOrder(order: NewOrder, now?: Date): Promise<OpenedOrder>;
  /**
   * The same, counting the buyer's request of POST /orders in the same statement first (one round
   * trip for both in the usual case): when a window refuses it, nothing is opened and the answer is
   * the seconds until the buyer may try again. `limit` gives the count's SQL with its parameters
   * numbered from `first` (UserLimiter.inStatement).
   */
  openOrder(
    order: NewOrder,
    now: Date | undefined,
    limit: (first: number) => LimitInStatement,
  ): Promise<OpenedOrder | { retryAfterSeconds: number }>;
  /** Records the payment page of an order; the first one wins (a page of an order closed meanwhile is queued to close). */
  attachCheckout(id: string, sessionId: string, url: string): Promise<OrderWithCheckout>;
  /** One of the buyer's orders with its payment; someone else's is undefined. */
  ownedBy(uid: string, id: string): Promise<OrderWithPayment | undefined>;
  /** The buyer's orders with their payments, newest first. */
  listOwnedBy(uid: string): Promise<OrderWithPayment[]>;
  /** Any order by id. */
  byId(tx: Queryable, id: string): Promise<OrderRow | undefined>;
  /** Whether an exchange of this eSIM (its order) was paid already (esims/exchange.ts). */
  exchangePaid(orderId: string): Promise<boolean>;
  /** Records a payment of the order, once per session and status. */
  recordPayment(tx: Queryable, orderId: string, payment: PaymentRecord): Promise<void>;
  /** Runs `work` for a provider's event exactly once (the event id stored in the same transaction). */
  onceForEvent(provider: string, eventId: string, type: string, work: (tx: Queryable) => Promise<void>): Promise<'handled' | 'replay'>;
  /** Account deletion: open orders cancelled, every order detached from the person and kept, their other data and account gone. */
  forgetBuyer(
    uid: string,
    deleteAccount: () => Promise<void>,
    forgetOther?: (tx: Queryable) => Promise<void>,
  ): Promise<{ cancelledCheckouts: string[]; detached: number }>;
  /** A blocked account's open orders cancelled with `cause`: answers their payment pages, queued for closing at Stripe. */
  cancelOpenOrdersOf(uid: string, cause: string): Promise<string[]>;
  /** The order's history, oldest first. */
  events(orderId: string): Promise<OrderEvent[]>;
}

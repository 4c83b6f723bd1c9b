import { z } from 'zod';
import { CART_MAX_ESIMS, CART_MAX_PER_PLAN, TRIP_START_AHEAD_DAYS, TRIP_START_PAST_DAYS } from '../config/constants.ts';
import { DataAmount, DataKind, Price } from '../catalogue/schema.ts';
import { LEGAL_LAST_UPDATED } from '../config/constants.ts';
import { CURRENCIES, isCurrency } from '../config/currencies.ts';
import { DEFAULT_LOCALE, LOCALE_CODES } from '../i18n/locales.ts';
import { ALERT_KINDS } from './alert-kinds.ts';
import { ORDER_KINDS } from './order-kinds.ts';

/**
 * The shop API's contract (DESIGN 6), one schema per request and answer, shared by the server
 * (src/server/), the pages' islands (src/features/checkout, account) and the tests. Browser-safe.
 *
 * Every failure answers `{ "error": { "code", "message" } }` (ApiError) with a 4xx/5xx status.
 * Routes that touch orders take `Authorization: Bearer <Firebase ID token>`.
 *
 *   POST   /orders          CreateOrderRequest  → 201 CreateOrderResponse (200 when it is the same open order again)
 *                           409 price_changed (PriceChangedError: the current price, no order)
 *                           409 not_exchangeable (exchangeOf: that eSIM cannot be exchanged for this plan; error.reason says why)
 *   POST   /carts           CreateCartRequest   → 201 CreateCartResponse (several eSIMs, one payment; 200 when it is the same open cart again)
 *                           409 price_changed (CartPriceChangedError: every item's current price, no order)
 *   GET    /carts/{id}?lang=xx                  → CartView (its orders with their eSIMs; someone else's or unknown: 404; each order's
 *                                                GET /orders/{id}?waitMs=n waits for that eSIM)
 *   GET    /orders?lang=xx                      → OrderList (newest first)
 *   GET    /orders/{id}?lang=xx[&waitMs=n]      → OrderView (someone else's or unknown: 404; waitMs: a long-poll, OrderQuery)
 *   DELETE /me                                  → 204 (open orders cancelled, paid ones detached)
 *   POST   /webhooks/stripe                     → 200 (signature checked; 400 otherwise)
 *   POST   /webhooks/partner/{token}            → 200 (the partner's notification: a hint, the partner is asked before acting)
 *   GET    /esims?lang=xx                       → EsimList (newest first; with install codes, usage at most 5 minutes old)
 *   GET    /esims/steps                         → EsimSteps (states and install steps only, from the database: asks the partner nothing)
 *   GET    /esims/{id}/diagnosis?lang=xx        → EsimView ("Not working?": its state and data use read again from the partner,
 *                                                at most once a minute per eSIM; else, or when it cannot answer, the last known)
 *   GET    /esims/{id}/top-ups?lang=xx&currency=XXX → TopUpPlans (the partner's own top-ups of this eSIM, priced in currency, cheapest first;
 *                                                409 cannot_top_up when its plan cannot be topped up or it is not on a phone and valid;
 *                                                503 partner_unavailable when the partner cannot say now)
 *   POST   /esims/{id}/refund?lang=xx           → EsimView (refund of a never-installed eSIM within 30 days; 409 not_refundable;
 *                                                503 partner_unavailable when the eSIM's state cannot be checked now)
 *   POST   /esims/{id}/replace?lang=xx          → EsimView of the replacement (a new eSIM of the same plan at our cost, for one never
 *                                                downloaded or deleted before it carried data, within 30 days; the same one when
 *                                                asked again; 409 not_replaceable; 503 partner_unavailable)
 *   PUT    /esims/{id}/traveller  Traveller     → TravellerLink (gives a delivered eSIM to a traveller: a new private link, the last one
 *                                                revoked, e-mailed to them with the eSIM when an address is given; 409 not_shareable)
 *   DELETE /esims/{id}/traveller-link            → 204 (the traveller's link stops working)
 *   GET    /traveller/esim?lang=xx  (X-Traveller-Token) → TravellerEsim (no sign-in; revoked, ended or unknown: 404)
 *   POST   /jobs/reconcile                      → 200 (the scheduler's call, Authorization: Bearer <RECONCILE_TOKEN>)
 *   GET    /me/alerts                           → AlertPreferences (which alerts go by e-mail and by push; all on until changed)
 *   PUT    /me/alerts        AlertPreferences   → AlertPreferences (saved on the server, for every device)
 *   POST   /me/push-subscriptions  PushSubscriptionRequest → 204 (this device's Push API subscription; its endpoint is its key)
 *   DELETE /me/push-subscriptions  PushUnsubscribeRequest  → 204 (this device's, whether or not it was stored)
 *   GET    /push/public-key                     → PushPublicKey (the VAPID public key for pushManager.subscribe; no sign-in)
 *   POST   /alerts/unsubscribe?token=…          → 200 AlertUnsubscribed (RFC 8058 one-click, the e-mail's List-Unsubscribe URL;
 *                                                no sign-in: the token names the account and the alert kind; 400 invalid_token)
 *   GET    /alerts/unsubscribe?token=…&lang=xx  → 303 to the site's /unsubscribe page, changing nothing (RFC 8058: link
 *                                                scanners open links; the page POSTs after the reader's click)
 *
 * A blocked account (the provider disabled it, issue 30) is refused on every write, POST /orders (new eSIMs
 * and top-ups) and POST /esims/{id}/refund among them: 403 account_blocked; its reads still answer.
 *
 * POST /orders (new eSIMs and top-ups alike) and POST /esims/{id}/refund have per-user limits
 * (src/config/constants.ts): above them 429 too_many_requests with Retry-After (seconds).
 * An open order replaced by another (another price, or a top-up of another eSIM) is cancelled and
 * its payment page expired at Stripe.
 *
 * An eSIM's id is the id of the order that bought it; a top-up is an order of kind 'top_up' for that id.
 * Top-ups are the partner's own packages, offered per eSIM (GET /esims/{id}/top-ups): a top-up's plan
 * id is `topup-<data>-<validity>` ('topup-2gb-15d'), unique among one eSIM's top-ups, and POST /orders
 * takes it with `topUpOf`, pricing it again from the partner's current top-ups of that eSIM.
 */

export const OrderState = z.enum([
  'pending_payment',
  'paid',
  'provisioning',
  'delivered',
  'expired',
  'payment_failed',
  'cancelled',
  'fulfilment_failed',
  'refund_requested',
  'refunded',
]);
export type OrderState = z.infer<typeof OrderState>;

/** The version of the terms a buyer accepts (stored on the order with the consents): their date. */
export const TERMS_VERSION = LEGAL_LAST_UPDATED;

/**
 * `?lang=xx` of the reads (GET /orders, /orders/{id}, /esims, /esims/{id}/top-ups, POST /esims/{id}/refund):
 * the language of names; en when absent. A repeated one counts by its first value, as URLSearchParams.get reads it.
 */
export const LangQuery = z.object({
  lang: z.preprocess((value) => (Array.isArray(value) ? value[0] : value), z.enum(LOCALE_CODES).default(DEFAULT_LOCALE)),
});
export type LangQuery = z.infer<typeof LangQuery>;

/** A price in one of the currencies the shop charges in (issue 34): what an order or a cart is placed at. */
export const ListedPrice = Price.extend({
  currency: z.string().refine((code): boolean => isCurrency(code), { message: `currency must be one of ${CURRENCIES.join(', ')}` }),
});

/**
 * `?lang=xx&currency=XXX` of GET /esims/{id}/top-ups: top-ups are priced in the visitor's currency
 * (the page's picker), whoever's eSIM it is; absent, in the currency the eSIM was bought in.
 */
export const TopUpQuery = LangQuery.extend({ currency: z.enum(CURRENCIES).optional() });

/**
 * GET /orders/{id}?lang=xx&waitMs=n: a long-poll. While the order is pending (payment not confirmed,
 * eSIM being prepared) the answer waits up to waitMs (at most 25 s) for its state to change, and
 * comes as soon as it does (the payment success page shows the QR code within moments of the
 * delivery); at once when nothing is pending; after the wait, the current state. A user may hold
 * a few such waits at once (ORDER_WAITS_PER_USER, src/config/constants.ts); another answers 429
 * too_many_requests with Retry-After (seconds), after which the page asks again.
 */
export const ORDER_WAIT_MAX_MS = 25_000;
export const OrderQuery = LangQuery.extend({
  waitMs: z.preprocess(
    (value) => (Array.isArray(value) ? value[0] : value),
    z.coerce.number().int().min(0).max(ORDER_WAIT_MAX_MS).default(0),
  ),
});
export type OrderQuery = z.infer<typeof OrderQuery>;

/** Whether an ISO day lies from `back` to `ahead` days of today (UTC, a day's slack for the buyer's own time zone). */
function withinDays(day: string, back: number, ahead: number): boolean {
  const days = (Date.parse(`${day}T00:00:00Z`) - Date.now()) / 86_400_000;
  return days >= back - 1 && days <= ahead + 1;
}

export const CreateOrderRequest = z.object({
  planId: z.string().min(1).max(100),
  /** The page's language: the payment page's and the e-mail's. */
  lang: z.enum(LOCALE_CODES),
  /** The price the buyer saw, in the currency they pay in; a different current price answers 409 price_changed. */
  expectedPrice: ListedPrice,
  /** Both must be given (true): the terms, and immediate start with loss of the right of withdrawal (BGB § 356(5)). */
  consents: z.object({ terms: z.literal(true), immediateStart: z.literal(true) }),
  /**
   * A new eSIM of a plan that can be topped up: top it up automatically when 10 % is left (issue
   * 49), the cheapest top-up offered then, at most `maxCount` times and `monthlyCapMinor` a calendar
   * month in the order's currency. The card paid with is saved at Stripe for it; the consent is
   * stored in the page's language.
   */
  autoTopUp: z
    .object({ maxCount: z.number().int().min(1).max(10), monthlyCapMinor: z.number().int().positive().max(1_000_000) })
    .optional(),
  /**
   * A top-up: the eSIM (its id) the data and days are added to; `planId` is then one of its top-ups
   * (TopUpPlan.id, from GET /esims/{id}/top-ups). Absent: a new eSIM of a catalogue plan.
   */
  topUpOf: z.uuid().optional(),
  /**
   * When the trip starts (the buyer's calendar day, optional; a new eSIM only): an eSIM with no
   * data by the day after gets the get-connected checklist. At most a week back, a year ahead.
   */
  tripStartsOn: z.iso
    .date()
    .refine((day) => withinDays(day, -TRIP_START_PAST_DAYS, TRIP_START_AHEAD_DAYS), { message: 'tripStartsOn is out of range' })
    .optional(),
  /**
   * An exchange (a new eSIM only): the caller's unused eSIM, bought for the wrong destination, that
   * this plan of another destination replaces. It is refunded in full once the new eSIM is delivered;
   * one that the refund rules no longer allow answers 409 not_exchangeable and opens no order.
   */
  exchangeOf: z.uuid().optional(),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/** One plan of a cart, `quantity` eSIMs of it (one order each), at the price the buyer saw. */
/**
 * Who an eSIM is for (issue 33): a name, and optionally an address, where the traveller gets their own
 * e-mail with the eSIM and a private link to its page. Shown to the buyer in My eSIMs; never to anyone else.
 */
export const Traveller = z.object({
  name: z.string().trim().min(1).max(80),
  email: z.email().max(254).optional(),
});
export type Traveller = z.infer<typeof Traveller>;

export const CartItem = z
  .object({
    planId: z.string().min(1).max(100),
    quantity: z.number().int().min(1).max(CART_MAX_PER_PLAN),
    expectedPrice: ListedPrice,
    /** The travellers of this plan's eSIMs, in order; fewer than the quantity: the rest are the buyer's own. */
    travellers: z.array(Traveller).max(CART_MAX_PER_PLAN).optional(),
  })
  .refine((item) => (item.travellers?.length ?? 0) <= item.quantity, { message: 'at most one traveller an eSIM' });
export type CartItem = z.infer<typeof CartItem>;

/** Several eSIMs paid at once (issue 33): each plan once, at most CART_MAX_ESIMS eSIMs; the consents as for one. */
export const CreateCartRequest = z.object({
  items: z
    .array(CartItem)
    .min(1)
    .max(CART_MAX_ESIMS)
    .refine((items) => items.reduce((sum, item) => sum + item.quantity, 0) <= CART_MAX_ESIMS, {
      message: `at most ${CART_MAX_ESIMS} eSIMs an order`,
    })
    .refine((items) => new Set(items.map((item) => item.planId)).size === items.length, { message: 'each plan once, with its quantity' })
    .refine((items) => new Set(items.map((item) => item.expectedPrice.currency)).size === 1, { message: 'one currency a payment' }),
  lang: CreateOrderRequest.shape.lang,
  consents: CreateOrderRequest.shape.consents,
  tripStartsOn: CreateOrderRequest.shape.tripStartsOn,
});
export type CreateCartRequest = z.infer<typeof CreateCartRequest>;

export const PaymentMethod = z.object({
  /** Stripe's payment method type: card, paypal, sepa_debit, ... */
  type: z.string(),
  /** For cards: visa, mastercard, ... and the last four digits. */
  brand: z.string().optional(),
  last4: z.string().optional(),
});
export type PaymentMethod = z.infer<typeof PaymentMethod>;

/**
 * An eSIM as its owner sees it. 'preparing': paid, the partner is allocating it; 'ready': to
 * install; 'active': installed on a device; 'suspended': its data service paused (the provider
 * did, for a reason support gives); 'refunding': a refund is on its way; 'replaced': a new eSIM of
 * the same plan replaced it at our cost (the newer one in the list).
 */
export const EsimStatus = z.enum(['preparing', 'ready', 'active', 'suspended', 'used_up', 'expired', 'refunding', 'refunded', 'replaced']);
export type EsimStatus = z.infer<typeof EsimStatus>;

/**
 * Where the eSIM is on the phone, as the partner last told us (its SM-DP+ and eSIM status): ready to
 * install ('released'), downloaded, installed, turned on ('enabled'), in use; or deleted from the
 * phone, expired. Null before allocation and when cancelled.
 */
export const InstallStep = z.enum(['released', 'downloaded', 'installed', 'enabled', 'in_use', 'deleted', 'expired']);
export type InstallStep = z.infer<typeof InstallStep>;

/** How to install an eSIM. The activation code is a credential: only its owner ever receives it. */
export const InstallCodes = z.object({
  /** The LPA string LPA:1$<SM-DP+ address>$<matching id>, what the QR code holds. */
  lpa: z.string(),
  smdpAddress: z.string(),
  /** The activation code (matching id) to type by hand. */
  activationCode: z.string(),
  /** The QR code of the LPA string, an <svg> element's markup (no script, no external reference). */
  qrSvg: z.string(),
  /** Apple's one-tap install link (iOS 17.5 and later). */
  iphoneUrl: z.url(),
  /** The APN the partner names for the eSIM, for the get-connected checklist when data does not start; null when it names none. */
  apn: z.string().nullable(),
});
export type InstallCodes = z.infer<typeof InstallCodes>;

const SoldPlan = z.object({
  id: z.string(),
  metadata: z.object({ dataAmount: DataAmount }),
  validity: z.number().int().positive(),
  validityUnit: z.enum(['day', 'week', 'month']),
  supportedCountries: z.array(z.string()),
  /** How its data is counted (the plan's facts when it was sold): a daily or fair-use volume, then slowed or cut. Absent on older orders. */
  data: DataKind.optional(),
});

const Destination = z.object({ code: z.string(), name: z.string(), flag: z.string() });

export const EsimView = z.object({
  /** The id of the order that bought it. */
  id: z.string(),
  /** That order's number (ES-2026-000123). */
  orderNumber: z.string(),
  status: EsimStatus,
  plan: SoldPlan,
  destination: Destination,
  purchasedAt: z.iso.datetime({ offset: true }),
  /** Null while preparing. */
  iccid: z.string().nullable(),
  /** Data used and in total (top-ups included), bytes; null while preparing. */
  usage: z.object({ usedBytes: z.number().int().nonnegative(), totalBytes: z.number().int().nonnegative() }).nullable(),
  /** Before installation the last day to install it; after, the end of its validity. */
  expiresAt: z.iso.datetime({ offset: true }).nullable(),
  /** Null while preparing and once refunded. */
  install: InstallCodes.nullable(),
  /** Never installed (or deleted before it carried data) and bought less than 30 days ago: the refund button. */
  refundable: z.boolean(),
  /**
   * Never downloaded, or deleted from the phone before it carried data, within 30 days: "Replace"
   * (POST /esims/{id}/replace) gives a new eSIM of the same plan at our cost. Its status is then 'replaced'.
   */
  replaceable: z.boolean(),
  /** Its plan can be topped up (topUpSupported), and it is installed and still valid: the top-up plans. */
  canTopUp: z.boolean(),
  /** Where the eSIM is on the phone, and since when (null before allocation, once refunded, or not known). */
  installStep: InstallStep.nullable(),
  installStepAt: z.iso.datetime({ offset: true }).nullable(),
  /** Whether its plan can be topped up at all (the partner's word when it was sold); false: the page says so. */
  topUpSupported: z.boolean(),
  /** Who the buyer gave it to (issue 33); null: the buyer's own. */
  traveller: z.object({ name: z.string(), email: z.string().nullable() }).nullable(),
});
export type EsimView = z.infer<typeof EsimView>;

/**
 * GET /traveller/esim: a traveller's eSIM as their private link shows it (issue 33): how to install
 * it, where it is, its data and validity. Nothing of the buyer, the order or any other eSIM.
 */
export const TravellerEsim = EsimView.pick({
  /** The eSIM's id: what a top-up names (topUpOf), which the link lets its holder buy, signed in. */
  id: true,
  canTopUp: true,
  status: true,
  plan: true,
  destination: true,
  iccid: true,
  usage: true,
  expiresAt: true,
  install: true,
  installStep: true,
  installStepAt: true,
}).extend({ travellerName: z.string() });
export type TravellerEsim = z.infer<typeof TravellerEsim>;

/** PUT /esims/{id}/traveller: the link to the traveller's page, for the buyer to pass on, and where it was e-mailed. */
export const TravellerLink = z.object({ link: z.url(), emailedTo: z.string().nullable() });
export type TravellerLink = z.infer<typeof TravellerLink>;

export const EsimList = z.object({ esims: z.array(EsimView) });
export type EsimList = z.infer<typeof EsimList>;

/** GET /esims/steps: each of the caller's eSIMs' state and install step, from the shop's database only (My eSIMs' live status). */
export const EsimStep = z.object({
  id: z.string(),
  status: EsimStatus,
  installStep: InstallStep.nullable(),
  installStepAt: z.iso.datetime({ offset: true }).nullable(),
});
export type EsimStep = z.infer<typeof EsimStep>;
export const EsimSteps = z.object({ esims: z.array(EsimStep) });
export type EsimSteps = z.infer<typeof EsimSteps>;

/** One of the partner's top-ups of an eSIM, priced by the one pricing function from its own wholesale price. */
export const TopUpPlan = z.object({
  /** 'topup-2gb-15d': what POST /orders takes as planId, with the eSIM as topUpOf. */
  id: z.string(),
  dataAmount: DataAmount,
  validity: z.number().int().positive(),
  validityUnit: z.enum(['day', 'week', 'month']),
  supportedCountries: z.array(z.string()),
  /** VAT included. */
  price: Price,
});
export type TopUpPlan = z.infer<typeof TopUpPlan>;

/** An eSIM's top-ups, cheapest first, with the eSIM's destination (the checkout's summary shows it). */
export const TopUpPlans = z.object({ destination: Destination, plans: z.array(TopUpPlan) });
export type TopUpPlans = z.infer<typeof TopUpPlans>;

/** The buyer's saved card (issue 49), as Stripe describes it: only its brand, last four digits and expiry are ours to show. */
export const SavedCardView = z.object({
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  expMonth: z.number().int().nullable(),
  expYear: z.number().int().nullable(),
  savedAt: z.iso.datetime({ offset: true }),
});
export type SavedCardView = z.infer<typeof SavedCardView>;

/** GET /me/card: the saved card, or none. */
export const SavedCardAnswer = z.object({ card: SavedCardView.nullable() });
export type SavedCardAnswer = z.infer<typeof SavedCardAnswer>;

/** POST /me/card: Stripe's page that saves a card; it comes back to My eSIMs (at the eSIM named). */
export const SaveCardRequest = z.object({
  lang: z.enum(LOCALE_CODES),
  /** The eSIM whose automatic top-ups the card is for: the page comes back to it in My eSIMs. */
  esimId: z.uuid().optional(),
});
export const SaveCardAnswer = z.object({ url: z.url() });
export type SaveCardAnswer = z.infer<typeof SaveCardAnswer>;

/** POST /me/card/saved: Stripe's page came back; the card it saved is read from Stripe (the webhook may come later). */
export const CardSavedRequest = z.object({ sessionId: z.string().regex(/^cs_[A-Za-z0-9_]+$/) });

/** The limits a buyer sets on an eSIM's automatic top-ups (PUT /auto-top-ups/esims/{id}). */
export const AutoTopUpRequest = z.object({
  /** One of the eSIM's top-ups (TopUpPlan.id); null: the cheapest offered when it is due. */
  packageId: z
    .string()
    .regex(/^topup-[a-z0-9-]+$/)
    .max(60)
    .nullable(),
  maxCount: z.number().int().min(1).max(10),
  /** At most this much a calendar month, in the eSIM's currency, minor units. */
  monthlyCapMinor: z.number().int().positive().max(1_000_000),
  /** The page's language: the consent is stored in the words the buyer read. */
  lang: z.enum(LOCALE_CODES),
});
export type AutoTopUpRequest = z.infer<typeof AutoTopUpRequest>;

/** An automatic top-up that was charged, or whose charge the bank refused. */
export const AutoTopUpCharge = z.object({
  orderId: z.string(),
  number: z.string(),
  state: OrderState,
  total: Price,
  createdAt: z.iso.datetime({ offset: true }),
});

/** GET /auto-top-ups/esims/{id}: an eSIM's automatic top-ups, the card they use and what may be chosen. */
export const AutoTopUpView = z.object({
  esimId: z.string(),
  /** The eSIM's currency: the limits and prices are in it. */
  currency: z.string(),
  setting: z
    .object({
      enabled: z.boolean(),
      packageId: z.string().nullable(),
      maxCount: z.number().int(),
      monthlyCap: Price,
      /** The consent as the buyer gave it, and when. */
      consentText: z.string(),
      consentedAt: z.iso.datetime({ offset: true }),
    })
    .nullable(),
  card: SavedCardView.nullable(),
  /** The eSIM's top-ups now (empty when it gets none, or its partner did not answer). */
  offers: z.array(TopUpPlan),
  charges: z.array(AutoTopUpCharge),
});
export type AutoTopUpView = z.infer<typeof AutoTopUpView>;

/** GET /auto-top-ups/link?token=: what an e-mail's link is for, as things stand. */
export const AutoTopUpLinkView = z.discriminatedUnion('purpose', [
  z.object({
    purpose: z.literal('pay'),
    /** payable: the refused top-up may be paid now; paid: it was; ended: the eSIM ended (or it was never refused). */
    state: z.enum(['payable', 'paid', 'ended']),
    destination: Destination,
    plan: SoldPlan,
    total: Price,
  }),
  z.object({ purpose: z.literal('off'), destination: Destination, enabled: z.boolean() }),
]);
export type AutoTopUpLinkView = z.infer<typeof AutoTopUpLinkView>;

/** What an order buys (order-kinds.ts). */
export const OrderKind = z.enum(ORDER_KINDS);
export type OrderKind = z.infer<typeof OrderKind>;

export const OrderView = z.object({
  id: z.string(),
  /** What the buyer quotes to support: ES-2026-000123. */
  number: z.string(),
  state: OrderState,
  kind: OrderKind,
  /** The eSIM it bought or topped up. */
  esimId: z.string(),
  plan: SoldPlan,
  /** The destination (country or region) in the requested language. */
  destination: Destination,
  /** VAT included. */
  total: Price,
  createdAt: z.iso.datetime({ offset: true }),
  paidAt: z.iso.datetime({ offset: true }).nullable(),
  paymentMethod: PaymentMethod.nullable(),
  /** The payment provider's receipt, once paid. */
  receiptUrl: z.string().url().nullable(),
  /** The hosted payment page, while the order waits for payment. */
  checkoutUrl: z.string().url().nullable(),
  /** GET /orders/{id} only: the eSIM once paid (its install codes once delivered). */
  esim: EsimView.nullable().optional(),
});
export type OrderView = z.infer<typeof OrderView>;

export const CreateOrderResponse = z.object({ order: OrderView, checkoutUrl: z.string().url() });
export type CreateOrderResponse = z.infer<typeof CreateOrderResponse>;

/** A cart: its eSIMs, one order each (their esim once paid, as GET /orders/{id} gives it), and what was paid for all. */
export const CartView = z.object({
  id: z.string(),
  total: Price,
  orders: z.array(OrderView),
});
export type CartView = z.infer<typeof CartView>;

export const CreateCartResponse = z.object({ cart: CartView, checkoutUrl: z.string().url() });
export type CreateCartResponse = z.infer<typeof CreateCartResponse>;

export const OrderList = z.object({ orders: z.array(OrderView) });
export type OrderList = z.infer<typeof OrderList>;

export const ApiError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ApiError = z.infer<typeof ApiError>;

export const PriceChangedError = z.object({
  error: z.object({ code: z.literal('price_changed'), message: z.string(), price: Price }),
});
export type PriceChangedError = z.infer<typeof PriceChangedError>;

/** A cart whose prices moved: every item's current price (each plan in the cart that is still sold). */
export const CartPriceChangedError = z.object({
  error: z.object({
    code: z.literal('price_changed'),
    message: z.string(),
    prices: z.array(z.object({ planId: z.string(), price: Price })),
  }),
});
export type CartPriceChangedError = z.infer<typeof CartPriceChangedError>;

/** What an order buys (order-kinds.ts, zod-free for the pages). */
export { isTopUpOrder } from './order-kinds.ts';
/** The alert kinds and their channels (alert-kinds.ts, zod-free for the pages). */
export { ALERT_CHANNELS, ALERT_KIND_CHANNELS, ALERT_KINDS, type AlertChannel } from './alert-kinds.ts';
export const AlertKind = z.enum(ALERT_KINDS);
export type AlertKind = z.infer<typeof AlertKind>;

const Channels = z.object({ email: z.boolean(), push: z.boolean() }).strict();
/** GET and PUT /me/alerts: per kind, whether it goes by e-mail and by push (esim_ready's email is always false). */
export const AlertPreferences = z
  .object({
    esim_ready: z.object({ email: z.literal(false), push: z.boolean() }).strict(),
    connected: Channels,
    not_connected: Channels,
    data_80: Channels,
    data_used_up: Channels,
    validity_1_day: Channels,
  })
  .strict();
export type AlertPreferences = z.infer<typeof AlertPreferences>;

/** A key of a push subscription, base64url as PushSubscription.toJSON() gives it. */
const Base64Url = z
  .string()
  .regex(/^[A-Za-z0-9_-]+={0,2}$/)
  .max(200);
/** POST /me/push-subscriptions: PushSubscription.toJSON() of this device, and the page's language for its notifications. */
export const PushSubscriptionRequest = z.object({
  endpoint: z
    .string()
    .url()
    .max(2_000)
    .refine((url) => /^https:\/\//.test(url) || /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url), {
      message: 'endpoint must be an https URL',
    }),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: Base64Url, auth: Base64Url }),
  lang: z.enum(LOCALE_CODES),
});
export type PushSubscriptionRequest = z.infer<typeof PushSubscriptionRequest>;
export const PushUnsubscribeRequest = z.object({ endpoint: z.string().url().max(2_000) });
export type PushUnsubscribeRequest = z.infer<typeof PushUnsubscribeRequest>;
export const PushPublicKey = z.object({ publicKey: z.string() });
export type PushPublicKey = z.infer<typeof PushPublicKey>;
export const AlertUnsubscribed = z.object({ kind: AlertKind });
export type AlertUnsubscribed = z.infer<typeof AlertUnsubscribed>;

/**
 * What a push message carries (JSON, encrypted to the subscription, RFC 8291): already in the
 * subscription's language; the service worker shows it and opens `url` on a click.
 */
export const PushMessage = z.object({
  /** An alert's kind, or news of an automatic top-up (issue 49). */
  kind: z.union([AlertKind, z.literal('auto_top_up')]),
  title: z.string(),
  body: z.string(),
  /** Same-origin path to open: My eSIMs, or the top-up checkout. */
  url: z.string().startsWith('/'),
  /** One notification per eSIM and kind: a later one replaces it. */
  tag: z.string(),
  lang: z.enum(LOCALE_CODES),
});
export type PushMessage = z.infer<typeof PushMessage>;

/** Error codes a caller may act on. */
export const ERROR_CODES = {
  badRequest: 'bad_request',
  unauthorized: 'unauthorized',
  notFound: 'not_found',
  unknownPlan: 'unknown_plan',
  priceChanged: 'price_changed',
  paymentUnavailable: 'payment_unavailable',
  recentLoginRequired: 'recent_login_required',
  /** 502 on DELETE /me: the accounts service refused; nothing was changed. */
  accountNotDeleted: 'account_not_deleted',
  notRefundable: 'not_refundable',
  /** 409 on POST /orders with exchangeOf: that eSIM cannot be exchanged for this plan (`reason` says why); no order was opened. */
  notExchangeable: 'not_exchangeable',
  /** 409 on POST /esims/{id}/replace: only an eSIM never downloaded, or deleted before it carried data, within 30 days is replaced. */
  notReplaceable: 'not_replaceable',
  /** 409 on PUT /esims/{id}/traveller: only a delivered eSIM that has not ended can be given to a traveller. */
  notShareable: 'not_shareable',
  partnerUnavailable: 'partner_unavailable',
  cannotTopUp: 'cannot_top_up',
  /** 429: the caller's per-user limit of orders, refund requests or waiting long-polls is reached; Retry-After says how many seconds to wait. */
  tooManyRequests: 'too_many_requests',
  /** 503 on POST /orders: selling is paused (the partner's prepaid balance ran dry); nothing was ordered or charged. */
  salesPaused: 'sales_paused',
  /** 403 on a write (POST /orders, POST /esims/{id}/refund, …): the provider blocked (disabled) the account; nothing was changed. */
  accountBlocked: 'account_blocked',
  /** 400 on POST /alerts/unsubscribe: the token is not one we signed. */
  invalidToken: 'invalid_token',
  /** 413: the request's body is larger than the route reads (a JSON body: MAX_JSON_BODY_BYTES; a webhook's: its own). */
  bodyTooLarge: 'body_too_large',
  /** 409 on PUT /auto-top-ups/esims/{id}: the monthly limit is below the chosen top-up's price; nothing was changed. */
  capTooLow: 'cap_too_low',
} as const;

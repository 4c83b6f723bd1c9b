import { z } from 'zod';
import { DataAmount, Price } from '../catalogue/schema.ts';
import { LEGAL_LAST_UPDATED } from '../config/constants.ts';
import { LOCALE_CODES } from '../i18n/locales.ts';

/**
 * The shop API's contract (DESIGN 6), one schema per request and answer, shared by the server
 * (src/server/), the pages' islands (src/features/checkout, account) and the tests. Browser-safe.
 *
 * Every failure answers `{ "error": { "code", "message" } }` (ApiError) with a 4xx/5xx status.
 * Routes that touch orders take `Authorization: Bearer <Firebase ID token>`.
 *
 *   POST   /orders          CreateOrderRequest  → 201 CreateOrderResponse (200 when it is the same open order again)
 *                           409 price_changed (PriceChangedError: the current price, no order)
 *   GET    /orders?lang=xx                      → OrderList (newest first)
 *   GET    /orders/{id}?lang=xx                 → OrderView (someone else's or unknown: 404)
 *   DELETE /me                                  → 204 (open orders cancelled, paid ones detached)
 *   POST   /webhooks/stripe                     → 200 (signature checked; 400 otherwise)
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

export const CreateOrderRequest = z.object({
  planId: z.string().min(1).max(100),
  /** The page's language: the payment page's and the e-mail's. */
  lang: z.enum(LOCALE_CODES),
  /** The price the buyer saw; a different current price answers 409 price_changed. */
  expectedPrice: Price,
  /** Both must be given (true): the terms, and immediate start with loss of the right of withdrawal (BGB § 356(5)). */
  consents: z.object({ terms: z.literal(true), immediateStart: z.literal(true) }),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

export const PaymentMethod = z.object({
  /** Stripe's payment method type: card, paypal, sepa_debit, ... */
  type: z.string(),
  /** For cards: visa, mastercard, ... and the last four digits. */
  brand: z.string().optional(),
  last4: z.string().optional(),
});
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const OrderView = z.object({
  id: z.string(),
  /** What the buyer quotes to support: ES-2026-000123. */
  number: z.string(),
  state: OrderState,
  plan: z.object({
    id: z.string(),
    metadata: z.object({ dataAmount: DataAmount }),
    validity: z.number().int().positive(),
    validityUnit: z.enum(['day', 'week', 'month']),
    supportedCountries: z.array(z.string()),
  }),
  /** The destination (country or region) in the requested language. */
  destination: z.object({ code: z.string(), name: z.string(), flag: z.string() }),
  /** VAT included. */
  total: Price,
  createdAt: z.iso.datetime({ offset: true }),
  paidAt: z.iso.datetime({ offset: true }).nullable(),
  paymentMethod: PaymentMethod.nullable(),
  /** The payment provider's receipt, once paid. */
  receiptUrl: z.string().url().nullable(),
  /** The hosted payment page, while the order waits for payment. */
  checkoutUrl: z.string().url().nullable(),
});
export type OrderView = z.infer<typeof OrderView>;

export const CreateOrderResponse = z.object({ order: OrderView, checkoutUrl: z.string().url() });
export type CreateOrderResponse = z.infer<typeof CreateOrderResponse>;

export const OrderList = z.object({ orders: z.array(OrderView) });
export type OrderList = z.infer<typeof OrderList>;

export const ApiError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ApiError = z.infer<typeof ApiError>;

export const PriceChangedError = z.object({
  error: z.object({ code: z.literal('price_changed'), message: z.string(), price: Price }),
});
export type PriceChangedError = z.infer<typeof PriceChangedError>;

/** Error codes a caller may act on. */
export const ERROR_CODES = {
  badRequest: 'bad_request',
  unauthorized: 'unauthorized',
  notFound: 'not_found',
  unknownPlan: 'unknown_plan',
  priceChanged: 'price_changed',
  paymentUnavailable: 'payment_unavailable',
  recentLoginRequired: 'recent_login_required',
} as const;

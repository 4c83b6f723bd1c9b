import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import type { Locale } from '../../i18n/locales.ts';
import type { PaymentMethod } from '../../contract/shop-api.ts';

/**
 * Stripe Checkout, the hosted page (DESIGN 6): no card data touches our pages. Locally and in
 * tests `apiUrl` points the real SDK at the stand-in (stand-ins/stripe/).
 */
export function createStripe({
  secretKey,
  apiUrl,
  timeoutMs,
}: {
  secretKey: string;
  apiUrl?: string | undefined;
  timeoutMs?: number | undefined;
}): Stripe {
  const timeout = timeoutMs === undefined ? {} : { timeout: timeoutMs };
  if (!apiUrl) return new Stripe(secretKey, { maxNetworkRetries: 2, ...timeout });
  const url = new URL(apiUrl);
  return new Stripe(secretKey, {
    ...timeout,
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 2,
  });
}

/** Stripe Checkout speaks 11 of our 12 languages; Arabic buyers get the browser's language ('auto'). */
export const CHECKOUT_LOCALES: Record<Locale, Stripe.Checkout.SessionCreateParams.Locale> = {
  en: 'en',
  es: 'es',
  fr: 'fr',
  de: 'de',
  ar: 'auto',
  it: 'it',
  nl: 'nl',
  pl: 'pl',
  zh: 'zh',
  ja: 'ja',
  pt: 'pt',
  ru: 'ru',
};

export interface CheckoutRequest {
  /** What is paid for: one order, or a cart of several (the webhook finds its orders by it). */
  paysFor: { orderId: string } | { cartId: string };
  email: string | null;
  lang: Locale;
  /** One line a plan: its name, its price each, how many. */
  lines: readonly { productName: string; amountMinor: number; quantity: number }[];
  currency: string;
  successUrl: string;
  cancelUrl: string;
  /** 30 minutes to 24 hours after the call, or Stripe refuses it (API reference, Checkout Sessions, create, expires_at). */
  expiresAt: Date;
  /**
   * The buyer's Customer, whose card the page saves for charges while they are away (automatic
   * top-ups, issue 49: `payment_intent_data.setup_future_usage=off_session`,
   * docs.stripe.com/payments/checkout/save-during-payment). Stripe then takes no customer_email.
   */
  saveCardFor?: string | undefined;
}

/**
 * The hosted payment page for an order. Its idempotency key names this exact request: the order id
 * and a hash of the parameters. Stripe saves the first result under a key, 500s included, for at
 * least 24 hours, and refuses the key with other parameters (docs.stripe.com/api/idempotent_requests).
 * So the SDK's own retries and a double click within the same second get the same session, while a
 * press after a failure carries a new expires_at (counted from now), hence a new key: a failure saved
 * under the earlier key never sticks to the order, and the retry is never refused for its new
 * parameters. A second session for one order is harmless: the order keeps the first one attached
 * (attachCheckout), and the other is never shown and expires.
 */
export async function createCheckoutSession(stripe: Stripe, request: CheckoutRequest): Promise<{ id: string; url: string }> {
  const reference = 'orderId' in request.paysFor ? request.paysFor.orderId : request.paysFor.cartId;
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: 'payment',
    line_items: request.lines.map((line) => ({
      quantity: line.quantity,
      price_data: {
        currency: request.currency.toLowerCase(),
        unit_amount: line.amountMinor,
        // Our prices are final, VAT included (Stripe Tax splits the buyer's country's VAT).
        tax_behavior: 'inclusive',
        product_data: { name: line.productName },
      },
    })),
    // Stripe Tax works out the VAT inside the price for the buyer's country (EU OSS) only when a
    // session asks: switching it on in the Dashboard is not enough (docs/going-live.md: Taxes).
    automatic_tax: { enabled: true },
    // For the currencies we do not list (issue 34): where Stripe finds the buyer's local currency is
    // none of ours (Sweden, India), its page offers the price in theirs too, at a rate it guarantees for
    // 24 hours with the conversion disclosed. The session, the charge we check and the refunds stay
    // in the order's currency (presentment_details says what the buyer saw); ineligible sessions ignore it.
    adaptive_pricing: { enabled: true },
    locale: CHECKOUT_LOCALES[request.lang],
    client_reference_id: reference,
    metadata: { ...request.paysFor },
    payment_intent_data: { metadata: { ...request.paysFor }, ...(request.saveCardFor && { setup_future_usage: 'off_session' }) },
    ...(request.saveCardFor ? { customer: request.saveCardFor } : request.email && { customer_email: request.email }),
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
    expires_at: Math.floor(request.expiresAt.getTime() / 1000),
  };
  const hash = createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 32);
  const session = await stripe.checkout.sessions.create(params, { idempotencyKey: `checkout-session-${reference}-${hash}` });
  if (!session.url) throw new Error(`Checkout Session ${session.id} has no URL`);
  return { id: session.id, url: session.url };
}

/** How a paid session was paid: the method and the receipt, from its payment intent's charge. */
export async function paymentDetails(
  stripe: Stripe,
  sessionId: string,
): Promise<{ paymentIntentId: string | null; method: PaymentMethod | null; receiptUrl: string | null }> {
  const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent.latest_charge'] });
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const charge = intent && typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const details = charge?.payment_method_details;
  return {
    paymentIntentId: intent?.id ?? (typeof session.payment_intent === 'string' ? session.payment_intent : null),
    method: details
      ? { type: details.type, ...(details.card && { brand: details.card.brand ?? undefined, last4: details.card.last4 ?? undefined }) }
      : null,
    receiptUrl: charge?.receipt_url ?? null,
  };
}

/**
 * Refunds a payment in full, once. Stripe is read first: a refund made for the same `reference`
 * (an order id, or a mismatched session) whose answer was lost, or that a replayed 500 hides, is
 * the answer (DESIGN 7), whether it is still pending or has succeeded. A new try gets a new
 * idempotency key (Stripe replays a saved 500 under the old one for a day); a second full refund
 * cannot happen, as Stripe refuses more than was paid (a pending refund counts against it).
 *
 * A refund that failed or was canceled gave nothing back (docs.stripe.com/refunds, failed refunds:
 * the money returns to our balance), so it is passed over and the payment refunded again, under a
 * key that names how many failed before: the key of the failed refund's own try would only replay it.
 */
export async function refundPayment(
  stripe: Stripe,
  request: { reference: string; paymentIntentId: string; amountMinor: number; reason: string; attempt: number },
): Promise<{ id: string; status: RefundStatus }> {
  const made = await stripe.refunds.list({ payment_intent: request.paymentIntentId, limit: 100 });
  const ours = made.data.filter((r) => r.metadata?.['reference'] === request.reference);
  const earlier = ours.find((r) => refundStatus(r.status) !== 'failed');
  if (earlier) return { id: earlier.id, status: refundStatus(earlier.status) };
  const failedBefore = ours.length;
  const refund = await stripe.refunds.create(
    {
      payment_intent: request.paymentIntentId,
      amount: request.amountMinor,
      reason: 'requested_by_customer',
      metadata: { reference: request.reference, reason: request.reason },
    },
    { idempotencyKey: `refund-${request.reference}-${request.attempt}${failedBefore > 0 ? `-after-${failedBefore}-failed` : ''}` },
  );
  return { id: refund.id, status: refundStatus(refund.status) };
}

/**
 * What a Stripe refund's status means for the shop. API reference, Refunds, the object: status is
 * "pending, requires_action, succeeded, failed, or canceled"; only `succeeded` gave the money back,
 * `failed` and `canceled` never will, anything else may still.
 */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';
export const refundStatus = (status: string | null | undefined): RefundStatus =>
  status === 'succeeded' ? 'succeeded' : status === 'failed' || status === 'canceled' ? 'failed' : 'pending';

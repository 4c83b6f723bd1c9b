import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { CheckoutEventType } from '../../stand-ins/stripe/server.ts';

/**
 * Stripe's Checkout events as Stripe sends them, for the tests that sign events themselves
 * (src/server/app.api.test.ts). One place for their shapes, which follow Stripe's API reference, "The
 * Checkout Session object" and "The Event object" (docs.stripe.com/api/checkout/sessions/object,
 * docs.stripe.com/api/events/object), and are typed by the installed SDK's types, generated from
 * Stripe's OpenAPI spec: a field Stripe always sends cannot be left out, and a value Stripe never
 * sends (payment_status 'paid' on an expired session) is the test's own choice, in plain sight.
 *
 * What each event carries (docs.stripe.com/checkout/fulfillment, docs.stripe.com/payments/payment-methods#payment-notification):
 * - checkout.session.completed: status 'complete'; payment_status 'paid' with its PaymentIntent
 *   (pi_…) for a card; 'unpaid' for a delayed method (a bank debit), whose PaymentIntent is
 *   still processing;
 * - checkout.session.async_payment_succeeded: 'complete', 'paid'; async_payment_failed: 'complete', 'unpaid';
 * - checkout.session.expired: status 'expired', payment_status 'unpaid', and no PaymentIntent
 *   unless the buyer tried to pay (a payment-mode session creates it only then).
 */

// The four events, as the Stripe stand-in names them when it sends them.
export type { CheckoutEventType };

/** Where a session is: what each event of the list above carries. */
export type SessionStage = 'paid' | 'processing' | 'payment_failed' | 'expired';

/** An id as Stripe makes them in test mode: its prefix, then 24 letters and digits. */
export const stripeId = (prefix: 'cs_test' | 'pi' | 'evt' | 'cus' | 'req') =>
  `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '').padEnd(24, '0').slice(0, 24)}`;

/** The session's own facts; everything else is what Stripe sends for one of the shop's sessions. */
export interface SessionFacts {
  id: string;
  client_reference_id: string | null;
  amount_total: number;
  /** Lower case, as Stripe writes it ('eur'). */
  currency: string;
  stage: SessionStage;
  /** Its PaymentIntent; a new pi_… unless given (or null for an expired session). */
  payment_intent?: string | null;
  customer_email?: string | null;
  created?: number;
}

const now = () => Math.floor(Date.now() / 1000);

/** A Checkout Session of the shop's kind (payment mode, one VAT-inclusive line, Stripe Tax, German buyer), at `stage`. */
export function checkoutSession(facts: SessionFacts): Stripe.Checkout.Session {
  const created = facts.created ?? now() - 120;
  const expired = facts.stage === 'expired';
  const paid = facts.stage === 'paid';
  // VAT inside the price (tax_behavior inclusive): Germany's 19 %.
  const tax = Math.round((facts.amount_total * 19) / 119);
  const email = facts.customer_email === undefined ? 'buyer@example.com' : facts.customer_email;
  return {
    id: facts.id,
    object: 'checkout.session',
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: facts.amount_total,
    amount_total: facts.amount_total,
    automatic_tax: { enabled: true, liability: { type: 'self' }, provider: 'stripe', status: expired ? null : 'complete' },
    billing_address_collection: null,
    cancel_url: 'https://esim.example.com/de/checkout?plan=de-1gb-7d&cancelled=1',
    client_reference_id: facts.client_reference_id,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created,
    currency: facts.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: null,
    customer_account: null,
    customer_creation: 'if_required',
    customer_details: expired
      ? null
      : {
          address: { city: null, country: 'DE', line1: null, line2: null, postal_code: null, state: null },
          business_name: null,
          email,
          individual_name: null,
          name: 'Erika Mustermann',
          phone: null,
          tax_exempt: 'none',
          tax_ids: [],
        },
    customer_email: email,
    discounts: [],
    expires_at: created + 24 * 3600,
    integration_identifier: null,
    invoice: null,
    invoice_creation: {
      enabled: false,
      invoice_data: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: null,
        metadata: {},
        rendering_options: null,
      },
    },
    livemode: false,
    locale: 'de',
    managed_payments: null,
    metadata: facts.client_reference_id ? { orderId: facts.client_reference_id } : {},
    mode: 'payment',
    origin_context: null,
    payment_intent: facts.payment_intent !== undefined ? facts.payment_intent : expired ? null : stripeId('pi'),
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: facts.stage === 'paid' ? ['card'] : ['card', 'sepa_debit'],
    payment_status: paid ? 'paid' : 'unpaid',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: expired ? 'expired' : 'complete',
    submit_type: null,
    subscription: null,
    success_url: 'https://esim.example.com/de/payment-success?order=' + (facts.client_reference_id ?? ''),
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: expired ? 0 : tax },
    ui_mode: 'hosted',
    url: null,
    wallet_options: null,
  };
}

/** The stage each Checkout event carries (the list above). */
export const STAGE_OF: Readonly<Record<CheckoutEventType, SessionStage>> = {
  'checkout.session.completed': 'paid',
  'checkout.session.async_payment_succeeded': 'paid',
  'checkout.session.async_payment_failed': 'payment_failed',
  'checkout.session.expired': 'expired',
};

/** An event as Stripe delivers it to a webhook endpoint, rendered in the SDK's API version. */
export function checkoutEvent(type: CheckoutEventType, session: Stripe.Checkout.Session, id = stripeId('evt')): Stripe.Event {
  const event = {
    id,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: now(),
    data: { object: session },
    livemode: false,
    pending_webhooks: 1,
    // Caused by the buyer on Stripe's page, not by an API request of ours.
    request: { id: null, idempotency_key: null },
    type,
  } satisfies Stripe.EventBase & { data: { object: Stripe.Checkout.Session }; type: CheckoutEventType };
  return event as Stripe.Event;
}

/** The JSON body Stripe posts, and its Stripe-Signature header made with the endpoint's secret (the SDK's own test helper). */
export function signedEvent(event: Stripe.Event, secret: string): { payload: string; signature: string } {
  const payload = JSON.stringify(event, null, 2);
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}

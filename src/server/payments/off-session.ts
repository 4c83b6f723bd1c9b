import Stripe from 'stripe';
import type { PaymentMethod } from '../../contract/shop-api.ts';

/**
 * A charge of the buyer's saved card while they are away (issue 49): a PaymentIntent with
 * `off_session: true, confirm: true` (docs.stripe.com/payments/save-and-reuse, "Charge the saved
 * payment method later"). The bank may refuse it: it asks for authentication
 * (`authentication_required`) or declines; either way nothing is charged and the intent waits in
 * `requires_payment_method` (the same page: "When a payment attempt fails, the request also fails
 * with a 402 HTTP status code and the status of the PaymentIntent is requires_payment_method").
 */
export type OffSessionCharge =
  | { status: 'succeeded'; paymentIntentId: string; method: PaymentMethod | null; receiptUrl: string | null }
  /** Nothing charged: the bank's reason (authentication_required, insufficient_funds, card_declined, …). */
  | { status: 'refused'; paymentIntentId: string | null; reason: string }
  /** Still on its way (not for cards, but Stripe allows it): read again later. */
  | { status: 'pending'; paymentIntentId: string };

export interface OffSessionRequest {
  /** The order it pays for: named in the intent's metadata, which is how a lost answer is found again. */
  orderId: string;
  customerId: string;
  paymentMethodId: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** The try: a new one gets a new idempotency key (Stripe replays a saved 500 under the old one for a day). */
  attempt: number;
}

/** Why the bank refused an intent, from its last error: the decline code when it names one (insufficient_funds), else the error's code. */
const reasonOf = (error: { code?: string | undefined; decline_code?: string | undefined } | null | undefined) =>
  error?.decline_code ?? error?.code ?? 'card_declined';

async function outcomeOf(stripe: Stripe, intent: Stripe.PaymentIntent): Promise<OffSessionCharge> {
  switch (intent.status) {
    case 'succeeded': {
      const read = await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] });
      const charge = typeof read.latest_charge === 'object' ? read.latest_charge : null;
      const card = charge?.payment_method_details?.card;
      return {
        status: 'succeeded',
        paymentIntentId: intent.id,
        method: charge?.payment_method_details
          ? { type: charge.payment_method_details.type, ...(card && { brand: card.brand ?? undefined, last4: card.last4 ?? undefined }) }
          : null,
        receiptUrl: charge?.receipt_url ?? null,
      };
    }
    case 'processing':
      return { status: 'pending', paymentIntentId: intent.id };
    // requires_action: the bank wants the buyer (off-session Stripe answers authentication_required instead).
    case 'requires_action':
      return { status: 'refused', paymentIntentId: intent.id, reason: 'authentication_required' };
    default:
      return { status: 'refused', paymentIntentId: intent.id, reason: reasonOf(intent.last_payment_error) };
  }
}

/** What became of the intent made for this order on this Customer (an answer lost), or undefined when none was made. */
export async function earlierCharge(stripe: Stripe, customerId: string, orderId: string): Promise<OffSessionCharge | undefined> {
  const made = await stripe.paymentIntents.list({ customer: customerId, limit: 100 });
  const earlier = made.data.find((intent) => intent.metadata?.['orderId'] === orderId);
  return earlier && outcomeOf(stripe, earlier);
}

/**
 * Charges the saved card once for the order. Stripe is read first: an intent made for this order
 * whose answer was lost is the answer (DESIGN 7), whatever became of it; only when there is none is
 * one made. Throws what is not an answer (Stripe unreachable, a 500): the caller tries again.
 */
export async function chargeOffSession(stripe: Stripe, request: OffSessionRequest): Promise<OffSessionCharge> {
  const earlier = await earlierCharge(stripe, request.customerId, request.orderId);
  if (earlier) return earlier;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripe.paymentIntents.create(
      {
        amount: request.amountMinor,
        currency: request.currency.toLowerCase(),
        customer: request.customerId,
        payment_method: request.paymentMethodId,
        off_session: true,
        confirm: true,
        description: request.description,
        metadata: { orderId: request.orderId },
      },
      { idempotencyKey: `off-session-${request.orderId}-${request.attempt}` },
    );
  } catch (error) {
    // docs.stripe.com/declines/codes: authentication_required, insufficient_funds, … all card errors.
    if (error instanceof Stripe.errors.StripeCardError)
      return { status: 'refused', paymentIntentId: error.payment_intent?.id ?? null, reason: reasonOf(error) };
    throw error;
  }
  return outcomeOf(stripe, intent);
}

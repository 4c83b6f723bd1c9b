import type Stripe from 'stripe';
import { CHARGE_FACTS_FILL_PER_RUN, CHARGE_FACTS_FILL_WINDOW_MS } from '../../config/constants.ts';
import type { Db, Queryable } from '../db/db.types.ts';

/**
 * What Stripe knows of a payment's charge that the shop keeps (migrations 0017, 0031): the fraud
 * signals' facts (src/server/fraud/signals.ts), Stripe's fee and what it settled into our balance
 * (the business figures). Shapes from the API reference, Charges, the object:
 * payment_method_details.card.fingerprint and .country, billing_details.address.country,
 * outcome.risk_level and .risk_score; Balance Transactions: amount, currency, fee ("Gross amount of
 * this transaction", in the balance's currency: euros for a charge in dollars, converted at its
 * exchange_rate).
 */
export interface ChargeFacts {
  chargeId: string;
  /** The card's fingerprint (a SEPA debit's bank account's); null for methods without one. */
  fingerprint: string | null;
  /** normal, elevated, highest; not_assessed (not a card), unknown (Radar's error); null without Radar. */
  riskLevel: string | null;
  riskScore: number | null;
  /** The billing address's country, else the card's. */
  buyerCountry: string | null;
  /** Null while Stripe reports no balance transaction. */
  stripeFee: { minor: number; currency: string } | null;
  /** What reached our balance before the fee, in the balance's currency (EUR); null while Stripe reports no balance transaction. */
  settled: { minor: number; currency: string } | null;
}

/** The facts of one charge, from the charge itself (its balance_transaction expanded, or just an id). */
export function chargeFacts(charge: Stripe.Charge): ChargeFacts {
  const details = charge.payment_method_details;
  const country = charge.billing_details?.address?.country ?? details?.card?.country ?? null;
  const transaction = typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
  return {
    chargeId: charge.id,
    fingerprint: details?.card?.fingerprint ?? details?.sepa_debit?.fingerprint ?? null,
    riskLevel: charge.outcome?.risk_level ?? null,
    riskScore: charge.outcome?.risk_score ?? null,
    buyerCountry: country && /^[A-Z]{2}$/.test(country) ? country : null,
    stripeFee: transaction ? { minor: transaction.fee, currency: transaction.currency.toUpperCase() } : null,
    settled: transaction ? { minor: transaction.amount, currency: transaction.currency.toUpperCase() } : null,
  };
}

/**
 * Reads the facts of a payment intent's latest charge at Stripe, in one call. Undefined when the
 * intent has no charge yet; throws what Stripe throws (the caller decides what a failed read means).
 */
export async function readChargeFacts(stripe: Stripe, paymentIntentId: string): Promise<ChargeFacts | undefined> {
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge.balance_transaction'] });
  return typeof intent.latest_charge === 'object' && intent.latest_charge ? chargeFacts(intent.latest_charge) : undefined;
}

/** Stores the facts on the payment row they were read for; undefined: Stripe has no charge to tell of (read all the same, not asked again). */
export async function recordChargeFacts(tx: Queryable, paymentId: number, facts: ChargeFacts | undefined): Promise<void> {
  await tx.query(
    `UPDATE payments SET charge_id = $2, card_fingerprint = $3, risk_level = $4, risk_score = $5, buyer_country = $6,
       stripe_fee_minor = $7, stripe_fee_currency = $8, settled_amount_minor = $9, settled_currency = $10, charge_facts_at = now()
     WHERE id = $1`,
    [
      paymentId,
      facts?.chargeId ?? null,
      facts?.fingerprint ?? null,
      facts?.riskLevel ?? null,
      facts?.riskScore ?? null,
      facts?.buyerCountry ?? null,
      facts?.stripeFee?.minor ?? null,
      facts?.stripeFee?.currency ?? null,
      facts?.settled?.minor ?? null,
      facts?.settled?.currency ?? null,
    ],
  );
}

/**
 * The reconcile job's part: paid payments whose charge was never read (Stripe could not be reached
 * when the order was delivered, or the order never went through delivery), read now, the oldest
 * first, a few a run. A read that fails again is left for the next run. Answers how many it stored.
 */
export async function fillChargeFacts(db: Db, stripe: Stripe, limit = CHARGE_FACTS_FILL_PER_RUN): Promise<number> {
  const unread = await db.query<{ id: number; payment_intent_id: string }>(
    `SELECT id, payment_intent_id FROM payments
     WHERE status = 'paid' AND charge_facts_at IS NULL AND payment_intent_id IS NOT NULL
       AND created_at > now() - $1 * interval '1 millisecond'
     ORDER BY created_at LIMIT $2`,
    [CHARGE_FACTS_FILL_WINDOW_MS, limit],
  );
  let stored = 0;
  for (const payment of unread) {
    try {
      const facts = await readChargeFacts(stripe, payment.payment_intent_id);
      await recordChargeFacts(db, Number(payment.id), facts);
      stored++;
    } catch (error) {
      console.error(
        'charge facts: read failed, tried again later',
        payment.payment_intent_id,
        error instanceof Error ? error.message : error,
      );
    }
  }
  return stored;
}

import type Stripe from 'stripe';
import type { SavedCardView } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import { CHECKOUT_LOCALES } from '../payments/stripe.ts';
import type { SavedCard } from './auto-top-ups.types.ts';
import * as store from './store.ts';

/**
 * The buyer's saved card (issue 49): saved on Stripe's own page (Checkout in setup mode, for a
 * Customer of theirs), so its details never touch us (docs.stripe.com/payments/save-and-reuse).
 * What we keep is the Customer, the card's id at Stripe, and what the pages show of it.
 */

export const cardView = (card: SavedCard | undefined): SavedCardView | null =>
  card?.payment_method_id && card.saved_at
    ? { brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year, savedAt: card.saved_at.toISOString() }
    : null;

/** The buyer's Customer at Stripe, made the first time (a race's second one is never used: the first recorded answers). */
export async function customerOf(db: Db, stripe: Stripe, caller: { uid: string; email: string | null }): Promise<SavedCard> {
  const known = await store.savedCard(db, caller.uid);
  if (known) return known;
  const customer = await stripe.customers.create({ ...(caller.email && { email: caller.email }), metadata: { uid: caller.uid } });
  return store.rememberCustomer(db, caller.uid, customer.id);
}

/**
 * Stripe's page that saves a card for off-session use (Checkout, mode=setup): cards only, since a
 * bank debit charged while the buyer is away takes days to settle. It comes back to `returnUrl`
 * with the session's id, which POST /me/card/saved reads.
 */
export async function cardSetupPage(
  db: Db,
  stripe: Stripe,
  caller: { uid: string; email: string | null },
  request: { lang: Locale; currency: string; returnUrl: string },
): Promise<string> {
  const { stripe_customer_id: customer } = await customerOf(db, stripe, caller);
  const back = new URL(request.returnUrl);
  back.searchParams.set('card_saved', '{CHECKOUT_SESSION_ID}');
  const session = await stripe.checkout.sessions.create({
    mode: 'setup',
    customer,
    currency: request.currency.toLowerCase(),
    allowed_payment_method_types: ['card'],
    locale: CHECKOUT_LOCALES[request.lang],
    metadata: { uid: caller.uid },
    setup_intent_data: { metadata: { uid: caller.uid } },
    // Stripe fills in the id: '{CHECKOUT_SESSION_ID}' must reach it unescaped.
    success_url: back.href.replace(encodeURIComponent('{CHECKOUT_SESSION_ID}'), '{CHECKOUT_SESSION_ID}'),
    cancel_url: request.returnUrl,
  });
  if (!session.url) throw new Error(`Checkout Session ${session.id} has no URL`);
  return session.url;
}

/** The card a completed setup page saved, read from Stripe; undefined when it saved none (yet). */
export async function cardOfSetupSession(stripe: Stripe, sessionId: string): Promise<SavedByStripe | undefined> {
  const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] });
  const intent = typeof session.setup_intent === 'object' ? session.setup_intent : null;
  const method = intent && typeof intent.payment_method === 'object' ? intent.payment_method : null;
  const customerId = typeof session.customer === 'string' ? session.customer : session.customer?.id;
  if (session.mode !== 'setup' || intent?.status !== 'succeeded' || !method?.card || !customerId) return undefined;
  return stillAttached(method, customerId);
}

/**
 * The card a paid checkout saved for off-session use (automatic top-ups ticked at checkout:
 * setup_future_usage=off_session on the buyer's Customer), read from Stripe; undefined when it saved none.
 */
export async function cardOfPayment(stripe: Stripe, paymentIntentId: string): Promise<SavedByStripe | undefined> {
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
  const customerId = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
  const methodId = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method?.id;
  if (intent.setup_future_usage !== 'off_session' || !customerId || !methodId) return undefined;
  return stillAttached(await stripe.paymentMethods.retrieve(methodId), customerId);
}

/**
 * The card, while it is still on the Customer: a late event (Stripe retries them for days) about a
 * card the buyer has replaced since, detached at Stripe, brings nothing back.
 */
function stillAttached(method: Stripe.PaymentMethod, customerId: string): SavedByStripe | undefined {
  const on = typeof method.customer === 'string' ? method.customer : method.customer?.id;
  return method.card && on === customerId ? { customerId, card: cardFacts(method) } : undefined;
}

/** What we keep of a card Stripe saved: its id there, and what the pages show. */
const cardFacts = (method: Stripe.PaymentMethod) => ({
  paymentMethodId: method.id,
  brand: method.card?.brand ?? null,
  last4: method.card?.last4 ?? null,
  expMonth: method.card?.exp_month ?? null,
  expYear: method.card?.exp_year ?? null,
});

/** A card saved at Stripe, on the Customer it belongs to. */
export interface SavedByStripe {
  customerId: string;
  card: ReturnType<typeof cardFacts>;
}

/**
 * Records the card a setup page saved, on the buyer whose Customer it is (the webhook's and the
 * returning page's path alike; the same card twice changes nothing). One card an account: answers
 * the card it replaced, for detachCard once the transaction is over (Stripe is never asked while a
 * lock is held).
 */
export async function recordSavedCard(tx: Queryable, saved: SavedByStripe): Promise<string | undefined> {
  const [before] = await tx.query<{ payment_method_id: string | null }>(
    'SELECT payment_method_id FROM saved_cards WHERE stripe_customer_id = $1 FOR UPDATE',
    [saved.customerId],
  );
  await store.recordCard(tx, saved.customerId, saved.card);
  const replaced = before?.payment_method_id;
  return replaced && replaced !== saved.card.paymentMethodId ? replaced : undefined;
}

/** A replaced card detached at Stripe; a failure is only logged (a card we no longer store is never charged). */
export async function detachCard(stripe: Stripe, paymentMethodId: string | undefined): Promise<void> {
  if (!paymentMethodId) return;
  await stripe.paymentMethods
    .detach(paymentMethodId)
    .catch((error: unknown) => console.error('saved card: old card not detached', error instanceof Error ? error.message : error));
}

/**
 * Removes the buyer's saved card: their Customer deleted at Stripe (which detaches its cards), then
 * forgotten here, and every eSIM's automatic top-ups turned off, recorded as `by` says. Stripe
 * first: a failure there leaves everything as it was, to be tried again.
 */
export async function removeSavedCard(db: Db, stripe: Stripe, uid: string, by: string): Promise<void> {
  const card = await store.savedCard(db, uid);
  if (card) {
    await stripe.customers.del(card.stripe_customer_id).catch((error: unknown) => {
      // Already deleted (an earlier try whose answer was lost): nothing left at Stripe.
      if ((error as { code?: string }).code !== 'resource_missing') throw error;
    });
  }
  await db.transaction(async (tx) => {
    await store.turnOffAllOf(tx, uid, by, 'saved card removed');
    await store.forgetCard(tx, uid);
  });
}

import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A local stand-in for Stripe (dev and tests only; nothing under src/ imports it). The real
 * `stripe` SDK talks to it through its host/port/protocol options. It implements just the calls
 * the shop makes (Checkout Sessions in payment and setup mode: create, retrieve with expand,
 * expire; customers, their saved cards (PaymentMethods) and SetupIntents; off-session payment
 * intents on a saved card; payment intents, charges, refunds and balance transactions by id, with
 * the expands the shop uses), charges that carry Radar's outcome, the card's fingerprint and
 * country, and Stripe's fee, Idempotency-Key replays, a hosted test-payment page that takes
 * Stripe's documented test cards and test IBANs, and webhooks signed as Stripe signs them,
 * retried until answered 2xx. What Stripe does later by itself happens on the stand-in's clock:
 * open sessions expire at their expires_at, bank debits succeed or fail, pending refunds settle.
 * Tests can make delivery as untidy as Stripe's: late, twice, out of order (DeliveryRules).
 */

export const STAND_IN_SECRET_KEY = 'sk_test_stand_in';
export const STAND_IN_WEBHOOK_SECRET = 'whsec_stand_in';
const API_VERSION = '2026-10-28.endive';

/**
 * What a refund does after it is created: Stripe's card refunds mostly succeed at once, but a
 * refund can stay `pending` and later succeed or fail, and one reported `succeeded` can still fail
 * later (docs.stripe.com/refunds#failed-refunds: "A refund can fail if the customer's bank or card
 * issuer can't process it"; API reference, Refunds, the object: status is "pending, requires_action,
 * succeeded, failed, or canceled").
 */
export type RefundPath = 'succeeded' | 'pending_then_succeeded' | 'pending_then_failed' | 'succeeded_then_failed';

/**
 * Radar's evaluation of a charge (API reference, Charges, the object, outcome.risk_level: "normal,
 * elevated, highest" for evaluated payments; risk_score 0 to 100).
 */
type RiskLevel = 'normal' | 'elevated' | 'highest';

/**
 * A test card that pays, or can at least be saved. `authentication`: when its issuer asks the
 * cardholder to authenticate (docs.stripe.com/testing, Authentication and setup); on the hosted
 * page the buyer authenticates on Stripe's page, which the stand-in counts as done, so only an
 * off-session payment, where nobody can, fails for it. `charges`: the card can be saved, but
 * every charge of it is declined so.
 */
type PayingCard = {
  brand: string;
  refunds?: RefundPath;
  risk?: RiskLevel;
  authentication?: 'unless_set_up' | 'always';
  charges?: { declineCode: string; message: string };
};
/**
 * A card the issuer declines: refused on the page, in payment and in setup mode alike
 * (docs.stripe.com/testing, Declined payments: "You can’t attach cards that simulate issuer
 * declines to a Customer object").
 */
type DecliningCard = { decline: string; code: string };

/** Stripe's test cards (docs.stripe.com/testing) and what they do on the hosted page and off-session. */
const TEST_CARDS: Record<string, PayingCard | DecliningCard> = {
  '4242424242424242': { brand: 'visa' },
  '4000000000000002': { decline: 'Your card was declined.', code: 'card_declined' },
  '4000000000009995': { decline: 'Your card has insufficient funds.', code: 'insufficient_funds' },
  // docs.stripe.com/testing, Authentication and setup: 3155 "requires authentication for
  // off-session payments unless you set it up for future payments. After you set it up,
  // off-session payments no longer require authentication"; 3184 "requires authentication on all
  // transactions, regardless of how the card is set up"; 3178 "requires authentication for one-time
  // payments. All payments are declined with an insufficient_funds failure code even after being
  // successfully authenticated or previously set up" (so it is saved, and its off-session
  // payments are declined insufficient_funds).
  '4000002500003155': { brand: 'visa', authentication: 'unless_set_up' },
  '4000002760003184': { brand: 'visa', authentication: 'always' },
  '4000008260003178': { brand: 'visa', charges: { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' } },
  // docs.stripe.com/testing, Declined payments, "Decline after attaching": 0341 "Attaching this card
  // to a Customer object succeeds, but attempts to charge the customer fail" (card_declined,
  // generic_decline, as the table's generic decline).
  '4000000000000341': { brand: 'visa', charges: { declineCode: 'generic_decline', message: 'Your card was declined.' } },
  // docs.stripe.com/testing, Fraud prevention (and docs.stripe.com/radar/testing): 9235 "Results in
  // a charge with a risk_level of elevated"; 4954 "Results in a charge with a risk_level of highest"
  // (blocked or not "depending on the rules you have in place": here it is not, so the shop's own
  // hold of highest-risk orders is what stops it); 4100 0000 0000 0019 is "always blocked".
  '4000000000009235': { brand: 'visa', risk: 'elevated' },
  '4000000000004954': { brand: 'visa', risk: 'highest' },
  '4100000000000019': { decline: 'Your card was declined.', code: 'card_declined' },
  // docs.stripe.com/testing, "Refunds" (Simulate an asynchronous refund): with 7726 the refund's
  // "status begins as pending. Some time later, its status transitions to succeeded"; with 5126 it
  // "begins as succeeded. Some time later, its status transitions to failed" (failure_reason
  // expired_or_canceled_card). Both pay like 4242.
  '4000000000007726': { brand: 'visa', refunds: 'pending_then_succeeded' },
  '4000000000005126': { brand: 'visa', refunds: 'succeeded_then_failed' },
};

/**
 * SEPA Direct Debit, the delayed method on the page: "a delayed notification payment method, which
 * means that funds aren't immediately available after payment" (docs.stripe.com/payments/sepa-debit/accept-a-payment).
 * Stripe's test IBANs (docs.stripe.com/payments/sepa-debit/accept-a-payment, Test your integration):
 * the PaymentIntent goes from `processing` to `succeeded`, or to `requires_payment_method`, the
 * "Delayed" ones "after at least three minutes".
 */
const TEST_IBANS: Record<string, { outcome: 'succeeded' | 'failed'; delayed: boolean }> = {
  DE89370400440532013000: { outcome: 'succeeded', delayed: false },
  DE08370400440532013003: { outcome: 'succeeded', delayed: true },
  DE62370400440532013001: { outcome: 'failed', delayed: false },
  DE78370400440532013004: { outcome: 'failed', delayed: true },
};
const DELAYED_DEBIT_MS = 3 * 60_000;

/**
 * A charge's `outcome` as the API reference shapes it (Charges, the object, outcome): Radar's
 * risk_level and risk_score (scores below 65 are normal, 65-74 elevated, 75 and above highest on
 * Stripe's scale), and the seller_message and type Stripe gives: an elevated payment "placed in your
 * manual review queue" is type manual_review with reason elevated_risk_level. Non-card payments are
 * not_assessed, without a score.
 */
function outcome(risk: RiskLevel | 'not_assessed'): Record<string, unknown> {
  const base = { network_status: 'approved_by_network', reason: null, rule: null, advice_code: null };
  switch (risk) {
    case 'not_assessed':
      return { ...base, risk_level: 'not_assessed', seller_message: 'Payment complete.', type: 'authorized' };
    case 'normal':
      return { ...base, risk_level: 'normal', risk_score: 20, seller_message: 'Payment complete.', type: 'authorized' };
    case 'elevated':
      return {
        ...base,
        reason: 'elevated_risk_level',
        risk_level: 'elevated',
        risk_score: 70,
        seller_message: 'Stripe evaluated this payment as having elevated risk, and placed it in your manual review queue.',
        type: 'manual_review',
      };
    case 'highest':
      return { ...base, risk_level: 'highest', risk_score: 85, seller_message: 'Payment complete.', type: 'authorized' };
  }
}

/**
 * The `outcome` of a charge the card's issuer declined (API reference, Charges, the object,
 * outcome: network_status declined_by_network, type issuer_declined, reason the decline code;
 * seller_message as Stripe words it, "The bank returned the decline code `insufficient_funds`.",
 * or, for a generic decline, "The bank did not return any further details with this decline.").
 */
const declinedOutcome = (declineCode: string): Record<string, unknown> => ({
  network_status: 'declined_by_network',
  reason: declineCode,
  rule: null,
  advice_code: null,
  risk_level: 'normal',
  risk_score: 20,
  seller_message:
    declineCode === 'generic_decline'
      ? 'The bank did not return any further details with this decline.'
      : `The bank returned the decline code \`${declineCode}\`.`,
  type: 'issuer_declined',
});

/**
 * A card's or bank account's fingerprint: Stripe's "Uniquely identifies this particular card number
 * [...] For example, two customers who've signed up with the same card number will have the same
 * fingerprint" (API reference, payment_method_details.card.fingerprint). 16 characters, like Stripe's.
 */
const fingerprint = (kind: string, number: string) =>
  createHash('sha256')
    .update(`${kind}:${number}`)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 16);

/**
 * What Stripe keeps of a payment, in the shape of its price list for Germany (stripe.com/de/pricing:
 * standard EEA cards 1.5 % + EUR 0.25, SEPA Direct Debit EUR 0.35): the stand-in's figures, not a
 * quote of anyone's contract.
 */
const stripeFee = (method: 'card' | 'sepa_debit', amount: number) => (method === 'card' ? Math.round(amount * 0.015) + 25 : 35);

/** Stripe's currency conversion into the balance's currency (stripe.com/de/pricing: 2 % on top of the card's fee). */
const CONVERSION_FEE = 0.02;

/**
 * The balance's currency: a German account settles in euros, whatever the charge's currency
 * (docs.stripe.com/payouts#supported-accounts-and-settlement-currencies).
 */
const SETTLEMENT_CURRENCY = 'eur';

/**
 * Zero-decimal currencies among those the shop charges in (docs.stripe.com/currencies#zero-decimal):
 * the amount is in yen, not hundredths.
 */
const ZERO_DECIMAL = new Set(['jpy']);

/** An amount in minor units as money ('£4.49', '¥370': yen have no minor unit). */
const money = (amountMinor: number, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(
    ZERO_DECIMAL.has(currency.toLowerCase()) ? amountMinor : amountMinor / 100,
  );

/**
 * The stand-in's fixed rates, units per euro: the ECB's reference rates of the day in
 * tests/fixtures/ecb/eurofxref-daily.xml (what the catalogue's stand-in rates come from too), else
 * this table of the same day's rates when the fixture is not there (a copied stand-in).
 */
const FALLBACK_PER_EURO: Readonly<Record<string, number>> = {
  usd: 1.1628,
  gbp: 0.878,
  chf: 0.931,
  pln: 4.235,
  jpy: 181.2,
  cad: 1.625,
  aud: 1.785,
  brl: 6.21,
};
const PER_EURO: Readonly<Record<string, number>> = (() => {
  try {
    const xml = readFileSync(new URL('../../tests/fixtures/ecb/eurofxref-daily.xml', import.meta.url), 'utf8');
    const rates = [...xml.matchAll(/<Cube\s+currency=['"]([A-Z]{3})['"]\s+rate=['"]([0-9.]+)['"]/g)].map(
      ([, currency, rate]) => [currency!.toLowerCase(), Number(rate)] as const,
    );
    return rates.length > 0 ? Object.fromEntries(rates) : FALLBACK_PER_EURO;
  } catch {
    return FALLBACK_PER_EURO;
  }
})();

/**
 * A charge's amount in the balance's currency, as Stripe books it (API reference, Balance
 * Transactions, the object): `exchange_rate` is what the charge's amount, in major units, is
 * multiplied by to give the balance's ("if money was converted from currency A to currency B, then
 * the amount in currency A, times exchange_rate, would be the amount in currency B"), null when
 * nothing was converted. Stripe quotes it to 6 decimals; the amount is computed from the quoted
 * rate, in cents, so the figures on the transaction agree with each other. A currency without a
 * stand-in rate settles as itself (as if the account held a balance in it).
 */
export function settlementOf(amountMinor: number, currency: string): { amount: number; currency: string; exchangeRate: number | null } {
  const charged = currency.toLowerCase();
  const perEuro = PER_EURO[charged];
  if (charged === SETTLEMENT_CURRENCY || perEuro === undefined) return { amount: amountMinor, currency: charged, exchangeRate: null };
  const exchangeRate = Math.round((1 / perEuro) * 1e6) / 1e6;
  const major = ZERO_DECIMAL.has(charged) ? amountMinor : amountMinor / 100;
  return { amount: Math.round(major * exchangeRate * 100), currency: SETTLEMENT_CURRENCY, exchangeRate };
}

export interface StripeStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where events are POSTed; without one, events are only recorded. */
  webhookUrl?: string;
  webhookSecret: string;
  /** Waits between delivery attempts of one event (Stripe retries for days; locally seconds). */
  retryDelaysMs?: number[];
  /** How deliveries go from the start (see DeliveryRules; `deliveries()` changes them later). */
  delivery?: DeliveryRules;
  /** How long, on the stand-in's clock, a bank debit takes to succeed or fail (the IBANs that are not "delayed"); 1 s unless set. */
  debitSettleMs?: number;
  /** How long, on the stand-in's clock, a refund stays pending (or succeeded, before it fails); 1 s unless set. */
  refundSettleMs?: number;
}

/**
 * Webhook delivery as untidy as Stripe's (docs.stripe.com/webhooks), switched on by a test; by
 * default every event goes out once, in order, one at a time.
 */
export interface DeliveryRules {
  /**
   * Each event goes out this many times, the copies at once (docs.stripe.com/webhooks, Handle
   * duplicate events: "Webhook endpoints might occasionally receive the same event more than once").
   */
  copies?: number;
  /**
   * Events are held this long, then sent newest first (docs.stripe.com/webhooks, Event ordering:
   * "Stripe doesn't guarantee the delivery of events in the order in which they're generated").
   */
  reorderWindowMs?: number;
  /**
   * Each event waits this long before its first attempt (Stripe "automatically resends the
   * undelivered events to your endpoint for up to three days", docs.stripe.com/webhooks/process-undelivered-events:
   * an event can come late, after newer ones).
   */
  delayMs?: number;
}

/**
 * How the API fails while a test keeps Stripe down: `drop` closes each connection unanswered
 * (Stripe never saw the call); `status: 500` answers api_error once the endpoint has run (what it
 * did stays done: a 500 does not say whether the request was applied), and Stripe saves that 500
 * under the request's Idempotency-Key like any other result. Parameters that fail validation are
 * still refused with their 400.
 */
export type StripeOutage = { drop: true } | { status: 500 };

type Session = Record<string, unknown> & {
  id: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: string;
  success_url: string;
  cancel_url?: string;
  customer: string | null;
  payment_intent: string | null;
  setup_intent: string | null;
  expires_at: number;
} & (
    | { mode: 'payment'; amount_total: number; currency: string }
    /** Setup mode saves a card: nothing is paid (API reference, Checkout Sessions, the object: amount_total and currency nullable). */
    | { mode: 'setup'; amount_total: null; currency: string | null }
  );
type Intent = Record<string, unknown> & { id: string; object: 'payment_intent'; status: string };
type PaymentMethod = Record<string, unknown> & { id: string; object: 'payment_method'; customer: string | null };
type Refund = Record<string, unknown> & {
  id: string;
  object: 'refund';
  amount: number;
  payment_intent: string;
  charge: string;
  status: 'pending' | 'succeeded' | 'failed';
  metadata: Record<string, string>;
};

export type CheckoutEventType =
  | 'checkout.session.completed'
  | 'checkout.session.expired'
  | 'checkout.session.async_payment_succeeded'
  | 'checkout.session.async_payment_failed';
export type RefundEventType = 'refund.created' | 'refund.updated' | 'refund.failed' | 'charge.refund.updated';
/**
 * Sent for the payment intents made by `POST /v1/payment_intents` (off-session), not for those the
 * hosted page makes (API reference, Events: payment_intent.succeeded "Occurs when a PaymentIntent
 * has successfully completed payment", payment_intent.payment_failed "Occurs when a PaymentIntent
 * has failed the attempt to create a payment method or a payment").
 */
export type PaymentIntentEventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed';
export type StandInEvent =
  | { id: string; type: CheckoutEventType; data: { object: Session } }
  | { id: string; type: RefundEventType; data: { object: Refund } }
  | { id: string; type: PaymentIntentEventType; data: { object: Intent } };

export interface DeliveredEvent {
  event: StandInEvent;
  /** Every attempt, of every copy (`copy` 0 is the first). */
  attempts: { at: number; status: number | null; error?: string; copy: number }[];
  delivered: boolean;
}

export interface StripeStandIn {
  url: string;
  /** Every event sent, in the order it was created, with its delivery attempts. */
  events: DeliveredEvent[];
  /** Every delivery attempt in the order it was answered (with DeliveryRules, not the order above). */
  deliveries: { id: string; type: string; status: number | null }[];
  /** Resolves once every event queued (or held) so far has been delivered or given up. */
  settled(): Promise<void>;
  /** Every API call (/v1/…) fails this way until called again with null. */
  outage(failure: StripeOutage | null): void;
  /** How events are delivered from now on; null: once each, in order. */
  deliveryRules(rules: DeliveryRules | null): void;
  /**
   * The refunds of this payment intent, in turn, take these paths (the last one repeats), whatever
   * card paid: a test's own 'pending, then failed'.
   */
  refundPaths(paymentIntentId: string, paths: RefundPath[]): void;
  /** Every pending refund, and every succeeded one due to fail, settles now. */
  settleRefunds(): void;
  /**
   * Moves the stand-in's clock forward (idempotency keys' age, sessions' created and expires_at),
   * and carries out what came due meanwhile: open sessions expire, bank debits and refunds settle.
   */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
/** Webhook signatures carry real time: the receiver checks them against its own clock. */
const now = () => Math.floor(Date.now() / 1000);
/** How long an idempotency key is kept: "at least 24 hours" (docs.stripe.com/api/idempotent_requests). */
const IDEMPOTENCY_KEY_LIFETIME_S = 24 * 3600;

/** An API answer; `unsaved`: the parameters failed validation, so the endpoint never started and no idempotent result is kept. */
type Answer = [status: number, body: unknown, unsaved?: 'unsaved'];
const invalid = (param: string, message: string): Answer => [400, { error: { type: 'invalid_request_error', message, param } }, 'unsaved'];
/** Stripe's answer for an id it does not know: 404 for the object asked for, 400 for one named in the parameters. */
const noSuch = (what: string, id: unknown, param?: string, unsaved?: 'unsaved'): Answer =>
  [
    param ? 400 : 404,
    {
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such ${what}: '${String(id ?? '')}'`,
        ...(param && { param }),
      },
    },
    ...(unsaved ? [unsaved] : []),
  ] as Answer;

/** `a[b][0][c]=x` form fields (how the SDK encodes) as nested objects and arrays. */
export function decodeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== '');
    let node: Record<string, unknown> = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value).map(([k, v]) => [k, arrays(v)] as const);
    return entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k)) ? entries.map(([, v]) => v) : Object.fromEntries(entries);
  };
  return arrays(root) as Record<string, unknown>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startStripeStandIn(options: StripeStandInOptions): Promise<StripeStandIn> {
  const sessions = new Map<string, Session>();
  /** What a session was asked that its object does not show: payment_intent_data[setup_future_usage], setup_intent_data[metadata]. */
  const sessionAsked = new Map<string, { futureUsage: 'off_session' | 'on_session' | null; setupMetadata: unknown }>();
  const intents = new Map<string, Intent>();
  /** A deleted customer is kept as `{id, object, deleted: true}` (API reference, Customers, delete). */
  const customers = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, PaymentMethod>();
  /** What Stripe knows of a saved card and does not show: which test card it is, and whether it was set up for off-session use. */
  const cardBehind = new Map<string, { card: PayingCard; offSession: boolean }>();
  const setupIntents = new Map<string, Record<string, unknown>>();
  const charges = new Map<string, Record<string, unknown>>();
  const refunds = new Map<string, Refund>();
  const balanceTransactions = new Map<string, Record<string, unknown>>();
  const idempotent = new Map<
    string,
    { request: string; savedAt: number; status: number; body: unknown; headers: Record<string, string> }
  >();
  const events: DeliveredEvent[] = [];
  const deliveries: StripeStandIn['deliveries'] = [];
  const delays = options.retryDelaysMs ?? [500, 1000, 2000, 4000, 8000, 16000, 30000];
  let rules: DeliveryRules = options.delivery ?? {};
  let queue = Promise.resolve();
  /** Events held back to be sent newest first (DeliveryRules.reorderWindowMs), and when they go. */
  let held: (() => Promise<void>)[] = [];
  let heldFlush: Promise<void> | null = null;
  let closed = false;
  let url = '';
  let down: StripeOutage | null = null;
  let clockOffsetMs = 0;
  /** The stand-in's own time (tests move it with advanceClock), in ms and in seconds. */
  const clockMs = () => Date.now() + clockOffsetMs;
  const clock = () => Math.floor(clockMs() / 1000);
  /** What Stripe does later by itself, due at a time on the stand-in's clock. */
  const later: { kind: 'debit' | 'refund'; dueMs: number; run: () => void }[] = [];
  /** How each card's (or a test's) refunds go, per payment intent. */
  const refundPlans = new Map<string, { paths: RefundPath[]; used: number }>();
  const debitSettleMs = options.debitSettleMs ?? 1000;
  const refundSettleMs = options.refundSettleMs ?? 1000;

  /** Signed as Stripe signs: v1 = HMAC-SHA256 of "<t>.<payload>" with the endpoint's secret. */
  const signature = (payload: string) => {
    const t = now();
    return `t=${t},v1=${createHmac('sha256', options.webhookSecret).update(`${t}.${payload}`).digest('hex')}`;
  };

  function send(type: CheckoutEventType, object: Session): void;
  function send(type: RefundEventType, object: Refund): void;
  function send(type: PaymentIntentEventType, object: Intent): void;
  function send(type: StandInEvent['type'], object: Session | Refund | Intent) {
    const record = {
      event: { id: id('evt'), type, data: { object: structuredClone(object) } } as StandInEvent,
      attempts: [],
      delivered: false,
    } satisfies DeliveredEvent as DeliveredEvent;
    events.push(record);
    const { webhookUrl } = options;
    if (!webhookUrl) return;
    const payload = JSON.stringify({
      ...record.event,
      object: 'event',
      api_version: API_VERSION,
      created: now(),
      livemode: false,
      pending_webhooks: 1,
    });
    /** One copy, retried until answered 2xx or the delays run out. */
    const attempt = async (copy: number) => {
      for (let attempt = 0; attempt <= delays.length && !closed; attempt++) {
        if (attempt > 0) await new Promise((done) => setTimeout(done, delays[attempt - 1]));
        let status: number | null = null;
        try {
          const response = await fetch(webhookUrl, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(payload) },
            body: payload,
          });
          await response.arrayBuffer();
          status = response.status;
          record.attempts.push({ at: Date.now(), status, copy });
        } catch (error) {
          record.attempts.push({ at: Date.now(), status: null, error: error instanceof Error ? error.message : String(error), copy });
        }
        deliveries.push({ id: record.event.id, type, status });
        if (status !== null && status >= 200 && status < 300) return void (record.delivered = true);
      }
    };
    const { copies = 1, delayMs = 0, reorderWindowMs } = rules;
    const deliver = async () => {
      // (Unref'd: a late event does not keep a finished test run alive.)
      if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs).unref());
      await Promise.all(Array.from({ length: Math.max(1, copies) }, (_, copy) => attempt(copy)));
    };
    if (reorderWindowMs === undefined) {
      // One event at a time, in order (Stripe's usual case, and the default).
      queue = queue.then(deliver);
      return;
    }
    held.push(deliver);
    heldFlush ??= new Promise<void>((done) =>
      setTimeout(() => {
        const batch = held.reverse();
        held = [];
        heldFlush = null;
        for (const next of batch) queue = queue.then(next);
        done();
      }, reorderWindowMs),
    );
  }

  /** The earliest expires_at (ms) of an open session, or later. */
  let nextExpiryMs = Number.POSITIVE_INFINITY;
  /** Carries out what came due on the stand-in's clock: session expiries, bank debits, refunds settling. */
  function sweep() {
    const at = clockMs();
    // API reference, Checkout Sessions, the object, expires_at: "The timestamp at which the
    // Checkout Session will expire"; docs.stripe.com/payments/checkout/managing-limited-inventory:
    // "When a Checkout Session expires, Stripe sends the checkout.session.expired event."
    // Only when one may be due: a benchmark opens thousands, and this runs on every request.
    if (nextExpiryMs <= at) {
      nextExpiryMs = Number.POSITIVE_INFINITY;
      for (const session of sessions.values()) {
        if (session.status !== 'open') continue;
        if (session.expires_at * 1000 <= at) {
          session.status = 'expired';
          send('checkout.session.expired', session);
        } else nextExpiryMs = Math.min(nextExpiryMs, session.expires_at * 1000);
      }
    }
    for (const due of later.filter((d) => d.dueMs <= at).sort((a, b) => a.dueMs - b.dueMs)) {
      later.splice(later.indexOf(due), 1);
      due.run();
    }
  }
  const sweeper = setInterval(sweep, 100);
  sweeper.unref();

  /**
   * The money of a charge that succeeded reaching our balance, minus Stripe's fee (API reference,
   * Balance Transactions, the object: amount, currency, exchange_rate, fee, fee_details with type
   * stripe_fee, net, source, type charge), in euros (settlementOf); the charge names it as its
   * balance_transaction.
   */
  function bookCharge(charge: Record<string, unknown>, method: 'card' | 'sepa_debit') {
    // In the balance's currency: a charge in dollars reaches the balance in euros, converted, and
    // Stripe's fee (with its conversion fee) is in euros too.
    const { amount, currency, exchangeRate } = settlementOf(Number(charge.amount), String(charge.currency));
    const fee = stripeFee(method, amount) + (exchangeRate === null ? 0 : Math.round(amount * CONVERSION_FEE));
    const transaction = {
      id: id('txn'),
      object: 'balance_transaction',
      amount,
      currency,
      exchange_rate: exchangeRate,
      fee,
      fee_details: [{ amount: fee, application: null, currency, description: 'Stripe processing fees', type: 'stripe_fee' }],
      net: amount - fee,
      source: charge.id,
      status: 'pending',
      type: 'charge',
      reporting_category: 'charge',
      created: clock(),
      available_on: clock() + 7 * 24 * 3600,
    };
    balanceTransactions.set(transaction.id, transaction);
    charge.balance_transaction = transaction.id;
  }

  const stripeError = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
    json(res, status, { error: { type: 'invalid_request_error', message, ...extra } });

  /** A customer that exists and is not deleted. */
  const liveCustomer = (customerId: unknown) => {
    const customer = typeof customerId === 'string' ? customers.get(customerId) : undefined;
    return customer && !customer.deleted ? customer : undefined;
  };
  const noSuchCustomer = (customerId: unknown): Answer => noSuch('customer', customerId, 'customer', 'unsaved');

  function createSession(params: Record<string, unknown>): Answer {
    const mode = params.mode;
    if (mode !== 'payment' && mode !== 'setup') return invalid('mode', 'mode must be payment or setup.');
    if (typeof params.success_url !== 'string') return invalid('success_url', 'Missing required param: success_url.');
    // API reference, Checkout Sessions, create, customer: "ID of an existing Customer"; with
    // customer_email, Stripe takes one or the other.
    if (params.customer !== undefined && !liveCustomer(params.customer)) return noSuchCustomer(params.customer);
    if (params.customer !== undefined && params.customer_email !== undefined) {
      return invalid('customer_email', 'You may only specify one of these parameters: customer, customer_email.');
    }
    let payment: { total: number; currency: string; description: string; taxBehavior: string | null } | null = null;
    let futureUsage: 'off_session' | 'on_session' | null = null;
    if (mode === 'payment') {
      const items = params.line_items as
        | {
            quantity?: string;
            price_data?: { currency?: string; unit_amount?: string; tax_behavior?: string; product_data?: { name?: string } };
          }[]
        | undefined;
      // API reference, Checkout Sessions, create, line_items: "up to 100 line items" in payment mode,
      // each with price_data here, all in one currency (a session has one).
      const lines = (items ?? []).map((item) => ({ price: item.price_data, quantity: Number(item.quantity ?? 1) }));
      const currency = lines[0]?.price?.currency ?? '';
      if (
        lines.length === 0 ||
        lines.length > 100 ||
        !/^[a-z]{3}$/.test(currency) ||
        lines.some(
          ({ price, quantity }) =>
            price?.currency !== currency ||
            !/^\d+$/.test(price.unit_amount ?? '') ||
            !price.product_data?.name ||
            !Number.isInteger(quantity) ||
            quantity < 1,
        )
      ) {
        return invalid(
          'line_items',
          'One to 100 line items with price_data (one currency, unit_amount, product_data.name) and a quantity are required.',
        );
      }
      // API reference, Checkout Sessions, create, payment_intent_data.setup_future_usage: on_session
      // or off_session; "If a Customer has been provided [...] Checkout will attach the payment
      // method to the Customer" (docs.stripe.com/payments/checkout/save-during-payment).
      const asked = (params.payment_intent_data as { setup_future_usage?: unknown } | undefined)?.setup_future_usage;
      if (asked !== undefined && asked !== 'off_session' && asked !== 'on_session') {
        return invalid('payment_intent_data[setup_future_usage]', 'setup_future_usage must be off_session or on_session.');
      }
      futureUsage = asked ?? null;
      payment = {
        total: lines.reduce((sum, { price, quantity }) => sum + Number(price!.unit_amount) * quantity, 0),
        currency,
        description: lines.map(({ price, quantity }) => `${quantity > 1 ? `${quantity} × ` : ''}${price!.product_data!.name}`).join(', '),
        taxBehavior: lines[0]!.price!.tax_behavior ?? null,
      };
    } else {
      // Setup mode (docs.stripe.com/payments/checkout/save-and-reuse): a card is saved, nothing is
      // paid, so no line items (API reference, Checkout Sessions, create, line_items: "required for
      // payment and subscription mode"). The stand-in saves the card to the session's customer, so
      // it asks for one; currency is "Required in setup mode when allowed_payment_method_types is
      // not set" (API reference, Checkout Sessions, create, currency).
      if (params.line_items !== undefined) return invalid('line_items', 'line_items cannot be used in setup mode.');
      if (params.customer === undefined)
        return invalid('customer', 'The stand-in saves the card to a customer: customer is required in setup mode.');
      if (params.allowed_payment_method_types === undefined && !/^[a-z]{3}$/.test(String(params.currency ?? ''))) {
        return invalid('currency', 'Missing required param: currency (in setup mode, when allowed_payment_method_types is not set).');
      }
    }
    // API reference, Checkout Sessions, create, expires_at (docs.stripe.com/api/checkout/sessions/create#create_checkout_session-expires_at):
    // "It can be anywhere from 30 minutes to 24 hours after Checkout Session creation"; the guide
    // docs.stripe.com/payments/checkout/managing-limited-inventory says the same ("between 30 minutes
    // and 24 hours after the current time"). Without it, 24 hours.
    const created = clock();
    const expiresAt = params.expires_at === undefined ? created + 24 * 3600 : Number(params.expires_at);
    if (!Number.isInteger(expiresAt)) return invalid('expires_at', 'Invalid integer: expires_at.');
    if (expiresAt < created + 30 * 60 || expiresAt > created + 24 * 3600) {
      return invalid(
        'expires_at',
        'The expires_at timestamp must be between 30 minutes and 24 hours after the Checkout Session is created.',
      );
    }
    const common = {
      id: id('cs'),
      object: 'checkout.session',
      status: 'open' as const,
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      customer: (params.customer as string | undefined) ?? null,
      customer_email: (params.customer_email as string | undefined) ?? null,
      metadata: params.metadata ?? {},
      locale: (params.locale as string | undefined) ?? null,
      success_url: params.success_url,
      ...(typeof params.cancel_url === 'string' && { cancel_url: params.cancel_url }),
      expires_at: expiresAt,
      created,
      livemode: false,
      payment_intent: null,
      setup_intent: null,
      url: '',
    };
    // API reference, Checkout Sessions, the object, payment_status: "one of paid, unpaid, or
    // no_payment_required"; a session in setup mode takes no payment, and has no amounts.
    const session: Session = payment
      ? {
          ...common,
          mode: 'payment',
          payment_status: 'unpaid',
          amount_subtotal: payment.total,
          amount_total: payment.total,
          currency: payment.currency,
          line_items_description: payment.description,
          tax_behavior: payment.taxBehavior,
          // API reference, Checkout Sessions, automatic_tax: echoed; the stand-in computes no tax (the prices are VAT-inclusive, the total is the same).
          automatic_tax: {
            enabled: (params.automatic_tax as { enabled?: string } | undefined)?.enabled === 'true',
            liability: null,
            status: null,
          },
          // Echoed: the stand-in presents every session in its own currency (no buyer location to convert for).
          adaptive_pricing: { enabled: (params.adaptive_pricing as { enabled?: string } | undefined)?.enabled === 'true' },
        }
      : {
          ...common,
          mode: 'setup',
          payment_status: 'no_payment_required',
          amount_subtotal: null,
          amount_total: null,
          currency: typeof params.currency === 'string' ? params.currency : null,
        };
    session.url = `${url}/pay/${session.id}`;
    sessions.set(session.id, session);
    sessionAsked.set(session.id, {
      futureUsage,
      setupMetadata: (params.setup_intent_data as { metadata?: unknown } | undefined)?.metadata ?? {},
    });
    nextExpiryMs = Math.min(nextExpiryMs, session.expires_at * 1000);
    return [200, session];
  }

  /** The paths under `field` of `expand[]` (`field.a.b` gives `a.b`), or null when `field` is not expanded. */
  const expandsOf = (expand: string[], field: string) =>
    expand.some((path) => path === field || path.startsWith(`${field}.`))
      ? expand.filter((path) => path.startsWith(`${field}.`)).map((path) => path.slice(field.length + 1))
      : null;

  function expanded(session: Session, expand: string[]): unknown {
    const intentPaths = expandsOf(expand, 'payment_intent');
    const setupPaths = expandsOf(expand, 'setup_intent');
    return {
      ...session,
      ...(intentPaths && session.payment_intent && { payment_intent: expandedIntent(intents.get(session.payment_intent)!, intentPaths) }),
      ...(setupPaths && session.setup_intent && { setup_intent: expandedSetupIntent(setupIntents.get(session.setup_intent)!, setupPaths) }),
    };
  }

  /** `expand[]=payment_method` on a SetupIntent (API reference, Setup Intents, the object: payment_method "Expandable"). */
  function expandedSetupIntent(setupIntent: Record<string, unknown>, expand: string[]): Record<string, unknown> {
    if (!expand.includes('payment_method')) return setupIntent;
    return { ...setupIntent, payment_method: paymentMethods.get(setupIntent.payment_method as string) };
  }

  /**
   * `expand[]` on a payment intent and its charge (docs.stripe.com/expand: "expand[]=latest_charge",
   * nested with dots, e.g. latest_charge.balance_transaction); what is not expanded stays an id.
   */
  function expandedIntent(intent: Record<string, unknown>, expand: string[]): Record<string, unknown> {
    if (!expand.some((path) => path === 'latest_charge' || path.startsWith('latest_charge.')) || !intent.latest_charge) return intent;
    const inner = expand.filter((path) => path.startsWith('latest_charge.')).map((path) => path.slice('latest_charge.'.length));
    return { ...intent, latest_charge: expandedCharge(charges.get(intent.latest_charge as string)!, inner) };
  }
  function expandedCharge(charge: Record<string, unknown>, expand: string[]): Record<string, unknown> {
    if (!expand.includes('balance_transaction') || !charge.balance_transaction) return charge;
    return { ...charge, balance_transaction: balanceTransactions.get(charge.balance_transaction as string) };
  }

  /** What the endpoint answers, or during a 500 outage api_error once it has run (validation failures keep their 400). */
  function execute(method: string, path: string, params: Record<string, unknown>): Answer {
    const answer = api(method, path, params);
    if (down && 'status' in down && !answer[2])
      return [down.status, { error: { type: 'api_error', message: 'Stripe stand-in outage: an error occurred on the server.' } }];
    return answer;
  }

  function api(method: string, path: string, params: Record<string, unknown>): Answer {
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params);
    let match = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (method === 'GET' && match) {
      const session = sessions.get(match[1]!);
      return session ? [200, expanded(session, (params.expand as string[] | undefined) ?? [])] : noSuch('checkout.session', match[1]);
    }
    match = /^\/v1\/checkout\/sessions\/([\w]+)\/expire$/.exec(path);
    if (method === 'POST' && match) {
      const session = sessions.get(match[1]!);
      if (!session) return noSuch('checkout.session', match[1]);
      if (session.status !== 'open')
        return [
          400,
          {
            error: {
              type: 'invalid_request_error',
              message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
            },
          },
        ];
      session.status = 'expired';
      send('checkout.session.expired', session);
      return [200, session];
    }
    if (method === 'POST' && path === '/v1/refunds') return createRefund(params);
    if (method === 'GET' && path === '/v1/refunds') {
      const data = [...refunds.values()].filter((r) => !params.payment_intent || r.payment_intent === params.payment_intent).reverse();
      return [200, { object: 'list', data, has_more: false, url: '/v1/refunds' }];
    }
    if (method === 'POST' && path === '/v1/customers') return createCustomer(params);
    match = /^\/v1\/customers\/(\w+)$/.exec(path);
    if (method === 'DELETE' && match) return deleteCustomer(match[1]!);
    match = /^\/v1\/customers\/(\w+)\/payment_methods$/.exec(path);
    if (method === 'GET' && match) {
      return customers.has(match[1]!)
        ? listPaymentMethods(match[1]!, `/v1/customers/${match[1]}/payment_methods`)
        : noSuch('customer', match[1]);
    }
    if (method === 'GET' && path === '/v1/payment_methods') return listPaymentMethods(params.customer, '/v1/payment_methods');
    match = /^\/v1\/payment_methods\/(\w+)\/detach$/.exec(path);
    if (method === 'POST' && match) return detachPaymentMethod(match[1]!);
    if (method === 'POST' && path === '/v1/payment_intents') return offSessionPayment(params);
    if (method === 'GET' && path === '/v1/payment_intents') {
      // API reference, Payment Intents, list: "sorted, with the most recently created appearing
      // first"; customer "Only return PaymentIntents for the customer that this customer ID
      // specifies"; limit "between 1 and 100, and the default is 10".
      const limit = Math.min(100, Math.max(1, Number(params.limit ?? 10) || 10));
      const matching = [...intents.values()].filter((intent) => !params.customer || intent.customer === params.customer).reverse();
      return [200, { object: 'list', data: matching.slice(0, limit), has_more: matching.length > limit, url: '/v1/payment_intents' }];
    }
    const expand = (params.expand as string[] | undefined) ?? [];
    for (const [prefix, store, expandAll] of [
      ['payment_intents', intents, expandedIntent],
      ['charges', charges, expandedCharge],
      ['refunds', refunds, (found: Record<string, unknown>) => found],
      ['balance_transactions', balanceTransactions, (found: Record<string, unknown>) => found],
      // API reference, Customers, retrieve: "If it’s for a deleted Customer, a subset of the
      // customer’s information is returned, including a deleted property that’s set to true."
      ['customers', customers, (found: Record<string, unknown>) => found],
      ['payment_methods', paymentMethods, (found: Record<string, unknown>) => found],
      ['setup_intents', setupIntents, expandedSetupIntent],
    ] as const) {
      match = new RegExp(`^/v1/${prefix}/([\\w]+)$`).exec(path);
      if (method === 'GET' && match) {
        const found = store.get(match[1]!);
        return found ? [200, expandAll(found, expand)] : noSuch(prefix, match[1]);
      }
    }
    return [
      404,
      {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}). The Stripe stand-in implements only the calls the shop makes.`,
        },
      },
      'unsaved',
    ];
  }

  /** API reference, Customers, create: email, name, metadata; the object as the reference shapes it (the fields the shop reads). */
  function createCustomer(params: Record<string, unknown>): Answer {
    for (const field of ['email', 'name'] as const) {
      if (params[field] !== undefined && typeof params[field] !== 'string') return invalid(field, `Invalid string: ${field}.`);
    }
    const customer = {
      id: id('cus'),
      object: 'customer',
      email: (params.email as string | undefined) ?? null,
      name: (params.name as string | undefined) ?? null,
      metadata: params.metadata ?? {},
      created: clock(),
      livemode: false,
      invoice_settings: { default_payment_method: null },
    };
    customers.set(customer.id, customer);
    return [200, customer];
  }

  /**
   * API reference, Customers, delete: "Returns an object with a deleted parameter on success";
   * "Deleting customers removes all credit card details and prevents any further operations": its
   * payment methods are detached.
   */
  function deleteCustomer(customerId: string): Answer {
    const customer = customers.get(customerId);
    if (!customer || customer.deleted) {
      return noSuch('customer', customerId);
    }
    const deleted = { id: customerId, object: 'customer', deleted: true };
    customers.set(customerId, deleted);
    for (const method of paymentMethods.values()) if (method.customer === customerId) method.customer = null;
    return [200, deleted];
  }

  /** API reference, Payment Methods, list (and list a customer's): cards only here, newest first. */
  function listPaymentMethods(customerId: unknown, listUrl: string): Answer {
    const data = [...paymentMethods.values()].filter((method) => !customerId || method.customer === customerId).reverse();
    return [200, { object: 'list', data, has_more: false, url: listUrl }];
  }

  /**
   * API reference, Payment Methods, detach: "Detaches a PaymentMethod object from a Customer. After a
   * PaymentMethod is detached, it can no longer be used for a payment or re-attached to a Customer."
   */
  function detachPaymentMethod(methodId: string): Answer {
    const method = paymentMethods.get(methodId);
    if (!method) {
      return noSuch('PaymentMethod', methodId);
    }
    if (!method.customer) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            message: 'The payment method you provided is not attached to a customer so detachment is impossible.',
          },
        },
      ];
    }
    method.customer = null;
    return [200, method];
  }

  /**
   * A PaymentMethod for a card typed on the page (API reference, Payment Methods, the object: type
   * card, card.brand, last4, exp_month, exp_year, country, funding, fingerprint; customer;
   * billing_details), attached to `customer` when given. The page takes no expiry: the card's is
   * the end of the year three years on.
   */
  function createPaymentMethod(
    number: string,
    card: PayingCard,
    billingDetails: Record<string, unknown>,
    customer: string | null,
    offSession: boolean,
  ): PaymentMethod {
    const method: PaymentMethod = {
      id: id('pm'),
      object: 'payment_method',
      type: 'card',
      card: {
        brand: card.brand,
        last4: number.slice(-4),
        exp_month: 12,
        exp_year: new Date(clockMs()).getUTCFullYear() + 3,
        country: 'US',
        funding: 'credit',
        fingerprint: fingerprint('card', number),
      },
      customer,
      billing_details: billingDetails,
      metadata: {},
      created: clock(),
      livemode: false,
    };
    paymentMethods.set(method.id, method);
    cardBehind.set(method.id, { card, offSession });
    return method;
  }

  /** The billing details Checkout collects with a card: the page's optional billing country, the session's (or its customer's) email. */
  function billingDetails(session: Session, country: string | null): Record<string, unknown> {
    const email = session.customer_email ?? (session.customer ? customers.get(session.customer)?.email : null) ?? null;
    return { address: { city: null, country, line1: null, line2: null, postal_code: null, state: null }, email, name: null, phone: null };
  }

  /** A charge's payment_method_details for a card (API reference, Charges, the object). */
  const cardDetails = (method: PaymentMethod) => {
    const { brand, last4, country, funding, fingerprint: print } = method.card as Record<string, unknown>;
    return { type: 'card', card: { brand, last4, country, funding, fingerprint: print } };
  };

  /**
   * A card charge that succeeded, booked as every one is (Radar's outcome, the card's fingerprint
   * and country, Stripe's fee in a balance transaction, a receipt): the page's and the off-session
   * ones alike.
   */
  function cardCharge(payment: {
    amount: number;
    currency: string;
    customer: string | null;
    method: PaymentMethod;
    card: PayingCard;
    intent: string;
  }): Record<string, unknown> {
    const charge: Record<string, unknown> = {
      id: id('ch'),
      object: 'charge',
      paid: true,
      status: 'succeeded',
      amount: payment.amount,
      currency: payment.currency,
      customer: payment.customer,
      payment_intent: payment.intent,
      payment_method: payment.method.id,
      billing_details: payment.method.billing_details,
      payment_method_details: cardDetails(payment.method),
      outcome: outcome(payment.card.risk ?? 'normal'),
      receipt_url: '',
      created: clock(),
    };
    charge.receipt_url = `${url}/receipts/${String(charge.id)}`;
    bookCharge(charge, 'card');
    charges.set(charge.id as string, charge);
    return charge;
  }

  /**
   * `POST /v1/payment_intents` with `confirm=true` and `off_session=true`: a payment on a card the
   * customer saved, while the customer is away (docs.stripe.com/payments/save-and-reuse, "Charge
   * the saved payment method later"; API reference, Payment Intents, create: off_session "Set to
   * true to indicate that the customer isn’t in your checkout flow during this payment attempt
   * and can’t authenticate"). The outcome follows the saved test card (TEST_CARDS). "If a payment
   * attempt fails, the request also fails with a 402 HTTP status code, and the PaymentIntent status
   * is requires_payment_method" (same page): the error is a card_error with the intent, its
   * last_payment_error, and the payment method.
   */
  function offSessionPayment(params: Record<string, unknown>): Answer {
    if (params.confirm !== 'true' || params.off_session !== 'true') {
      return invalid(
        params.confirm !== 'true' ? 'confirm' : 'off_session',
        'The stand-in makes only off-session payment intents, confirmed when created: confirm=true and off_session=true.',
      );
    }
    const amount = Number(params.amount);
    if (!/^\d+$/.test(String(params.amount ?? '')) || amount < 1) return invalid('amount', 'Invalid positive integer: amount.');
    if (!/^[a-zA-Z]{3}$/.test(String(params.currency ?? '')))
      return invalid('currency', `Invalid currency: ${String(params.currency ?? '')}.`);
    const currency = String(params.currency).toLowerCase();
    if (!liveCustomer(params.customer)) return noSuchCustomer(params.customer);
    const method = typeof params.payment_method === 'string' ? paymentMethods.get(params.payment_method) : undefined;
    if (!method) return noSuch('PaymentMethod', params.payment_method, 'payment_method', 'unsaved');
    if (method.customer !== params.customer) {
      return invalid(
        'payment_method',
        method.customer
          ? `The provided PaymentMethod belongs to another customer than ${String(params.customer)}.`
          : `The provided PaymentMethod is not attached to customer ${String(params.customer)}: a PaymentMethod must be attached to the customer to be used off-session.`,
      );
    }
    const { card, offSession } = cardBehind.get(method.id)!;
    const intent: Intent = {
      id: id('pi'),
      object: 'payment_intent',
      status: 'processing',
      amount,
      amount_received: 0,
      currency,
      customer: method.customer,
      payment_method: method.id,
      payment_method_types: ['card'],
      latest_charge: null,
      last_payment_error: null,
      setup_future_usage: null,
      description: (params.description as string | undefined) ?? null,
      metadata: params.metadata ?? {},
      created: clock(),
      livemode: false,
    };
    intents.set(intent.id, intent);
    // docs.stripe.com/declines/codes, authentication_required: "The card was declined because the
    // transaction requires authentication"; off-session nobody can authenticate, so it fails.
    if (card.authentication === 'always' || (card.authentication === 'unless_set_up' && !offSession)) {
      return declined(intent, method, null, {
        code: 'authentication_required',
        decline_code: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
      });
    }
    if (card.charges) {
      // The issuer declines: a failed charge (API reference, Charges, the object: status failed,
      // failure_code, failure_message, outcome), nothing booked.
      const charge: Record<string, unknown> = {
        id: id('ch'),
        object: 'charge',
        paid: false,
        status: 'failed',
        amount,
        currency,
        customer: method.customer,
        payment_intent: intent.id,
        payment_method: method.id,
        balance_transaction: null,
        billing_details: method.billing_details,
        payment_method_details: cardDetails(method),
        failure_code: 'card_declined',
        failure_message: card.charges.message,
        outcome: declinedOutcome(card.charges.declineCode),
        receipt_url: null,
        created: clock(),
      };
      charges.set(charge.id as string, charge);
      return declined(intent, method, charge.id as string, {
        code: 'card_declined',
        decline_code: card.charges.declineCode,
        message: card.charges.message,
      });
    }
    const charge = cardCharge({ amount, currency, customer: method.customer, method, card, intent: intent.id });
    Object.assign(intent, { status: 'succeeded', amount_received: amount, latest_charge: charge.id });
    if (card.refunds && !refundPlans.has(intent.id)) refundPlans.set(intent.id, { paths: [card.refunds], used: 0 });
    send('payment_intent.succeeded', intent);
    return [200, intent];
  }

  /**
   * A declined off-session payment: the intent goes back to requires_payment_method, without its
   * payment method, which the error carries (API reference, Payment Intents, the object,
   * last_payment_error: code, decline_code, message, type card_error, payment_method, charge);
   * answered 402 with the intent (API reference, Errors: payment_intent, payment_method, charge).
   */
  function declined(
    intent: Intent,
    method: PaymentMethod,
    charge: string | null,
    reason: { code: string; decline_code: string; message: string },
  ): Answer {
    const error = {
      type: 'card_error',
      ...reason,
      ...(charge && { charge }),
      doc_url: `https://docs.stripe.com/error-codes/${reason.code.replace(/_/g, '-')}`,
      payment_method: structuredClone(method),
    };
    Object.assign(intent, { status: 'requires_payment_method', payment_method: null, latest_charge: charge, last_payment_error: error });
    send('payment_intent.payment_failed', intent);
    return [402, { error: structuredClone({ ...error, payment_intent: intent }) }];
  }

  /**
   * A refund of a paid intent's charge, at most what is left of it (Stripe's rules; the same
   * Idempotency-Key replays it). A pending refund counts against what is left until it fails.
   * Its path (RefundPath) is the test's for this intent, else the card's, else succeeded at once.
   */
  function createRefund(params: Record<string, unknown>): Answer {
    const intent = typeof params.payment_intent === 'string' ? intents.get(params.payment_intent) : undefined;
    if (!intent) return noSuch('payment_intent', params.payment_intent, 'payment_intent');
    const charge = typeof intent.latest_charge === 'string' ? charges.get(intent.latest_charge) : undefined;
    // A declined payment has nothing to refund.
    if (!charge || charge.status === 'failed') {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            message: `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
            param: 'payment_intent',
          },
        },
      ];
    }
    const left = Number(charge.amount) - Number(charge.amount_refunded ?? 0);
    if (left <= 0)
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'charge_already_refunded',
            message: `Charge ${String(charge.id)} has already been refunded.`,
          },
        },
      ];
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'amount_too_large',
            message: `Refund amount (${String(params.amount)}) is greater than unrefunded amount on charge (${left}).`,
            param: 'amount',
          },
        },
      ];
    }
    const plan = refundPlans.get(intent.id as string);
    const path: RefundPath = plan ? plan.paths[Math.min(plan.used++, plan.paths.length - 1)]! : 'succeeded';
    const pending = path.startsWith('pending');
    const refund: Refund = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: charge.currency,
      payment_intent: intent.id as string,
      charge: charge.id as string,
      status: pending ? 'pending' : 'succeeded',
      // API changelog 2025-04-30.basil, "Adds a field explaining why refunds are pending": processing, insufficient_funds, charge_pending.
      pending_reason: pending ? 'processing' : null,
      failure_reason: null,
      reason: (params.reason as string | undefined) ?? null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      created: clock(),
    };
    refunds.set(refund.id, refund);
    charge.amount_refunded = Number(charge.amount_refunded ?? 0) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    // API reference, Refunds, Events: "refund.created: Occurs whenever a refund is created."
    send('refund.created', refund);
    if (path !== 'succeeded')
      later.push({
        kind: 'refund',
        dueMs: clockMs() + refundSettleMs,
        run: () => settleRefund(refund, path.endsWith('failed') ? 'failed' : 'succeeded'),
      });
    return [200, refund];
  }

  /**
   * A refund's later outcome, told as Stripe tells it (API reference, Refunds, Events):
   * "refund.updated: Occurs whenever a refund is updated", "charge.refund.updated: Occurs whenever a
   * refund is updated on selected payment methods", "refund.failed: Occurs whenever a refund has
   * failed". A failed refund gives its amount back to the charge (it can be refunded again).
   */
  function settleRefund(refund: Refund, to: 'succeeded' | 'failed') {
    refund.status = to;
    refund.pending_reason = null;
    if (to === 'failed') {
      refund.failure_reason = 'expired_or_canceled_card';
      const charge = charges.get(refund.charge)!;
      charge.amount_refunded = Number(charge.amount_refunded) - refund.amount;
      charge.refunded = false;
    }
    send('refund.updated', refund);
    send('charge.refund.updated', refund);
    if (to === 'failed') send('refund.failed', refund);
  }

  /**
   * The hosted test-payment page: Pay with a test card or by SEPA Direct Debit with a test IBAN, or
   * Cancel back to the shop; for a session in setup mode, Save a card (no amount, cards only, as
   * the stand-in's setup sessions save cards).
   */
  function payPage(
    res: ServerResponse,
    session: Session,
    status = 200,
    error?: { field: 'card' | 'iban'; message: string; value: string },
  ) {
    const setup = session.mode === 'setup';
    const amount = session.mode === 'setup' ? '' : money(session.amount_total, session.currency);
    const field = (name: 'card' | 'iban', label: string, attributes: string) => {
      const wrong = error?.field === name;
      return `<label for="${name}">${label}</label>
    <input id="${name}" name="${name}" ${attributes} required value="${wrong ? escape(error.value) : ''}"${wrong ? ` aria-invalid="true" aria-describedby="${name}-error"` : ''}>
    ${wrong ? `<p id="${name}-error" role="alert">${escape(error.message)}</p>` : ''}`;
    };
    const cardForm = (button: string) => `<form method="post">
    ${field('card', 'Card number', 'inputmode="numeric" autocomplete="cc-number"')}
    <label for="country">Billing country (two letters, optional)</label>
    <input id="country" name="country" autocomplete="country" maxlength="2" pattern="[A-Z]{2}">
    ${button}
    <button name="action" value="cancel" formnovalidate>Cancel</button>
  </form>`;
    const body =
      session.status === 'open'
        ? setup
          ? `<p>Save your card for later payments. Nothing is charged now.</p>
  ${cardForm('<button name="action" value="save">Save card</button>')}`
          : `<p>${escape(String(session.line_items_description))}</p><p class="amount">${escape(amount)}</p>
  ${cardForm(`<button name="action" value="pay">Pay ${escape(amount)}</button>`)}
  <h2>SEPA Direct Debit</h2>
  <form method="post">
    ${field('iban', 'IBAN', 'autocomplete="off"')}
    <button name="action" value="debit">Debit ${escape(amount)} from this account</button>
  </form>`
        : session.status === 'complete'
          ? `<p role="status">${setup ? 'This card is saved.' : 'This payment is complete.'}</p><p><a href="${escape(session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id))}">Back to the shop</a></p>`
          : `<p role="status">This ${setup ? 'page' : 'payment page'} has expired.</p>${session.cancel_url ? `<p><a href="${escape(session.cancel_url)}">Back to the shop</a></p>` : ''}`;
    const heading = setup ? 'Save a card' : 'Test payment';
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${heading} (Stripe stand-in)</title>
<style>body{font:16px system-ui;max-width:28rem;margin:2rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;margin:.25rem 0;display:block;width:100%}.amount{font-size:1.5rem;font-weight:bold}[role=alert]{color:#b00020}</style></head>
<body><main><h1>${heading}</h1><p><small>A local stand-in for Stripe's hosted payment page. Nothing is charged. Test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds (neither can be saved); 4000 0025 0000 3155 and 4000 0027 6000 3184 ask for authentication (done here on the page; saved for off-session use, 3155 pays off-session, 3184 never does); 4000 0000 0000 0341 and 4000 0082 6000 3178 can be saved, but every payment with them is declined (3178: insufficient funds); 4000 0000 0000 7726 pays and its refunds stay pending before they succeed, 4000 0000 0000 5126 pays and its refunds fail after succeeding; Radar rates 4000 0000 0000 9235 elevated and 4000 0000 0000 4954 highest risk (both pay), 4100 0000 0000 0019 is blocked.${setup ? '' : ' Test IBANs (the payment succeeds or fails a moment later, or three minutes later): DE89 3704 0044 0532 0130 00 succeeds, DE08 3704 0044 0532 0130 03 succeeds later, DE62 3704 0044 0532 0130 01 fails, DE78 3704 0044 0532 0130 04 fails later.'}</small></p>${body}</main></body></html>`);
  }

  /** The card typed on the page, if it is a test card that can pay or be saved; otherwise the page again, with the reason. */
  function typedCard(res: ServerResponse, session: Session, form: URLSearchParams) {
    const typed = form.get('card') ?? '';
    const card = TEST_CARDS[typed.replace(/[\s-]/g, '')];
    if (!card) return void payPage(res, session, 402, { field: 'card', message: 'Your card number is incorrect.', value: typed });
    if ('decline' in card) return void payPage(res, session, 402, { field: 'card', message: card.decline, value: typed });
    // Checkout asks for the billing country with a card (the page's optional field; Stripe's test
    // cards themselves are issued in the US, docs.stripe.com/testing#international-cards).
    const billingCountry = /^[A-Z]{2}$/.test(form.get('country') ?? '') ? form.get('country') : null;
    return { card, typed, number: typed.replace(/\D/g, ''), billing: billingDetails(session, billingCountry) };
  }

  function pay(res: ServerResponse, session: Session, form: URLSearchParams) {
    if (session.status !== 'open') return payPage(res, session, 409);
    if (form.get('action') === 'cancel') {
      res.writeHead(303, { Location: session.cancel_url ?? session.success_url }).end();
      return;
    }
    if (session.mode === 'setup') return saveCard(res, session, form);
    if (form.get('action') === 'debit') return debit(res, session, form.get('iban') ?? '');
    const typed = typedCard(res, session, form);
    if (!typed) return;
    const { card, number, billing } = typed;
    // A card saved but declined whenever it is charged (0341, 3178) is declined here too.
    if (card.charges) return payPage(res, session, 402, { field: 'card', message: card.charges.message, value: typed.typed });
    // Every card payment makes a PaymentMethod; with setup_future_usage and a customer, Checkout
    // attaches it to the customer (API reference, Checkout Sessions, create,
    // payment_intent_data.setup_future_usage), set up for off-session use when off_session.
    const { futureUsage } = sessionAsked.get(session.id)!;
    const customer = futureUsage && liveCustomer(session.customer) ? session.customer : null;
    const method = createPaymentMethod(number, card, billing, customer, futureUsage === 'off_session');
    const intentId = id('pi');
    const charge = cardCharge({
      amount: session.amount_total,
      currency: session.currency,
      customer: session.customer,
      method,
      card,
      intent: intentId,
    });
    const intent: Intent = {
      id: intentId,
      object: 'payment_intent',
      status: 'succeeded',
      amount: session.amount_total,
      amount_received: session.amount_total,
      currency: session.currency,
      customer: session.customer,
      payment_method: method.id,
      setup_future_usage: futureUsage,
      latest_charge: charge.id,
      metadata: session.metadata,
      created: clock(),
    };
    intents.set(intent.id, intent);
    if (card.refunds && !refundPlans.has(intent.id)) refundPlans.set(intent.id, { paths: [card.refunds], used: 0 });
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intent.id });
    send('checkout.session.completed', session);
    res.writeHead(303, { Location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
  }

  /**
   * Setup mode (docs.stripe.com/payments/checkout/save-and-reuse): the card becomes a PaymentMethod
   * attached to the session's customer ("the payment method automatically attaches to the customer
   * you provided when creating the Checkout Session") through a SetupIntent that succeeded (API
   * reference, Setup Intents, the object: usage off_session by default; "If present, the
   * SetupIntent’s payment method will be attached to the Customer on successful setup"); the
   * session completes with checkout.session.completed and the buyer goes to the success URL.
   */
  function saveCard(res: ServerResponse, session: Session, form: URLSearchParams) {
    const typed = typedCard(res, session, form);
    if (!typed) return;
    const customer = liveCustomer(session.customer) ? session.customer : null;
    const method = createPaymentMethod(typed.number, typed.card, typed.billing, customer, true);
    const setupIntent = {
      id: id('seti'),
      object: 'setup_intent',
      status: 'succeeded',
      customer,
      payment_method: method.id,
      payment_method_types: ['card'],
      usage: 'off_session',
      metadata: sessionAsked.get(session.id)!.setupMetadata,
      created: clock(),
      livemode: false,
    };
    setupIntents.set(setupIntent.id, setupIntent);
    Object.assign(session, { status: 'complete', payment_status: 'no_payment_required', setup_intent: setupIntent.id });
    send('checkout.session.completed', session);
    res.writeHead(303, { Location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
  }

  /**
   * SEPA Direct Debit: the session completes at once with payment_status 'unpaid' and its intent
   * `processing`; the money's fate follows later (docs.stripe.com/checkout/fulfillment, delayed
   * notification payment methods; API reference, Events: checkout.session.async_payment_succeeded
   * "Occurs when a payment intent using a delayed payment method finally succeeds",
   * checkout.session.async_payment_failed "... finally fails").
   */
  function debit(res: ServerResponse, session: Session, typed: string) {
    const iban = typed.replace(/\s/g, '').toUpperCase();
    const test = TEST_IBANS[iban];
    if (!test)
      return payPage(res, session, 402, { field: 'iban', message: 'Your IBAN is incorrect. Use one of the test IBANs.', value: typed });
    const charge: Record<string, unknown> = {
      id: id('py'),
      object: 'charge',
      paid: false,
      status: 'pending',
      amount: session.amount_total,
      currency: session.currency,
      payment_method_details: {
        type: 'sepa_debit',
        sepa_debit: {
          country: iban.slice(0, 2),
          bank_code: iban.slice(4, 12),
          last4: iban.slice(-4),
          fingerprint: fingerprint('iban', iban),
        },
      },
      billing_details: {
        address: { city: null, country: iban.slice(0, 2), line1: null, line2: null, postal_code: null, state: null },
        email: session.customer_email ?? null,
        name: null,
        phone: null,
      },
      // Radar assesses cards only: "For non-card payments [...] this field will have the value not_assessed".
      outcome: outcome('not_assessed'),
      receipt_url: '',
      created: clock(),
    };
    charge.receipt_url = `${url}/receipts/${String(charge.id)}`;
    const intent: Intent = {
      id: id('pi'),
      object: 'payment_intent',
      status: 'processing',
      amount: session.amount_total,
      amount_received: 0,
      currency: session.currency,
      customer: session.customer,
      latest_charge: charge.id,
      payment_method_types: ['sepa_debit'],
      metadata: session.metadata,
      created: clock(),
    };
    charge.payment_intent = intent.id;
    charges.set(charge.id as string, charge);
    intents.set(intent.id, intent);
    Object.assign(session, { status: 'complete', payment_status: 'unpaid', payment_intent: intent.id });
    send('checkout.session.completed', session);
    later.push({
      kind: 'debit',
      dueMs: clockMs() + (test.delayed ? DELAYED_DEBIT_MS : debitSettleMs),
      run: () => {
        if (test.outcome === 'succeeded') {
          Object.assign(charge, { status: 'succeeded', paid: true });
          bookCharge(charge, 'sepa_debit');
          Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
          session.payment_status = 'paid';
          send('checkout.session.async_payment_succeeded', session);
        } else {
          Object.assign(charge, {
            status: 'failed',
            failure_code: 'insufficient_funds',
            failure_message: 'The account has insufficient funds to cover this payment.',
          });
          intent.status = 'requires_payment_method';
          send('checkout.session.async_payment_failed', session);
        }
      },
    });
    res.writeHead(303, { Location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = new URL(req.url ?? '/', 'http://stand-in');
    const path = target.pathname;
    // Whatever came due on the clock has happened before anyone looks.
    sweep();
    try {
      let match = /^\/pay\/(\w+)$/.exec(path);
      if (match) {
        const session = sessions.get(match[1]!);
        if (!session) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('No such payment page.');
        return req.method === 'POST' ? pay(res, session, new URLSearchParams(body)) : payPage(res, session);
      }
      match = /^\/receipts\/(\w+)$/.exec(path);
      if (match && charges.has(match[1]!)) {
        const charge = charges.get(match[1]!)!;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return void res.end(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt</title></head><body><main><h1>Receipt (Stripe stand-in)</h1><p>${escape(String(charge.id))}: ${escape(money(Number(charge.amount), String(charge.currency)))}</p></main></body></html>`,
        );
      }
      if (path === '/_stand-in/events') return json(res, 200, events);
      if (path === '/_stand-in/refunds') return json(res, 200, [...refunds.values()]);
      if (!path.startsWith('/v1/')) return void res.writeHead(404).end();
      // Stripe unreachable: the connection closes before any answer, so nothing was carried out.
      if (down && 'drop' in down) return void res.socket?.destroy();

      if (!/^Bearer sk_test_\w+$/.test(req.headers.authorization ?? '')) {
        return stripeError(res, 401, 'Invalid API Key provided. The stand-in takes any sk_test_ key.');
      }
      const params = req.method === 'GET' ? decodeForm(target.search.slice(1)) : decodeForm(body);
      const key = req.headers['idempotency-key'];
      if (req.method !== 'POST' || typeof key !== 'string') {
        const [status, answer] = execute(req.method ?? 'GET', path, params);
        return json(res, status, answer);
      }
      // Idempotent requests, as docs.stripe.com/api/idempotent_requests and
      // docs.stripe.com/error-low-level#idempotency describe them:
      // - "You can remove keys from the system automatically after they're at least 24 hours old. We
      //   generate a new request if a key is reused after the original is pruned."
      // - "The idempotency layer compares incoming parameters to those of the original request and
      //   errors if they're not the same": idempotency_error. The docs give no status for it; Stripe
      //   answers 400 (409 is its answer to a key whose first request is still running, which this
      //   stand-in, answering each request at once, never has).
      // - "Stripe saves the status code and body of the first request made with a given idempotency
      //   key after endpoint execution begins. Retries with the same key return the saved response,
      //   including 500 errors."
      // - "If incoming parameters fail validation, or the request conflicts with another that was
      //   executing concurrently, no idempotent result is saved because no API endpoint began
      //   execution. It is safe to retry these requests."
      // Oldest first (a Map keeps the order keys were saved in): stop at the first one still kept, so
      // a request costs the same after thousands of keys (the benchmarks).
      const at = clock();
      for (const [saved, { savedAt }] of idempotent) {
        if (at - savedAt < IDEMPOTENCY_KEY_LIFETIME_S) break;
        idempotent.delete(saved);
      }
      const request = `${path} ${body}`;
      const earlier = idempotent.get(key);
      if (earlier && earlier.request !== request) {
        return json(res, 400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        });
      }
      if (earlier) return json(res, earlier.status, earlier.body, { ...earlier.headers, 'Idempotent-Replayed': 'true' });
      const [status, answer, unsaved] = execute(req.method, path, params);
      // A saved 500 would only be replayed: Stripe then tells its SDKs not to retry (stripe-node,
      // RequestSender._shouldRetry: "we expect the stripe-should-retry header to be false in most
      // cases when a 500 is returned, since our idempotency framework would typically replay it").
      const headers: Record<string, string> = status >= 500 ? { 'Stripe-Should-Retry': 'false' } : {};
      if (!unsaved) idempotent.set(key, { request, savedAt: clock(), status, body: answer, headers });
      json(res, status, answer, headers);
    } catch (error) {
      json(res, 500, { error: { type: 'api_error', message: error instanceof Error ? error.message : String(error) } });
    }
  });

  await new Promise<void>((done) => server.listen(options.port ?? 0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    events,
    deliveries,
    async settled() {
      for (;;) {
        if (heldFlush) await heldFlush;
        const current = queue;
        await current;
        if (current === queue && !heldFlush) return;
      }
    },
    outage(failure) {
      down = failure;
    },
    deliveryRules(next) {
      rules = next ?? {};
    },
    refundPaths(paymentIntentId, paths) {
      refundPlans.set(paymentIntentId, { paths, used: 0 });
    },
    settleRefunds() {
      for (const due of later.filter((d) => d.kind === 'refund')) {
        later.splice(later.indexOf(due), 1);
        due.run();
      }
    },
    advanceClock(ms) {
      clockOffsetMs += ms;
      sweep();
    },
    close: () =>
      new Promise((done) => {
        closed = true;
        clearInterval(sweeper);
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req'), ...headers });
  res.end(JSON.stringify(body));
}

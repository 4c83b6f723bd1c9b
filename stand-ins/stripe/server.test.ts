import { createServer, type Server } from 'node:http';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCheckoutSession, createStripe, refundPayment, type CheckoutRequest } from '../../src/server/payments/stripe.ts';
import { decodeForm, STAND_IN_SECRET_KEY, startStripeStandIn, type StripeStandIn } from './server.ts';

/** The stand-in as the real `stripe` SDK and a buyer's browser meet it, over HTTP. */
const SECRET = 'whsec_test_secret';
let standIn: StripeStandIn;
let stripe: Stripe;
let receiver: Server;
let answers: number[] = [];
const received: { payload: string; signature: string }[] = [];

beforeAll(async () => {
  // A webhook endpoint that answers what the test tells it to (200 once the list runs out).
  receiver = createServer((req, res) => {
    let payload = '';
    req.on('data', (chunk) => (payload += chunk));
    req.on('end', () => {
      received.push({ payload, signature: String(req.headers['stripe-signature']) });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;
  standIn = await startStripeStandIn({ webhookUrl, webhookSecret: SECRET, retryDelaysMs: [50, 100, 200] });
  stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: standIn.url });
});
afterAll(async () => {
  await standIn.close();
  receiver.close();
});
afterEach(() => {
  answers = [];
  received.length = 0;
});

const params = (amount = 499): Stripe.Checkout.SessionCreateParams => ({
  mode: 'payment',
  line_items: [
    {
      quantity: 1,
      price_data: { currency: 'eur', unit_amount: amount, tax_behavior: 'inclusive', product_data: { name: 'Germany: 1 GB, 7 days' } },
    },
  ],
  client_reference_id: 'order-1',
  success_url: 'http://127.0.0.1:4321/payment-success?order=1&session={CHECKOUT_SESSION_ID}',
  cancel_url: 'http://127.0.0.1:4321/checkout?plan=de-1gb-7d&cancelled=1',
});
const pay = (session: { url: string | null }, body: Record<string, string>) =>
  fetch(session.url!, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

describe('Stripe stand-in', () => {
  it('decodes the SDK form encoding into objects and arrays', () => {
    expect(decodeForm('a[b][0][c]=1&a[b][1][c]=2&expand[0]=x&m=y')).toEqual({ a: { b: [{ c: '1' }, { c: '2' }] }, expand: ['x'], m: 'y' });
  });

  it('refuses a call without a test secret key, as Stripe does', async () => {
    const wrong = createStripe({ secretKey: 'pk_live_nope', apiUrl: standIn.url });
    await expect(wrong.checkout.sessions.create(params())).rejects.toMatchObject({ statusCode: 401, type: 'StripeAuthenticationError' });
  });

  it('replays an idempotent create and refuses the key with other parameters', async () => {
    const first = await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-1' });
    const again = await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-1' });
    expect(again.id).toBe(first.id);
    await expect(stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-1' })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeIdempotencyError',
    });
    const other = await stripe.checkout.sessions.create(params());
    expect(other.id).not.toBe(first.id);
  });

  it("refuses an expires_at less than 30 minutes or more than 24 hours away, with Stripe's error on that param", async () => {
    const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
    for (const expires_at of [inSeconds(-60), inSeconds(29 * 60), inSeconds(24 * 3600 + 60)]) {
      await expect(stripe.checkout.sessions.create({ ...params(), expires_at })).rejects.toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        param: 'expires_at',
      });
    }
    for (const expires_at of [inSeconds(31 * 60), inSeconds(23 * 3600)]) {
      expect((await stripe.checkout.sessions.create({ ...params(), expires_at })).expires_at).toBe(expires_at);
    }
    // Without one, 24 hours.
    const session = await stripe.checkout.sessions.create(params());
    expect(session.expires_at - session.created).toBe(24 * 3600);
  });

  it('saves no result for parameters that fail validation: the corrected request may use the same key', async () => {
    const tooSoon = Math.floor(Date.now() / 1000) + 60;
    await expect(
      stripe.checkout.sessions.create({ ...params(), expires_at: tooSoon }, { idempotencyKey: 'key-invalid' }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'expires_at' });
    const corrected = await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-invalid' });
    expect(corrected.status).toBe('open');
    expect((await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-invalid' })).id).toBe(corrected.id);
  });

  it('saves a 500 once the endpoint ran and replays it for that key, until the key is pruned after 24 hours', async () => {
    standIn.outage({ status: 500 });
    try {
      await expect(stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-500' })).rejects.toMatchObject({
        statusCode: 500,
        type: 'StripeAPIError',
      });
    } finally {
      standIn.outage(null);
    }
    // The outage is over, but the same key and parameters get the saved 500 back, not retried by the SDK.
    const replayed = await stripe.checkout.sessions
      .create(params(), { idempotencyKey: 'key-500' })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(replayed).toMatchObject({ statusCode: 500, type: 'StripeAPIError' });
    expect((replayed as Stripe.errors.StripeError).headers?.['idempotent-replayed']).toBe('true');
    // The same key with other parameters is refused.
    await expect(stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-500' })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeIdempotencyError',
    });
    standIn.advanceClock(24 * 3600_000 - 5_000);
    try {
      await expect(stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-500' })).rejects.toMatchObject({ statusCode: 500 });
      standIn.advanceClock(5_000);
      // Pruned: the key is a new request.
      expect((await stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-500' })).amount_total).toBe(999);
    } finally {
      standIn.advanceClock(-24 * 3600_000);
    }
    // A day on, the sessions of the tests before expired by themselves: their events go out now, not in the next test.
    await standIn.settled();
  });

  it('totals several line items with their quantities, and refuses a session in two currencies, as Stripe does', async () => {
    const line = (currency: string, unit_amount: number, quantity: number, name: string) => ({
      quantity,
      price_data: { currency, unit_amount, tax_behavior: 'inclusive' as const, product_data: { name } },
    });
    const cart = await stripe.checkout.sessions.create({
      ...params(),
      line_items: [line('eur', 1299, 3, 'Japan: 5 GB, 30 days'), line('eur', 899, 1, 'South Korea: 3 GB, 15 days')],
    });
    expect(cart).toMatchObject({ amount_total: 3 * 1299 + 899, currency: 'eur' });
    await expect(
      stripe.checkout.sessions.create({ ...params(), line_items: [line('eur', 1299, 1, 'Japan'), line('usd', 899, 1, 'Korea')] }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'line_items' });
  });

  it("lets the shop's retry open a session once a 500 outage ends: a later press is a new request under a new key", async () => {
    const request = (expiresInMs: number): CheckoutRequest => ({
      paysFor: { orderId: 'order-outage' },
      email: null,
      lang: 'de',
      lines: [{ productName: 'Germany: 1 GB, 7 days', amountMinor: 499, quantity: 1 }],
      currency: 'EUR',
      successUrl: 'http://127.0.0.1:4321/payment-success?order=order-outage',
      cancelUrl: 'http://127.0.0.1:4321/checkout?plan=de-1gb-7d&cancelled=1',
      expiresAt: new Date(Date.now() + expiresInMs),
    });
    standIn.outage({ status: 500 });
    try {
      await expect(createCheckoutSession(stripe, request(31 * 60_000))).rejects.toMatchObject({ statusCode: 500 });
    } finally {
      standIn.outage(null);
    }
    // The buyer presses again: the shop counts expires_at from this later moment.
    const session = await createCheckoutSession(stripe, request(31 * 60_000 + 2_000));
    expect(session.url.startsWith(standIn.url)).toBe(true);
    expect((await stripe.checkout.sessions.retrieve(session.id)).client_reference_id).toBe('order-outage');
  });

  it('takes 4242 on the hosted page, redirects to the success URL and sends a signed completed event', async () => {
    const session = await stripe.checkout.sessions.create(params());
    expect(session).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_total: 499, currency: 'eur' });
    const page = await (await fetch(session.url!)).text();
    expect(page).toContain('<label for="card">Card number</label>');
    const paid = await pay(session, { action: 'pay', card: '4242 4242 4242 4242' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://127.0.0.1:4321/payment-success?order=1&session=${session.id}`);
    await standIn.settled();
    const event = stripe.webhooks.constructEvent(received[0]!.payload, received[0]!.signature, SECRET);
    expect(event.type).toBe('checkout.session.completed');
    expect(event.data.object).toMatchObject({ id: session.id, payment_status: 'paid', client_reference_id: 'order-1' });
    expect(() => stripe.webhooks.constructEvent(received[0]!.payload, received[0]!.signature, 'whsec_other')).toThrow();
    const read = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] });
    const intent = read.payment_intent as Stripe.PaymentIntent;
    const charge = intent.latest_charge as Stripe.Charge;
    expect(charge.payment_method_details).toMatchObject({ type: 'card', card: { brand: 'visa', last4: '4242' } });
    const receipt = await fetch(charge.receipt_url!);
    expect(receipt.status).toBe(200);
    expect(await receipt.text()).toContain('€4.99');
    // Paying again completes nothing twice.
    expect((await pay(session, { action: 'pay', card: '4242424242424242' })).status).toBe(409);
    await standIn.settled();
    expect(received).toHaveLength(1);
  });

  it('shows yen as whole yen on its payment page and receipt (no minor unit)', async () => {
    const base = params(370);
    const session = await stripe.checkout.sessions.create({
      ...base,
      line_items: [{ quantity: 1, price_data: { ...base.line_items![0]!.price_data!, currency: 'jpy' } }],
    });
    expect(await (await fetch(session.url!)).text()).toContain('¥370');
    expect((await pay(session, { action: 'pay', card: '4242424242424242' })).status).toBe(303);
    const read = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] });
    const charge = (read.payment_intent as Stripe.PaymentIntent).latest_charge as Stripe.Charge;
    expect(await (await fetch(charge.receipt_url!)).text()).toContain('¥370');
  });

  it("gives each charge Radar's outcome, the card's fingerprint and country, and Stripe's fee in a balance transaction", async () => {
    const paid = async (card: string, form: Record<string, string> = {}) => {
      const session = await stripe.checkout.sessions.create(params(1000));
      expect((await pay(session, { action: 'pay', card, ...form })).status).toBe(303);
      const intentId = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
      const intent = await stripe.paymentIntents.retrieve(intentId, { expand: ['latest_charge.balance_transaction'] });
      return intent.latest_charge as Stripe.Charge;
    };
    const plain = await paid('4242 4242 4242 4242', { country: 'DE' });
    const again = await paid('4242424242424242');
    const elevated = await paid('4000000000009235');
    const highest = await paid('4000000000004954');
    // The same card number, the same fingerprint (in another session, as for another account); another card, another.
    expect(plain.payment_method_details?.card?.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(again.payment_method_details?.card?.fingerprint).toBe(plain.payment_method_details?.card?.fingerprint);
    expect(elevated.payment_method_details?.card?.fingerprint).not.toBe(plain.payment_method_details?.card?.fingerprint);
    expect(plain.payment_method_details?.card?.country).toBe('US');
    expect([plain.billing_details.address?.country, again.billing_details.address?.country]).toEqual(['DE', null]);
    expect([plain, elevated, highest].map((c) => [c.outcome?.risk_level, c.outcome?.type, c.outcome?.network_status])).toEqual([
      ['normal', 'authorized', 'approved_by_network'],
      ['elevated', 'manual_review', 'approved_by_network'],
      ['highest', 'authorized', 'approved_by_network'],
    ]);
    expect(elevated.outcome?.reason).toBe('elevated_risk_level');
    expect(highest.outcome!.risk_score!).toBeGreaterThanOrEqual(75);
    const fee = plain.balance_transaction as Stripe.BalanceTransaction;
    expect(fee).toMatchObject({ object: 'balance_transaction', amount: 1000, fee: 40, net: 960, currency: 'eur', source: plain.id });
    expect(fee.fee_details).toEqual([expect.objectContaining({ amount: 40, type: 'stripe_fee', currency: 'eur' })]);
    // Unexpanded, an id that can be read on its own.
    const charge = await stripe.charges.retrieve(plain.id);
    expect(charge.balance_transaction).toBe(fee.id);
    expect((await stripe.balanceTransactions.retrieve(fee.id)).net).toBe(960);
    // Blocked by Radar whatever the rules: declined on the page, nothing charged.
    const session = await stripe.checkout.sessions.create(params());
    expect((await pay(session, { action: 'pay', card: '4100000000000019' })).status).toBe(402);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
    await standIn.settled();
  });

  it('settles a charge in another currency into the euro balance at a fixed rate, the fee in euros, yen without decimals', async () => {
    const paidIn = async (currency: string, amount: number) => {
      const base = params(amount);
      const session = await stripe.checkout.sessions.create({
        ...base,
        line_items: [{ ...base.line_items![0]!, price_data: { ...base.line_items![0]!.price_data!, currency } }],
      });
      expect((await pay(session, { action: 'pay', card: '4242424242424242' })).status).toBe(303);
      const intentId = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
      const intent = await stripe.paymentIntents.retrieve(intentId, { expand: ['latest_charge.balance_transaction'] });
      const charge = intent.latest_charge as Stripe.Charge;
      return { charge, transaction: charge.balance_transaction as Stripe.BalanceTransaction };
    };
    // USD 12.99 at the ECB fixture's 1.1628 a euro: 0.859993 EUR a dollar (6 decimals, as Stripe quotes it), EUR 11.17.
    const usd = await paidIn('usd', 1299);
    expect(usd.charge).toMatchObject({ amount: 1299, currency: 'usd' });
    expect(usd.transaction).toMatchObject({ amount: 1117, currency: 'eur', exchange_rate: 0.859993 });
    // 1.5 % + 0.25 of the euro amount, plus 2 % for the conversion.
    expect(usd.transaction.fee).toBe(Math.round(1117 * 0.015) + 25 + Math.round(1117 * 0.02));
    expect(usd.transaction.fee_details).toEqual([expect.objectContaining({ amount: usd.transaction.fee, currency: 'eur' })]);
    expect(usd.transaction.net).toBe(1117 - usd.transaction.fee);
    // ¥1,990 is 1,990 yen, not 19.90: at 181.20 a euro, EUR 10.98.
    const jpy = await paidIn('jpy', 1990);
    expect(jpy.transaction).toMatchObject({ amount: 1098, currency: 'eur', exchange_rate: 0.005519 });
    // In euros nothing is converted.
    const eur = await paidIn('eur', 1000);
    expect(eur.transaction).toMatchObject({ amount: 1000, currency: 'eur', exchange_rate: null, fee: 40 });
    await standIn.settled();
  });

  it('declines 0002 and 9995 on the page, keeping the number and the session open, with no event', async () => {
    const session = await stripe.checkout.sessions.create(params());
    for (const [card, message] of [
      ['4000 0000 0000 0002', 'Your card was declined.'],
      ['4000000000009995', 'Your card has insufficient funds.'],
      ['1234', 'Your card number is incorrect.'],
    ]) {
      const answer = await pay(session, { action: 'pay', card: card! });
      expect(answer.status).toBe(402);
      const html = await answer.text();
      expect(html).toContain(message);
      expect(html).toContain(`value="${card}"`);
    }
    await standIn.settled();
    expect(received).toEqual([]);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });

  it('Cancel returns to the cancel URL and charges nothing; expire sends checkout.session.expired', async () => {
    const session = await stripe.checkout.sessions.create(params());
    const cancelled = await pay(session, { action: 'cancel' });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe('http://127.0.0.1:4321/checkout?plan=de-1gb-7d&cancelled=1');
    await stripe.checkout.sessions.expire(session.id);
    await standIn.settled();
    expect(received.map((r) => (JSON.parse(r.payload) as { type: string }).type)).toEqual(['checkout.session.expired']);
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toMatchObject({ statusCode: 400 });
  });

  it('retries an event until the endpoint answers 2xx', async () => {
    answers = [500, 503];
    const session = await stripe.checkout.sessions.create(params());
    await pay(session, { action: 'pay', card: '4242424242424242' });
    await standIn.settled();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => (JSON.parse(r.payload) as { id: string }).id)).size).toBe(1);
    const record = standIn.events.at(-1)!;
    expect(record.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
    expect(record.delivered).toBe(true);
  });

  it('refunds a paid intent once per reference through refundPayment, and no more than was charged', async () => {
    const session = await stripe.checkout.sessions.create(params(1299));
    await pay(session, { action: 'pay', card: '4242 4242 4242 4242' });
    const intent = (await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string;
    const request = { reference: 'order-r', paymentIntentId: intent, amountMinor: 1299, reason: 'requested', attempt: 0 };
    const refund = await refundPayment(stripe, request);
    expect(refund.status).toBe('succeeded');
    // A retry (a lost answer, a restarted job, a later try under a new key) reads Stripe and gets the same refund, not a second one.
    expect((await refundPayment(stripe, request)).id).toBe(refund.id);
    expect((await refundPayment(stripe, { ...request, attempt: 3 })).id).toBe(refund.id);
    const listed = await stripe.refunds.list({ payment_intent: intent });
    expect(listed.data.map((r) => [r.id, r.amount, r.metadata?.reference])).toEqual([[refund.id, 1299, 'order-r']]);
    const charge = await stripe.charges.retrieve((await stripe.paymentIntents.retrieve(intent)).latest_charge as string);
    expect(charge).toMatchObject({ amount_refunded: 1299, refunded: true });
    // Another key cannot refund it again; an unknown intent is Stripe's error.
    await expect(refundPayment(stripe, { ...request, reference: 'order-other' })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'charge_already_refunded',
    });
    await expect(refundPayment(stripe, { ...request, reference: 'order-x', paymentIntentId: 'pi_test_unknown' })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
    });
  });
});

/**
 * What Stripe does later by itself, and how untidily it delivers, through the real SDK: each rule
 * of the stand-in (server.ts cites Stripe's page for each) against an endpoint that records what
 * it receives. Nothing settles by itself here (an hour): the tests move the stand-in's clock.
 */
describe('Stripe stand-in: later events and untidy delivery', () => {
  const HOUR = 3600_000;
  let later: StripeStandIn;
  let sdk: Stripe;
  let endpoint: Server;
  const got: { id: string; type: string; object: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let payload = '';
      req.on('data', (chunk) => (payload += chunk));
      req.on('end', () => {
        // Every delivery is signed as Stripe signs: the SDK verifies it.
        const event = sdk.webhooks.constructEvent(payload, String(req.headers['stripe-signature']), SECRET);
        got.push({ id: event.id, type: event.type, object: event.data.object as unknown as Record<string, unknown> });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
    const webhookUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/webhooks`;
    later = await startStripeStandIn({ webhookUrl, webhookSecret: SECRET, retryDelaysMs: [50], debitSettleMs: HOUR, refundSettleMs: HOUR });
    sdk = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: later.url });
  });
  afterAll(async () => {
    await later.close();
    endpoint.close();
  });
  afterEach(async () => {
    later.deliveryRules(null);
    await later.settled();
    got.length = 0;
  });

  const session = async (amount = 499) =>
    sdk.checkout.sessions.create({ ...params(amount), expires_at: Math.floor(Date.now() / 1000) + 31 * 60 });
  const cardPaid = async (card: string, amount = 1299) => {
    const s = await session(amount);
    expect((await pay(s, { action: 'pay', card })).status).toBe(303);
    return (await sdk.checkout.sessions.retrieve(s.id)).payment_intent as string;
  };

  it('sends events twice, late or newest first when told to, each copy signed', async () => {
    later.deliveryRules({ copies: 2, reorderWindowMs: 300 });
    const first = await session();
    const second = await session();
    await pay(first, { action: 'pay', card: '4242424242424242' });
    await pay(second, { action: 'pay', card: '4242424242424242' });
    await later.settled();
    // Newest first, each twice (the copies go out at once).
    expect(got.map((e) => e.object.id)).toEqual([second.id, second.id, first.id, first.id]);
    expect(new Set(got.map((e) => e.id)).size).toBe(2);
    expect(
      later.events
        .at(-1)!
        .attempts.map((a) => [a.copy, a.status])
        .sort(),
    ).toEqual([
      [0, 200],
      [1, 200],
    ]);

    later.deliveryRules({ delayMs: 400 });
    const third = await session();
    await pay(third, { action: 'pay', card: '4242424242424242' });
    await new Promise((r) => setTimeout(r, 200));
    expect(got.map((e) => e.object.id)).not.toContain(third.id);
    await later.settled();
    expect(got.at(-1)).toMatchObject({ type: 'checkout.session.completed', object: { id: third.id } });
  });

  it('expires an open session by itself once its expires_at passes on its clock, and sends checkout.session.expired', async () => {
    const open = await session();
    const paid = await session();
    await pay(paid, { action: 'pay', card: '4242424242424242' });
    later.advanceClock(30 * 60_000);
    try {
      expect((await sdk.checkout.sessions.retrieve(open.id)).status).toBe('open');
      later.advanceClock(61_000);
      expect((await sdk.checkout.sessions.retrieve(open.id)).status).toBe('expired');
      // A completed session never expires.
      expect((await sdk.checkout.sessions.retrieve(paid.id)).status).toBe('complete');
    } finally {
      later.advanceClock(-31 * 60_000 - 1_000);
    }
    await later.settled();
    expect(got.map((e) => [e.type, e.object.id])).toEqual([
      ['checkout.session.completed', paid.id],
      ['checkout.session.expired', open.id],
    ]);
    expect(await (await fetch(open.url!)).text()).toContain('This payment page has expired.');
    expect((await pay(open, { action: 'pay', card: '4242424242424242' })).status).toBe(409);
  });

  it('takes a test IBAN: the session completes unpaid, then the debit succeeds or fails with its async event', async () => {
    const good = await session();
    const bad = await session();
    const slow = await session();
    const answer = await pay(good, { action: 'debit', iban: 'DE89 3704 0044 0532 0130 00' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toContain(`session=${good.id}`);
    await pay(bad, { action: 'debit', iban: 'DE62370400440532013001' });
    await pay(slow, { action: 'debit', iban: 'DE08370400440532013003' });
    const wrong = await pay(await session(), { action: 'debit', iban: 'DE00 1234' });
    expect(wrong.status).toBe(402);
    expect(await wrong.text()).toContain('Your IBAN is incorrect.');
    await later.settled();
    expect(got.map((e) => [e.type, e.object.id, e.object.payment_status])).toEqual([
      ['checkout.session.completed', good.id, 'unpaid'],
      ['checkout.session.completed', bad.id, 'unpaid'],
      ['checkout.session.completed', slow.id, 'unpaid'],
    ]);
    const read = await sdk.checkout.sessions.retrieve(good.id, { expand: ['payment_intent.latest_charge'] });
    expect(read).toMatchObject({ status: 'complete', payment_status: 'unpaid', payment_intent: { status: 'processing' } });
    expect(((read.payment_intent as Stripe.PaymentIntent).latest_charge as Stripe.Charge).payment_method_details).toMatchObject({
      type: 'sepa_debit',
      sepa_debit: { last4: '3000' },
    });

    got.length = 0;
    later.advanceClock(HOUR);
    try {
      await later.settled();
      // The "delayed" IBAN settles after three minutes, the others here after an hour (debitSettleMs).
      // (The session left open above expired meanwhile.)
      expect(got.filter((e) => e.type !== 'checkout.session.expired').map((e) => [e.type, e.object.id])).toEqual([
        ['checkout.session.async_payment_succeeded', slow.id],
        ['checkout.session.async_payment_succeeded', good.id],
        ['checkout.session.async_payment_failed', bad.id],
      ]);
      expect(await sdk.checkout.sessions.retrieve(good.id, { expand: ['payment_intent'] })).toMatchObject({
        payment_status: 'paid',
        payment_intent: { status: 'succeeded' },
      });
      expect(await sdk.checkout.sessions.retrieve(bad.id, { expand: ['payment_intent'] })).toMatchObject({
        payment_status: 'unpaid',
        payment_intent: { status: 'requires_payment_method' },
      });
    } finally {
      later.advanceClock(-HOUR);
    }
  });

  it('refunds that stay pending and succeed (card 7726), succeed and then fail (card 5126), or take the paths a test sets', async () => {
    const slow = await cardPaid('4000 0000 0000 7726');
    const flaky = await cardPaid('4000000000005126');
    const hooked = await cardPaid('4242424242424242');
    later.refundPaths(hooked, ['pending_then_failed', 'succeeded']);
    const ask = (intent: string, attempt = 0) =>
      refundPayment(sdk, { reference: `order-${intent}`, paymentIntentId: intent, amountMinor: 1299, reason: 'requested', attempt });

    const pending = await ask(slow);
    expect(pending.status).toBe('pending');
    expect((await ask(flaky)).status).toBe('succeeded');
    const hookedFirst = await ask(hooked);
    expect(hookedFirst.status).toBe('pending');
    // A pending refund holds its amount: no second refund of the charge meanwhile.
    await expect(sdk.refunds.create({ payment_intent: slow, amount: 1 })).rejects.toMatchObject({ code: 'charge_already_refunded' });
    await later.settled();
    expect(got.filter((e) => e.type.startsWith('refund.')).map((e) => [e.type, e.object.status])).toEqual([
      ['refund.created', 'pending'],
      ['refund.created', 'succeeded'],
      ['refund.created', 'pending'],
    ]);

    got.length = 0;
    later.settleRefunds();
    await later.settled();
    expect(got.map((e) => [e.type, e.object.payment_intent, e.object.status])).toEqual([
      ['refund.updated', slow, 'succeeded'],
      ['charge.refund.updated', slow, 'succeeded'],
      ['refund.updated', flaky, 'failed'],
      ['charge.refund.updated', flaky, 'failed'],
      ['refund.failed', flaky, 'failed'],
      ['refund.updated', hooked, 'failed'],
      ['charge.refund.updated', hooked, 'failed'],
      ['refund.failed', hooked, 'failed'],
    ]);
    expect(await sdk.refunds.retrieve(pending.id)).toMatchObject({ status: 'succeeded', pending_reason: null });
    expect(await sdk.refunds.retrieve(hookedFirst.id)).toMatchObject({ status: 'failed', failure_reason: 'expired_or_canceled_card' });
    // A failed refund gives the amount back to the charge; refundPayment passes over it and asks again under a new key.
    const charge = await sdk.charges.retrieve((await sdk.paymentIntents.retrieve(hooked)).latest_charge as string);
    expect(charge).toMatchObject({ amount_refunded: 0, refunded: false });
    const again = await ask(hooked);
    expect(again.id).not.toBe(hookedFirst.id);
    expect(again.status).toBe('succeeded');
    expect((await sdk.refunds.list({ payment_intent: hooked })).data.map((r) => r.status)).toEqual(['succeeded', 'failed']);
  });
});

/**
 * Automatic top-ups on a saved card, through the real SDK: customers, cards saved in a setup-mode
 * session or while paying (setup_future_usage), and off-session payment intents whose outcome
 * follows Stripe's test cards (docs.stripe.com/testing, Authentication and setup; Declined payments).
 */
describe('Stripe stand-in: saved cards and off-session payments', () => {
  let offSession: StripeStandIn;
  let sdk: Stripe;
  let endpoint: Server;
  const got: { type: string; object: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let payload = '';
      req.on('data', (chunk) => (payload += chunk));
      req.on('end', () => {
        const event = sdk.webhooks.constructEvent(payload, String(req.headers['stripe-signature']), SECRET);
        got.push({ type: event.type, object: event.data.object as unknown as Record<string, unknown> });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
    const webhookUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/webhooks`;
    offSession = await startStripeStandIn({ webhookUrl, webhookSecret: SECRET, retryDelaysMs: [50] });
    sdk = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: offSession.url });
  });
  afterAll(async () => {
    await offSession.close();
    endpoint.close();
  });
  afterEach(async () => {
    await offSession.settled();
    got.length = 0;
  });

  const customer = () => sdk.customers.create({ email: 'traveller@example.com', name: 'Ada Traveller', metadata: { account: 'acc-1' } });
  const setupParams = (customerId: string): Stripe.Checkout.SessionCreateParams => ({
    mode: 'setup',
    customer: customerId,
    currency: 'eur',
    setup_intent_data: { metadata: { purpose: 'top-up' } },
    success_url: 'http://127.0.0.1:4321/account/top-ups?saved={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://127.0.0.1:4321/account/top-ups',
  });
  /** A card saved through a setup-mode session's page, as its PaymentMethod. */
  const saved = async (customerId: string, card: string) => {
    const session = await sdk.checkout.sessions.create(setupParams(customerId));
    expect((await pay(session, { action: 'save', card })).status).toBe(303);
    const read = await sdk.checkout.sessions.retrieve(session.id, { expand: ['setup_intent.payment_method'] });
    return (read.setup_intent as Stripe.SetupIntent).payment_method as Stripe.PaymentMethod;
  };
  const topUp = (customerId: string, paymentMethod: string, idempotencyKey?: string) =>
    sdk.paymentIntents.create(
      {
        amount: 1500,
        currency: 'eur',
        customer: customerId,
        payment_method: paymentMethod,
        off_session: true,
        confirm: true,
        description: 'Automatic top-up',
        metadata: { topUp: 'top-up-1' },
      },
      idempotencyKey ? { idempotencyKey } : {},
    );
  const cardError = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('expected a card error'),
      (error: unknown) => error as Stripe.errors.StripeCardError,
    );

  it('creates, reads and deletes a customer; deleting it detaches its cards', async () => {
    const created = await customer();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cus_test_/),
      object: 'customer',
      email: 'traveller@example.com',
      name: 'Ada Traveller',
      metadata: { account: 'acc-1' },
      livemode: false,
      invoice_settings: { default_payment_method: null },
    });
    expect((await sdk.customers.retrieve(created.id)).id).toBe(created.id);
    const card = await saved(created.id, '4242 4242 4242 4242');
    expect(card.customer).toBe(created.id);
    expect(await sdk.customers.del(created.id)).toEqual({ id: created.id, object: 'customer', deleted: true });
    expect(await sdk.customers.retrieve(created.id)).toMatchObject({ id: created.id, deleted: true });
    expect((await sdk.paymentMethods.retrieve(card.id)).customer).toBeNull();
    await expect(sdk.customers.retrieve('cus_test_unknown')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    // A deleted customer takes no new session.
    await expect(sdk.checkout.sessions.create(setupParams(created.id))).rejects.toMatchObject({ statusCode: 400, param: 'customer' });
  });

  it('saves a card through a setup-mode session: complete, its SetupIntent expanded, the card attached and listed', async () => {
    const { id: customerId } = await customer();
    const session = await sdk.checkout.sessions.create(setupParams(customerId));
    expect(session).toMatchObject({
      mode: 'setup',
      status: 'open',
      payment_status: 'no_payment_required',
      amount_total: null,
      amount_subtotal: null,
      payment_intent: null,
      setup_intent: null,
      customer: customerId,
      currency: 'eur',
    });
    const page = await (await fetch(session.url!)).text();
    expect(page).toContain('<h1>Save a card</h1>');
    expect(page).toContain('<label for="card">Card number</label>');
    expect(page).toContain('>Save card</button>');
    expect(page).not.toContain('IBAN');
    expect(page).not.toContain('€');
    const answer = await pay(session, { action: 'save', card: '4242 4242 4242 4242', country: 'DE' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`http://127.0.0.1:4321/account/top-ups?saved=${session.id}`);
    const read = await sdk.checkout.sessions.retrieve(session.id, { expand: ['setup_intent.payment_method'] });
    expect(read).toMatchObject({ status: 'complete', payment_status: 'no_payment_required', payment_intent: null });
    const setupIntent = read.setup_intent as Stripe.SetupIntent;
    expect(setupIntent).toMatchObject({
      id: expect.stringMatching(/^seti_test_/),
      object: 'setup_intent',
      status: 'succeeded',
      customer: customerId,
      usage: 'off_session',
      metadata: { purpose: 'top-up' },
    });
    const card = setupIntent.payment_method as Stripe.PaymentMethod;
    expect(card).toMatchObject({
      id: expect.stringMatching(/^pm_test_/),
      object: 'payment_method',
      type: 'card',
      customer: customerId,
      card: { brand: 'visa', last4: '4242', country: 'US', funding: 'credit', exp_month: 12 },
      billing_details: { email: 'traveller@example.com', address: { country: 'DE' } },
      livemode: false,
    });
    expect(card.card!.exp_year).toBeGreaterThan(new Date().getUTCFullYear());
    expect(card.card!.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    expect((await sdk.setupIntents.retrieve(setupIntent.id)).payment_method).toBe(card.id);
    expect((await sdk.setupIntents.retrieve(setupIntent.id, { expand: ['payment_method'] })).payment_method).toMatchObject({ id: card.id });
    expect((await sdk.paymentMethods.list({ customer: customerId, type: 'card' })).data.map((m) => m.id)).toEqual([card.id]);
    expect((await sdk.customers.listPaymentMethods(customerId)).data.map((m) => m.id)).toEqual([card.id]);
    await offSession.settled();
    expect(got.map((e) => [e.type, e.object.id, e.object.setup_intent])).toEqual([
      ['checkout.session.completed', session.id, setupIntent.id],
    ]);
    expect(await (await fetch(session.url!)).text()).toContain('This card is saved.');
  });

  it('refuses setup sessions Stripe refuses: line items, no currency; the stand-in also wants a customer', async () => {
    const { id: customerId } = await customer();
    const without = (key: string) =>
      Object.fromEntries(Object.entries(setupParams(customerId)).filter(([name]) => name !== key)) as Stripe.Checkout.SessionCreateParams;
    for (const [asked, param] of [
      [{ ...setupParams(customerId), line_items: params().line_items! }, 'line_items'],
      [without('currency'), 'currency'],
      [without('customer'), 'customer'],
      [{ ...params(), customer: 'cus_test_unknown' }, 'customer'],
      [{ ...params(), customer: customerId, customer_email: 'other@example.com' }, 'customer_email'],
    ] as const) {
      await expect(sdk.checkout.sessions.create(asked)).rejects.toMatchObject({ statusCode: 400, param });
    }
  });

  it('pays with 3155, saving it for off-session use, then tops up off-session with it: charged and booked, listed, refundable', async () => {
    const { id: customerId } = await customer();
    const session = await sdk.checkout.sessions.create({
      ...params(1000),
      customer: customerId,
      payment_intent_data: { setup_future_usage: 'off_session' },
    });
    expect(session.customer).toBe(customerId);
    expect((await pay(session, { action: 'pay', card: '4000 0025 0000 3155' })).status).toBe(303);
    const paid = (await sdk.checkout.sessions.retrieve(session.id, { expand: ['payment_intent'] })).payment_intent as Stripe.PaymentIntent;
    expect(paid).toMatchObject({ status: 'succeeded', customer: customerId, setup_future_usage: 'off_session', amount_received: 1000 });
    const card = await sdk.paymentMethods.retrieve(paid.payment_method as string);
    expect(card).toMatchObject({ customer: customerId, card: { last4: '3155' } });

    const intent = await topUp(customerId, card.id);
    expect(intent).toMatchObject({
      status: 'succeeded',
      amount: 1500,
      amount_received: 1500,
      currency: 'eur',
      customer: customerId,
      payment_method: card.id,
      description: 'Automatic top-up',
      metadata: { topUp: 'top-up-1' },
    });
    const charge = (await sdk.paymentIntents.retrieve(intent.id, { expand: ['latest_charge.balance_transaction'] }))
      .latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({
      status: 'succeeded',
      paid: true,
      amount: 1500,
      customer: customerId,
      payment_method: card.id,
      payment_intent: intent.id,
      payment_method_details: { type: 'card', card: { last4: '3155', fingerprint: card.card!.fingerprint } },
      outcome: { risk_level: 'normal', type: 'authorized' },
    });
    expect(charge.receipt_url).toMatch(/\/receipts\/ch_test_/);
    expect(charge.balance_transaction).toMatchObject({
      amount: 1500,
      fee: Math.round(1500 * 0.015) + 25,
      currency: 'eur',
      source: charge.id,
    });
    await offSession.settled();
    expect(got.map((e) => [e.type, e.object.id])).toEqual([
      ['checkout.session.completed', session.id],
      ['payment_intent.succeeded', intent.id],
    ]);
    expect(got[1]!.object).toMatchObject({ metadata: { topUp: 'top-up-1' }, latest_charge: charge.id });
    // The customer's payment intents, newest first (the shop settles a lost answer by the metadata).
    expect((await sdk.paymentIntents.list({ customer: customerId, limit: 10 })).data.map((i) => i.id)).toEqual([intent.id, paid.id]);
    expect((await sdk.paymentIntents.list({ customer: customerId, limit: 1 })).has_more).toBe(true);
    // Refunded as a page-paid intent is.
    const refund = await sdk.refunds.create({ payment_intent: intent.id });
    expect(refund).toMatchObject({ status: 'succeeded', amount: 1500, charge: charge.id });
    expect(await sdk.charges.retrieve(charge.id)).toMatchObject({ amount_refunded: 1500, refunded: true });
  });

  it('3155 saved for on-session use only, or paid without a customer: not set up for an off-session payment', async () => {
    const { id: customerId } = await customer();
    const session = await sdk.checkout.sessions.create({
      ...params(),
      customer: customerId,
      payment_intent_data: { setup_future_usage: 'on_session' },
    });
    await pay(session, { action: 'pay', card: '4000002500003155' });
    const paid = await sdk.paymentIntents.retrieve((await sdk.checkout.sessions.retrieve(session.id)).payment_intent as string);
    expect((await sdk.paymentMethods.retrieve(paid.payment_method as string)).customer).toBe(customerId);
    expect(await cardError(topUp(customerId, paid.payment_method as string))).toMatchObject({
      statusCode: 402,
      code: 'authentication_required',
    });
    // Without setup_future_usage the card is not attached: it cannot be charged off-session at all.
    const plain = await sdk.checkout.sessions.create({ ...params(), customer: customerId });
    await pay(plain, { action: 'pay', card: '4242424242424242' });
    const once = await sdk.paymentIntents.retrieve((await sdk.checkout.sessions.retrieve(plain.id)).payment_intent as string);
    expect(once).toMatchObject({ customer: customerId, setup_future_usage: null, payment_method: expect.stringMatching(/^pm_test_/) });
    expect((await sdk.paymentMethods.retrieve(once.payment_method as string)).customer).toBeNull();
    await expect(topUp(customerId, once.payment_method as string)).rejects.toMatchObject({ statusCode: 400, param: 'payment_method' });
  });

  it('3184 asks for authentication off-session: 402 authentication_required, the intent requires_payment_method, no charge, payment_failed sent, replayed under its key', async () => {
    const { id: customerId } = await customer();
    const card = await saved(customerId, '4000 0027 6000 3184');
    const error = await cardError(topUp(customerId, card.id, 'top-up-3184'));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      code: 'authentication_required',
      decline_code: 'authentication_required',
      message: 'Your card was declined. This transaction requires authentication.',
    });
    const intent = error.payment_intent!;
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      customer: customerId,
      payment_method: null,
      latest_charge: null,
      amount_received: 0,
      metadata: { topUp: 'top-up-1' },
      last_payment_error: {
        type: 'card_error',
        code: 'authentication_required',
        decline_code: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
        payment_method: { id: card.id },
      },
    });
    expect(error.payment_method).toMatchObject({ id: card.id, customer: customerId });
    expect(await sdk.paymentIntents.retrieve(intent.id)).toMatchObject({ status: 'requires_payment_method' });
    await offSession.settled();
    expect(got.filter((e) => e.type.startsWith('payment_intent.')).map((e) => [e.type, e.object.id, e.object.status])).toEqual([
      ['payment_intent.payment_failed', intent.id, 'requires_payment_method'],
    ]);
    // The same key gets the saved 402 back: no second intent, no second event.
    const again = await cardError(topUp(customerId, card.id, 'top-up-3184'));
    expect(again).toMatchObject({ statusCode: 402, code: 'authentication_required' });
    expect(again.payment_intent!.id).toBe(intent.id);
    expect(again.headers?.['idempotent-replayed']).toBe('true');
    expect((await sdk.paymentIntents.list({ customer: customerId })).data.map((i) => i.id)).toEqual([intent.id]);
    await offSession.settled();
    expect(got.filter((e) => e.type.startsWith('payment_intent.'))).toHaveLength(1);
    // Nothing to refund.
    await expect(sdk.refunds.create({ payment_intent: intent.id })).rejects.toMatchObject({ statusCode: 400, param: 'payment_intent' });
    // On the page, the buyer authenticates: it pays.
    const session = await sdk.checkout.sessions.create(params());
    expect((await pay(session, { action: 'pay', card: '4000002760003184' })).status).toBe(303);
  });

  it('0341 is saved, but its off-session charge is declined: card_declined, generic_decline, a failed charge; on the page it is declined', async () => {
    const { id: customerId } = await customer();
    const card = await saved(customerId, '4000000000000341');
    expect(card.customer).toBe(customerId);
    const error = await cardError(topUp(customerId, card.id));
    expect(error).toMatchObject({
      statusCode: 402,
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    });
    const intent = error.payment_intent!;
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'generic_decline', charge: error.charge },
    });
    expect(await sdk.charges.retrieve(error.charge!)).toMatchObject({
      status: 'failed',
      paid: false,
      balance_transaction: null,
      failure_code: 'card_declined',
      payment_intent: intent.id,
      outcome: { network_status: 'declined_by_network', type: 'issuer_declined', reason: 'generic_decline' },
    });
    expect(intent.latest_charge).toBe(error.charge);
    await offSession.settled();
    expect(got.filter((e) => e.type.startsWith('payment_intent.')).map((e) => e.type)).toEqual(['payment_intent.payment_failed']);
    const session = await sdk.checkout.sessions.create(params());
    const answer = await pay(session, { action: 'pay', card: '4000 0000 0000 0341' });
    expect(answer.status).toBe(402);
    expect(await answer.text()).toContain('Your card was declined.');
    expect((await sdk.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });

  it('insufficient funds off-session: 3178 is saved and declined insufficient_funds; 9995 cannot be saved', async () => {
    const { id: customerId } = await customer();
    const refused = await sdk.checkout.sessions.create(setupParams(customerId));
    const answer = await pay(refused, { action: 'save', card: '4000 0000 0000 9995' });
    expect(answer.status).toBe(402);
    expect(await answer.text()).toContain('Your card has insufficient funds.');
    expect((await sdk.checkout.sessions.retrieve(refused.id)).status).toBe('open');
    const card = await saved(customerId, '4000 0082 6000 3178');
    const error = await cardError(topUp(customerId, card.id));
    expect(error).toMatchObject({
      statusCode: 402,
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
      payment_intent: { status: 'requires_payment_method', last_payment_error: { decline_code: 'insufficient_funds' } },
    });
    expect(await sdk.charges.retrieve(error.charge!)).toMatchObject({ status: 'failed', outcome: { reason: 'insufficient_funds' } });
  });

  it('refuses a payment method of another customer, an unknown one, a bad amount or currency; detaches a card once', async () => {
    const { id: mine } = await customer();
    const { id: theirs } = await customer();
    const card = await saved(theirs, '4242424242424242');
    await expect(topUp(mine, card.id)).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param: 'payment_method',
    });
    await expect(topUp(mine, 'pm_test_unknown')).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'payment_method',
    });
    await expect(topUp('cus_test_unknown', card.id)).rejects.toMatchObject({ statusCode: 400, param: 'customer' });
    const base = { customer: theirs, payment_method: card.id, off_session: true, confirm: true };
    await expect(sdk.paymentIntents.create({ ...base, amount: 0, currency: 'eur' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'amount',
    });
    await expect(sdk.paymentIntents.create({ ...base, amount: 1.5, currency: 'eur' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'amount',
    });
    await expect(sdk.paymentIntents.create({ ...base, amount: 100, currency: 'euro' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'currency',
    });
    expect(await sdk.paymentMethods.detach(card.id)).toMatchObject({ id: card.id, customer: null });
    expect((await sdk.customers.listPaymentMethods(theirs)).data).toEqual([]);
    await expect(sdk.paymentMethods.detach(card.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(topUp(theirs, card.id)).rejects.toMatchObject({ statusCode: 400, param: 'payment_method' });
  });
});

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
  line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: amount, tax_behavior: 'inclusive', product_data: { name: 'Germany: 1 GB, 7 days' } } }],
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
    await expect(stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-1' })).rejects.toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
    const other = await stripe.checkout.sessions.create(params());
    expect(other.id).not.toBe(first.id);
  });

  it("refuses an expires_at less than 30 minutes or more than 24 hours away, with Stripe's error on that param", async () => {
    const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
    for (const expires_at of [inSeconds(-60), inSeconds(29 * 60), inSeconds(24 * 3600 + 60)]) {
      await expect(stripe.checkout.sessions.create({ ...params(), expires_at })).rejects.toMatchObject({
        statusCode: 400, type: 'StripeInvalidRequestError', param: 'expires_at',
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
    await expect(stripe.checkout.sessions.create({ ...params(), expires_at: tooSoon }, { idempotencyKey: 'key-invalid' })).rejects.toMatchObject({ statusCode: 400, param: 'expires_at' });
    const corrected = await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-invalid' });
    expect(corrected.status).toBe('open');
    expect((await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-invalid' })).id).toBe(corrected.id);
  });

  it('saves a 500 once the endpoint ran and replays it for that key, until the key is pruned after 24 hours', async () => {
    standIn.outage({ status: 500 });
    try {
      await expect(stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-500' })).rejects.toMatchObject({ statusCode: 500, type: 'StripeAPIError' });
    } finally {
      standIn.outage(null);
    }
    // The outage is over, but the same key and parameters get the saved 500 back, not retried by the SDK.
    const replayed = await stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-500' }).catch((e: Stripe.errors.StripeError) => e);
    expect(replayed).toMatchObject({ statusCode: 500, type: 'StripeAPIError' });
    expect((replayed as Stripe.errors.StripeError).headers?.['idempotent-replayed']).toBe('true');
    // The same key with other parameters is refused.
    await expect(stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-500' })).rejects.toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
    standIn.advanceClock(24 * 3600_000 - 5_000);
    try {
      await expect(stripe.checkout.sessions.create(params(), { idempotencyKey: 'key-500' })).rejects.toMatchObject({ statusCode: 500 });
      standIn.advanceClock(5_000);
      // Pruned: the key is a new request.
      expect((await stripe.checkout.sessions.create(params(999), { idempotencyKey: 'key-500' })).amount_total).toBe(999);
    } finally {
      standIn.advanceClock(-24 * 3600_000);
    }
  });

  it("lets the shop's retry open a session once a 500 outage ends: a later press is a new request under a new key", async () => {
    const request = (expiresInMs: number): CheckoutRequest => ({
      orderId: 'order-outage', email: null, lang: 'de', productName: 'Germany: 1 GB, 7 days', amountMinor: 499, currency: 'EUR',
      successUrl: 'http://127.0.0.1:4321/payment-success?order=order-outage', cancelUrl: 'http://127.0.0.1:4321/checkout?plan=de-1gb-7d&cancelled=1',
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
    expect((await fetch(charge.receipt_url!)).status).toBe(200);
    // Paying again completes nothing twice.
    expect((await pay(session, { action: 'pay', card: '4242424242424242' })).status).toBe(409);
    await standIn.settled();
    expect(received).toHaveLength(1);
  });

  it('declines 0002 and 9995 on the page, keeping the number and the session open, with no event', async () => {
    const session = await stripe.checkout.sessions.create(params());
    for (const [card, message] of [['4000 0000 0000 0002', 'Your card was declined.'], ['4000000000009995', 'Your card has insufficient funds.'], ['1234', 'Your card number is incorrect.']]) {
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
    await expect(refundPayment(stripe, { ...request, reference: 'order-other' })).rejects.toMatchObject({ type: 'StripeInvalidRequestError', code: 'charge_already_refunded' });
    await expect(refundPayment(stripe, { ...request, reference: 'order-x', paymentIntentId: 'pi_test_unknown' })).rejects.toMatchObject({ type: 'StripeInvalidRequestError', code: 'resource_missing' });
  });
});

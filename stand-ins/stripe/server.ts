import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A local stand-in for Stripe (dev and tests only; nothing under src/ imports it). The real
 * `stripe` SDK talks to it through its host/port/protocol options. It implements just the calls
 * the shop makes (Checkout Sessions: create, retrieve with expand, expire; payment intents and
 * charges by id), Idempotency-Key replays, a hosted test-payment page that takes Stripe's
 * documented test cards, and webhooks signed as Stripe signs them, retried until answered 2xx.
 */

export const STAND_IN_SECRET_KEY = 'sk_test_stand_in';
export const STAND_IN_WEBHOOK_SECRET = 'whsec_stand_in';
const API_VERSION = '2026-10-28.endive';

/** Stripe's test cards (docs.stripe.com/testing) and what they do on the hosted page. */
const TEST_CARDS: Record<string, { brand: string } | { decline: string; code: string }> = {
  '4242424242424242': { brand: 'visa' },
  '4000000000000002': { decline: 'Your card was declined.', code: 'card_declined' },
  '4000000000009995': { decline: 'Your card has insufficient funds.', code: 'insufficient_funds' },
};

export interface StripeStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where events are POSTed; without one, events are only recorded. */
  webhookUrl?: string;
  webhookSecret: string;
  /** Waits between delivery attempts of one event (Stripe retries for days; locally seconds). */
  retryDelaysMs?: number[];
}

/**
 * How the API fails while a test keeps Stripe down: `drop` closes each connection unanswered
 * (Stripe never saw the call); `status: 500` answers api_error once the endpoint has run (what it
 * did stays done: a 500 does not say whether the request was applied), and Stripe saves that 500
 * under the request's Idempotency-Key like any other result. Parameters that fail validation are
 * still refused with their 400.
 */
export type StripeOutage = { drop: true } | { status: 500 };

type Session = Record<string, unknown> & { id: string; status: 'open' | 'complete' | 'expired'; payment_status: string; success_url: string; cancel_url?: string; amount_total: number; currency: string; payment_intent: string | null };

export interface DeliveredEvent {
  event: { id: string; type: string; data: { object: Session } };
  attempts: { at: number; status: number | null; error?: string }[];
  delivered: boolean;
}

export interface StripeStandIn {
  url: string;
  /** Every event sent, in order, with its delivery attempts. */
  events: DeliveredEvent[];
  /** Resolves once every event queued so far has been delivered or given up. */
  settled(): Promise<void>;
  /** Every API call (/v1/…) fails this way until called again with null. */
  outage(failure: StripeOutage | null): void;
  /** Moves the stand-in's clock forward (idempotency keys' age, sessions' created and expires_at). */
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
  const intents = new Map<string, Record<string, unknown>>();
  const charges = new Map<string, Record<string, unknown>>();
  const refunds = new Map<string, Record<string, unknown>>();
  const idempotent = new Map<string, { request: string; savedAt: number; status: number; body: unknown; headers: Record<string, string> }>();
  const events: DeliveredEvent[] = [];
  const delays = options.retryDelaysMs ?? [500, 1000, 2000, 4000, 8000, 16000, 30000];
  let queue = Promise.resolve();
  let closed = false;
  let url = '';
  let down: StripeOutage | null = null;
  let clockOffsetMs = 0;
  /** The stand-in's own time in seconds (tests move it with advanceClock). */
  const clock = () => Math.floor((Date.now() + clockOffsetMs) / 1000);

  /** Signed as Stripe signs: v1 = HMAC-SHA256 of "<t>.<payload>" with the endpoint's secret. */
  const signature = (payload: string) => {
    const t = now();
    return `t=${t},v1=${createHmac('sha256', options.webhookSecret).update(`${t}.${payload}`).digest('hex')}`;
  };

  function send(type: string, session: Session) {
    const record: DeliveredEvent = {
      event: { id: id('evt'), type, data: { object: structuredClone(session) } },
      attempts: [],
      delivered: false,
    };
    events.push(record);
    const { webhookUrl } = options;
    if (!webhookUrl) return;
    const payload = JSON.stringify({ ...record.event, object: 'event', api_version: API_VERSION, created: now(), livemode: false, pending_webhooks: 1 });
    // One event at a time, in order, each retried until answered 2xx or the delays run out.
    queue = queue.then(async () => {
      for (let attempt = 0; attempt <= delays.length && !closed; attempt++) {
        if (attempt > 0) await new Promise((done) => setTimeout(done, delays[attempt - 1]));
        try {
          const response = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(payload) }, body: payload });
          await response.arrayBuffer();
          record.attempts.push({ at: Date.now(), status: response.status });
          if (response.ok) return void (record.delivered = true);
        } catch (error) {
          record.attempts.push({ at: Date.now(), status: null, error: error instanceof Error ? error.message : String(error) });
        }
      }
    });
  }

  const stripeError = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
    json(res, status, { error: { type: 'invalid_request_error', message, ...extra } });

  function createSession(params: Record<string, unknown>): Answer {
    const items = params.line_items as { quantity?: string; price_data?: { currency?: string; unit_amount?: string; tax_behavior?: string; product_data?: { name?: string } } }[] | undefined;
    const price = items?.[0]?.price_data;
    if (params.mode !== 'payment') return invalid('mode', 'mode must be payment.');
    if (typeof params.success_url !== 'string') return invalid('success_url', 'Missing required param: success_url.');
    if (items?.length !== 1 || !price || !/^[a-z]{3}$/.test(price.currency ?? '') || !/^\d+$/.test(price.unit_amount ?? '') || !price.product_data?.name) {
      return invalid('line_items', 'One line item with price_data (currency, unit_amount, product_data.name) is required.');
    }
    // API reference, Checkout Sessions, create, expires_at (docs.stripe.com/api/checkout/sessions/create#create_checkout_session-expires_at):
    // "It can be anywhere from 30 minutes to 24 hours after Checkout Session creation"; the guide
    // docs.stripe.com/payments/checkout/managing-limited-inventory says the same ("between 30 minutes
    // and 24 hours after the current time"). Without it, 24 hours.
    const created = clock();
    const expiresAt = params.expires_at === undefined ? created + 24 * 3600 : Number(params.expires_at);
    if (!Number.isInteger(expiresAt)) return invalid('expires_at', 'Invalid integer: expires_at.');
    if (expiresAt < created + 30 * 60 || expiresAt > created + 24 * 3600) {
      return invalid('expires_at', 'The expires_at timestamp must be between 30 minutes and 24 hours after the Checkout Session is created.');
    }
    const session: Session = {
      id: id('cs'),
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: Number(price.unit_amount) * Number(items[0]!.quantity ?? 1),
      amount_total: Number(price.unit_amount) * Number(items[0]!.quantity ?? 1),
      currency: price.currency!,
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      customer_email: (params.customer_email as string | undefined) ?? null,
      metadata: params.metadata ?? {},
      locale: (params.locale as string | undefined) ?? null,
      success_url: params.success_url,
      ...(typeof params.cancel_url === 'string' && { cancel_url: params.cancel_url }),
      expires_at: expiresAt,
      created,
      livemode: false,
      payment_intent: null,
      line_items_description: price.product_data.name,
      tax_behavior: price.tax_behavior ?? null,
      // API reference, Checkout Sessions, automatic_tax: echoed; the stand-in computes no tax (the prices are VAT-inclusive, the total is the same).
      automatic_tax: { enabled: (params.automatic_tax as { enabled?: string } | undefined)?.enabled === 'true', liability: null, status: null },
      url: '',
    };
    session.url = `${url}/pay/${session.id}`;
    sessions.set(session.id, session);
    return [200, session];
  }

  function expanded(session: Session, expand: string[]): unknown {
    if (!expand.some((path) => path.startsWith('payment_intent')) || !session.payment_intent) return session;
    const intent = { ...intents.get(session.payment_intent)! };
    if (expand.includes('payment_intent.latest_charge')) intent.latest_charge = charges.get(intent.latest_charge as string);
    return { ...session, payment_intent: intent };
  }

  /** What the endpoint answers, or during a 500 outage api_error once it has run (validation failures keep their 400). */
  function execute(method: string, path: string, params: Record<string, unknown>): Answer {
    const answer = api(method, path, params);
    if (down && 'status' in down && !answer[2]) return [down.status, { error: { type: 'api_error', message: 'Stripe stand-in outage: an error occurred on the server.' } }];
    return answer;
  }

  function api(method: string, path: string, params: Record<string, unknown>): Answer {
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params);
    let match = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (method === 'GET' && match) {
      const session = sessions.get(match[1]!);
      return session ? [200, expanded(session, (params.expand as string[] | undefined) ?? [])] : [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such checkout.session: '${match[1]}'` } }];
    }
    match = /^\/v1\/checkout\/sessions\/([\w]+)\/expire$/.exec(path);
    if (method === 'POST' && match) {
      const session = sessions.get(match[1]!);
      if (!session) return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such checkout.session: '${match[1]}'` } }];
      if (session.status !== 'open') return [400, { error: { type: 'invalid_request_error', message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".` } }];
      session.status = 'expired';
      send('checkout.session.expired', session);
      return [200, session];
    }
    if (method === 'POST' && path === '/v1/refunds') return createRefund(params);
    if (method === 'GET' && path === '/v1/refunds') {
      const data = [...refunds.values()].filter((r) => !params.payment_intent || r.payment_intent === params.payment_intent).reverse();
      return [200, { object: 'list', data, has_more: false, url: '/v1/refunds' }];
    }
    for (const [prefix, store] of [['payment_intents', intents], ['charges', charges], ['refunds', refunds]] as const) {
      match = new RegExp(`^/v1/${prefix}/([\\w]+)$`).exec(path);
      if (method === 'GET' && match) {
        const found = store.get(match[1]!);
        return found ? [200, found] : [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${prefix}: '${match[1]}'` } }];
      }
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). The Stripe stand-in implements only the calls the shop makes.` } }, 'unsaved'];
  }

  /** A refund of a paid intent's charge, at most what is left of it (Stripe's rules; the same Idempotency-Key replays it). */
  function createRefund(params: Record<string, unknown>): Answer {
    const intent = typeof params.payment_intent === 'string' ? intents.get(params.payment_intent) : undefined;
    if (!intent) {
      return [400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${String(params.payment_intent ?? '')}'`, param: 'payment_intent' } }];
    }
    const charge = charges.get(intent.latest_charge as string)!;
    const left = Number(charge.amount) - Number(charge.amount_refunded ?? 0);
    if (left <= 0) return [400, { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: `Charge ${String(charge.id)} has already been refunded.` } }];
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
      return [400, { error: { type: 'invalid_request_error', code: 'amount_too_large', message: `Refund amount (${String(params.amount)}) is greater than unrefunded amount on charge (${left}).`, param: 'amount' } }];
    }
    const refund = {
      id: id('re'), object: 'refund', amount, currency: charge.currency, payment_intent: intent.id, charge: charge.id, status: 'succeeded',
      reason: (params.reason as string | undefined) ?? null, metadata: params.metadata ?? {}, created: clock(),
    };
    refunds.set(refund.id, refund);
    charge.amount_refunded = Number(charge.amount_refunded ?? 0) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return [200, refund];
  }

  /** The hosted test-payment page: Pay with a test card, or Cancel back to the shop. */
  function payPage(res: ServerResponse, session: Session, status = 200, message = '', card = '') {
    const amount = new Intl.NumberFormat('en', { style: 'currency', currency: session.currency.toUpperCase() }).format(session.amount_total / 100);
    const body =
      session.status === 'open'
        ? `<p>${escape(String(session.line_items_description))}</p><p class="amount">${escape(amount)}</p>
  <form method="post">
    <label for="card">Card number</label>
    <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" required value="${escape(card)}"${message ? ' aria-invalid="true" aria-describedby="error"' : ''}>
    ${message ? `<p id="error" role="alert">${escape(message)}</p>` : ''}
    <button name="action" value="pay">Pay ${escape(amount)}</button>
    <button name="action" value="cancel" formnovalidate>Cancel</button>
  </form>`
        : session.status === 'complete'
          ? `<p role="status">This payment is complete.</p><p><a href="${escape(session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id))}">Back to the shop</a></p>`
          : `<p role="status">This payment page has expired.</p>${session.cancel_url ? `<p><a href="${escape(session.cancel_url)}">Back to the shop</a></p>` : ''}`;
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Test payment (Stripe stand-in)</title>
<style>body{font:16px system-ui;max-width:28rem;margin:2rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;margin:.25rem 0;display:block;width:100%}.amount{font-size:1.5rem;font-weight:bold}[role=alert]{color:#b00020}</style></head>
<body><main><h1>Test payment</h1><p><small>A local stand-in for Stripe's hosted payment page. Nothing is charged. Test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has insufficient funds.</small></p>${body}</main></body></html>`);
  }

  function pay(res: ServerResponse, session: Session, form: URLSearchParams) {
    if (session.status !== 'open') return payPage(res, session, 409);
    if (form.get('action') === 'cancel') {
      res.writeHead(303, { Location: session.cancel_url ?? session.success_url }).end();
      return;
    }
    const typed = form.get('card') ?? '';
    const card = TEST_CARDS[typed.replace(/[\s-]/g, '')];
    if (!card) return payPage(res, session, 402, 'Your card number is incorrect.', typed);
    if ('decline' in card) return payPage(res, session, 402, card.decline, typed);
    const charge = {
      id: id('ch'), object: 'charge', paid: true, status: 'succeeded', amount: session.amount_total, currency: session.currency,
      payment_method_details: { type: 'card', card: { brand: card.brand, last4: typed.replace(/\D/g, '').slice(-4) } },
      receipt_url: '', created: clock(),
    };
    charge.receipt_url = `${url}/receipts/${charge.id}`;
    const intent = { id: id('pi'), object: 'payment_intent', status: 'succeeded', amount: session.amount_total, currency: session.currency, latest_charge: charge.id, metadata: session.metadata, created: clock() };
    charges.set(charge.id, { ...charge, payment_intent: intent.id });
    intents.set(intent.id, intent);
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intent.id });
    send('checkout.session.completed', session);
    res.writeHead(303, { Location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = new URL(req.url ?? '/', 'http://stand-in');
    const path = target.pathname;
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
        return void res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt</title></head><body><main><h1>Receipt (Stripe stand-in)</h1><p>${escape(String(charge.id))}: ${Number(charge.amount) / 100} ${escape(String(charge.currency).toUpperCase())}</p></main></body></html>`);
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
      for (const [saved, { savedAt }] of idempotent) if (clock() - savedAt >= IDEMPOTENCY_KEY_LIFETIME_S) idempotent.delete(saved);
      const request = `${path} ${body}`;
      const earlier = idempotent.get(key);
      if (earlier && earlier.request !== request) {
        return json(res, 400, { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` } });
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
    settled: () => queue,
    outage(failure) {
      down = failure;
    },
    advanceClock(ms) {
      clockOffsetMs += ms;
    },
    close: () =>
      new Promise((done) => {
        closed = true;
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req'), ...headers });
  res.end(JSON.stringify(body));
}

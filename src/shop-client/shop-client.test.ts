import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AlertPreferences,
  CreateOrderResponse,
  OrderList,
  OrderView,
  PriceChangedError,
  type CreateOrderRequest,
  type PushSubscriptionRequest,
} from '../contract/shop-api.ts';
import { createOrderResponse, orderView } from '../../tests/support/shop-orders.ts';
import { createShopClient, ShopError, type ShopErrorKind } from './shop-client.ts';

// The client over real HTTP against a local server that answers what each test sets.
let answer: { status: number; body: string; contentType?: string; headers?: Record<string, string> };
let received: { method: string; url: string; authorization: string | undefined; body: string }[] = [];
const server = createServer((request: IncomingMessage, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk));
  request.on('end', () => {
    received.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body });
    response.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'application/json', ...answer.headers }).end(answer.body);
  });
});
let baseUrl: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
});

const client = () => createShopClient({ baseUrl, idToken: async () => 'token-1' });
const request: CreateOrderRequest = {
  planId: 'jp-5gb-30d',
  lang: 'de',
  expectedPrice: { amountMinor: 1299, currency: 'EUR' },
  consents: { terms: true, immediateStart: true },
};
const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });
const apiError = (status: number, code: string) => json(status, { error: { code, message: 'x' } });

async function failure(call: Promise<unknown>): Promise<ShopError> {
  const error: unknown = await call.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ShopError);
  return error as ShopError;
}

describe('the fixtures', () => {
  it('are what the contract allows', () => {
    expect(() => CreateOrderResponse.parse(createOrderResponse())).not.toThrow();
    expect(() =>
      OrderView.parse(orderView({ state: 'paid', paymentMethod: { type: 'card', brand: 'visa', last4: '4242' } })),
    ).not.toThrow();
  });
});

describe('createOrder', () => {
  it('posts the request with the ID token and answers the checkout URL', async () => {
    answer = json(201, createOrderResponse());
    const result = await client().createOrder(request);
    expect(result.checkoutUrl).toBe('https://checkout.stripe.test/c/pay/cs_test_1');
    expect(result.order.number).toBe('ES-2026-000123');
    expect(received).toEqual([{ method: 'POST', url: '/api/orders', authorization: 'Bearer token-1', body: JSON.stringify(request) }]);
  });

  it('a changed price is priceChanged with the current price', async () => {
    const body: PriceChangedError = { error: { code: 'price_changed', message: 'changed', price: { amountMinor: 1499, currency: 'EUR' } } };
    answer = json(409, body);
    const error = await failure(client().createOrder(request));
    expect(error.kind).toBe('priceChanged');
    expect(error.price).toEqual({ amountMinor: 1499, currency: 'EUR' });
  });

  const cases: [string, typeof answer, ShopErrorKind][] = [
    ['401', apiError(401, 'unauthorized'), 'unauthorized'],
    ['403', apiError(403, 'recent_login_required'), 'unauthorized'],
    ['503 sales paused', apiError(503, 'sales_paused'), 'salesPaused'],
    ['403 account blocked', apiError(403, 'account_blocked'), 'accountBlocked'],
    ['400', apiError(400, 'bad_request'), 'badInput'],
    ['413', apiError(413, 'body_too_large'), 'badInput'],
    ['404 unknown plan', apiError(404, 'unknown_plan'), 'notFound'],
    ['500', apiError(500, 'internal_error'), 'server'],
    ['502 payment provider', apiError(502, 'payment_unavailable'), 'server'],
    ['an HTML error page', { status: 503, body: '<h1>Service Unavailable</h1>', contentType: 'text/html' }, 'server'],
    [
      '409 without a usable price',
      json(409, { error: { code: 'price_changed', message: 'x', price: { amountMinor: 'a lot' } } }),
      'server',
    ],
    ['200 that is not an order', json(200, { checkoutUrl: 'https://pay.test/1' }), 'server'],
    ['201 with a checkout URL that is no URL', json(201, { ...createOrderResponse(), checkoutUrl: 'not a url' }), 'server'],
    ['201 with a script for a checkout URL', json(201, { ...createOrderResponse(), checkoutUrl: 'javascript:alert(1)' }), 'server'],
  ];
  for (const [name, given, kind] of cases) {
    it(`${name} is ${kind}`, async () => {
      answer = given;
      expect((await failure(client().createOrder(request))).kind).toBe(kind);
    });
  }

  it('429 is tooManyRequests with the seconds of Retry-After, when it says them', async () => {
    answer = { ...apiError(429, 'too_many_requests'), headers: { 'Retry-After': '42' } };
    const error = await failure(client().createOrder(request));
    expect([error.kind, error.retryAfterSeconds]).toEqual(['tooManyRequests', 42]);
    for (const header of [{}, { 'Retry-After': 'soon' }, { 'Retry-After': '-3' }]) {
      answer = { ...apiError(429, 'too_many_requests'), headers: header };
      const without = await failure(client().refundEsim('e1', 'de'));
      expect([without.kind, without.retryAfterSeconds]).toEqual(['tooManyRequests', undefined]);
    }
  });

  it('an unreachable API is a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const offline = createShopClient({ baseUrl: `http://127.0.0.1:${port}/api`, idToken: async () => 't' });
    expect((await failure(offline.createOrder(request))).kind).toBe('network');
  });

  it('nobody signed in sends nothing; a token that cannot be refreshed is a network error', async () => {
    const signedOut = createShopClient({ baseUrl, idToken: () => Promise.reject(new ShopError('unauthorized')) });
    expect((await failure(signedOut.createOrder(request))).kind).toBe('unauthorized');
    const offline = createShopClient({ baseUrl, idToken: () => Promise.reject(new Error('auth/network-request-failed')) });
    expect((await failure(offline.createOrder(request))).kind).toBe('network');
    expect(received).toEqual([]);
  });
});

describe('listOrders and getOrder', () => {
  it('read the orders in the asked language', async () => {
    const list: OrderList = { orders: [orderView({ state: 'paid' }), orderView({ id: 'b', number: 'ES-2026-000122' })] };
    answer = json(200, list);
    expect(await client().listOrders('ar')).toEqual(list);
    answer = json(200, orderView());
    expect((await client().getOrder('id/../x', 'ja')).number).toBe('ES-2026-000123');
    expect(received.map((r) => `${r.method} ${r.url} ${r.authorization}`)).toEqual([
      'GET /api/orders?lang=ar Bearer token-1',
      'GET /api/orders/id%2F..%2Fx?lang=ja Bearer token-1',
    ]);
  });

  it('someone else’s order is notFound; an order in an unknown state is a server error', async () => {
    answer = apiError(404, 'not_found');
    expect((await failure(client().getOrder('x', 'en'))).kind).toBe('notFound');
    for (const state of ['teleported', 'constructor']) {
      answer = json(200, { ...orderView(), state });
      expect((await failure(client().getOrder('x', 'en'))).kind).toBe('server');
    }
    answer = json(200, { orders: [orderView(), { ...orderView(), total: { amountMinor: 12.5, currency: 'EUR' } }] });
    expect((await failure(client().listOrders('en'))).kind).toBe('server');
  });
});

describe('deleteMe', () => {
  it('sends DELETE /me with the ID token; 204 is done', async () => {
    answer = { status: 204, body: '' };
    await expect(client().deleteMe()).resolves.toBeUndefined();
    expect(received).toEqual([{ method: 'DELETE', url: '/api/me', authorization: 'Bearer token-1', body: '' }]);
  });

  it('fails with the same kinds as every call, so the account stays until the orders are settled', async () => {
    const failures: [typeof answer, ShopErrorKind][] = [
      [apiError(401, 'unauthorized'), 'unauthorized'],
      [apiError(403, 'recent_login_required'), 'unauthorized'],
      [apiError(500, 'internal_error'), 'server'],
      [{ status: 503, body: '<h1>Service Unavailable</h1>', contentType: 'text/html' }, 'server'],
      [json(200, { deleted: true }), 'server'],
    ];
    for (const [given, kind] of failures) {
      answer = given;
      expect((await failure(client().deleteMe())).kind).toBe(kind);
    }
    const offline = createShopClient({ baseUrl, idToken: () => Promise.reject(new Error('auth/network-request-failed')) });
    expect((await failure(offline.deleteMe())).kind).toBe('network');
  });
});

describe('alert preferences', () => {
  const preferences: AlertPreferences = {
    esim_ready: { email: false, push: true },
    connected: { email: true, push: false },
    not_connected: { email: false, push: true },
    data_80: { email: true, push: false },
    data_used_up: { email: true, push: true },
    validity_1_day: { email: false, push: true },
  };

  it('reads them, and saves them with PUT answering what the server kept', async () => {
    expect(() => AlertPreferences.parse(preferences)).not.toThrow();
    answer = json(200, preferences);
    expect(await client().getAlertPreferences()).toEqual(preferences);
    expect(await client().saveAlertPreferences(preferences)).toEqual(preferences);
    expect(received).toEqual([
      { method: 'GET', url: '/api/me/alerts', authorization: 'Bearer token-1', body: '' },
      { method: 'PUT', url: '/api/me/alerts', authorization: 'Bearer token-1', body: JSON.stringify(preferences) },
    ]);
  });

  it('an answer without every kind, or with a channel that is not on or off, is a server error', async () => {
    const { validity_1_day: _left, ...missing } = preferences;
    for (const body of [missing, { ...preferences, data_80: { email: 'yes', push: true } }]) {
      answer = json(200, body);
      expect((await failure(client().getAlertPreferences())).kind).toBe('server');
    }
  });
});

describe('push subscriptions', () => {
  const subscription: PushSubscriptionRequest = {
    endpoint: 'https://push.example/send/abc',
    expirationTime: null,
    keys: {
      p256dh: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
      auth: 'tBHItJI5svbpez7KI4CCXg',
    },
    lang: 'ar',
  };

  it('reads the public key, stores this device’s subscription and deletes it by its endpoint', async () => {
    answer = json(200, { publicKey: 'BPublicKey' });
    expect(await client().getPushPublicKey()).toEqual({ publicKey: 'BPublicKey' });
    answer = { status: 204, body: '' };
    await expect(client().savePushSubscription(subscription)).resolves.toBeUndefined();
    await expect(client().deletePushSubscription(subscription.endpoint)).resolves.toBeUndefined();
    expect(received.map(({ method, url, body }) => `${method} ${url} ${body}`)).toEqual([
      'GET /api/push/public-key ',
      `POST /api/me/push-subscriptions ${JSON.stringify(subscription)}`,
      `DELETE /api/me/push-subscriptions ${JSON.stringify({ endpoint: subscription.endpoint })}`,
    ]);
  });

  it('an empty key or a refused subscription fails, so the switch stays off', async () => {
    answer = json(200, { publicKey: '' });
    expect((await failure(client().getPushPublicKey())).kind).toBe('server');
    answer = apiError(400, 'bad_request');
    expect((await failure(client().savePushSubscription(subscription))).kind).toBe('badInput');
    answer = apiError(503, 'internal_error');
    expect((await failure(client().deletePushSubscription(subscription.endpoint))).kind).toBe('server');
  });
});

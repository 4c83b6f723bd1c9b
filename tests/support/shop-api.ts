import { expect } from 'vitest';
import { STAND_IN_WEBHOOK_SECRET } from '../../stand-ins/stripe/server.ts';
import { TEST_ALERTS } from './alert-keys.ts';
import { createShopApi, type ShopApiOptions } from '../../src/server/wiring.ts';
import { firebaseAccounts } from '../../src/server/auth.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { sellablePlans, type SellablePlan } from '../../src/server/orders/plans.ts';
import { CreateOrderResponse, OrderView, type CreateOrderRequest, type TopUpPlan } from '../../src/contract/shop-api.ts';

// The shop API as its tests call it over HTTP (the *.api.test.ts files).

/** The shop API as the tests build it: the Stripe stand-in's webhook secret, Auth emulator tokens of demo-esim, routes under /api. */
export const testShopApi = (
  parts: Omit<ShopApiOptions, 'stripeWebhookSecret' | 'accounts' | 'basePath' | 'alerts'> & Partial<Pick<ShopApiOptions, 'alerts'>>,
  overrides: Partial<ShopApiOptions> = {},
) =>
  createShopApi({
    stripeWebhookSecret: STAND_IN_WEBHOOK_SECRET,
    accounts: firebaseAccounts('demo-esim'),
    basePath: '/api',
    alerts: TEST_ALERTS,
    ...parts,
    ...overrides,
  });

/** The catalogue the tests sell from (the embedded snapshot), its plans, and the plan most of them buy (Germany, 1 GB, 7 days). */
export function testCatalogue() {
  const catalogue = embeddedSnapshot();
  const plans = sellablePlans(catalogue);
  return { catalogue, plans, PLAN: plans.get('de-1gb-7d')! };
}

/** A German buyer's order of this plan at its price, with both consents. */
export const orderRequest = (plan: SellablePlan, overrides: Partial<CreateOrderRequest> = {}): CreateOrderRequest => ({
  planId: plan.pkg.id,
  lang: 'de',
  expectedPrice: plan.price,
  consents: { terms: true, immediateStart: true },
  ...overrides,
});

/** A German buyer's order of one of an eSIM's top-ups (GET /esims/{id}/top-ups) at its price, with both consents. */
export const topUpRequest = (
  topUp: Pick<TopUpPlan, 'id' | 'price'>,
  esimId: string,
  overrides: Partial<CreateOrderRequest> = {},
): CreateOrderRequest => ({
  planId: topUp.id,
  lang: 'de',
  expectedPrice: topUp.price,
  consents: { terms: true, immediateStart: true },
  topUpOf: esimId,
  ...overrides,
});

/** An eSIM's top-ups as the API offers them (its owner's token), cheapest first. */
export async function offeredTopUps(baseUrl: string, token: string, esimId: string): Promise<TopUpPlan[]> {
  const response = await fetch(`${baseUrl}/api/esims/${esimId}/top-ups?lang=de`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { plans?: TopUpPlan[] };
  if (response.status !== 200 || !body.plans)
    throw new Error(`GET /esims/${esimId}/top-ups answered ${response.status}: ${JSON.stringify(body)}`);
  return body.plans;
}

/** A call to the API under /api at `baseUrl()` (a getter: tests restart the server), with an ID token when given. */
export const apiCaller =
  (baseUrl: () => string) =>
  (path: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${baseUrl()}/api${path}`, {
      ...init,
      headers: {
        ...(init.token && { Authorization: `Bearer ${init.token}` }),
        ...(init.body && { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
    });

/** A buyer's calls to orders: read one, open one for a plan, wait until one is delivered with its codes. */
export function buyerOrders(call: ReturnType<typeof apiCaller>) {
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=en`, { token })).json());
  return {
    readOrder,
    open: (token: string, plan: SellablePlan, overrides: Partial<CreateOrderRequest> = {}) =>
      call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(plan, overrides)) }),
    delivered: (token: string, id: string) =>
      waitFor(
        () => readOrder(token, id),
        (o) => o.state === 'delivered' && !!o.esim?.install,
      ),
  };
}

/** Pays on the Stripe stand-in's hosted page, as a buyer's browser would post its form. */
export const payOnStandIn = (checkoutUrl: string, card: string) =>
  fetch(checkoutUrl, { method: 'POST', body: new URLSearchParams({ action: 'pay', card }), redirect: 'manual' });

/**
 * Opens an order (`open`: the test's POST /orders), expects it answered `status` (any 2xx without),
 * and pays it with the test card on the Stripe stand-in's page; answers what POST /orders answered.
 */
export async function openAndPay(open: () => Promise<Response>, status?: number): Promise<CreateOrderResponse> {
  const response = await open();
  const body: unknown = await response.json();
  if (status === undefined) expect(response.status, JSON.stringify(body)).toBeLessThan(300);
  else expect(response.status, JSON.stringify(body)).toBe(status);
  const created = CreateOrderResponse.parse(body);
  expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
  return created;
}

/** Reads the order until it is delivered with its install codes. */
export async function untilDelivered(read: () => Promise<OrderView>): Promise<OrderView> {
  const delivered = await waitFor(read, (o) => o.state === 'delivered' && !!o.esim?.install);
  expect(delivered.state).toBe('delivered');
  return delivered;
}

/** The eSIM installed on a phone (`install`, at the partner), read until the shop has it active from the partner's notification. */
export async function untilInstalled(read: () => Promise<OrderView>, install: () => void): Promise<OrderView> {
  install();
  const active = await waitFor(read, (o) => o.esim?.status === 'active');
  expect(active.esim?.status).toBe('active');
  return active;
}

/** Reads until `done` holds or the time is up, and answers the last value (the test's assertion then says what was wrong). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Until the partner stand-in has had no request for 400 ms: the notifications it sent so far are all handled. */
export async function partnerSettled(partner: { requests: readonly unknown[] }): Promise<void> {
  let seen = -1;
  await waitFor(async () => {
    await new Promise((r) => setTimeout(r, 400));
    const now = partner.requests.length;
    const still = now === seen;
    seen = now;
    return still;
  }, Boolean);
}

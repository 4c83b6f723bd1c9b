import type { Price } from '../catalogue/schema.ts';
import type { Currency } from '../config/currencies.ts';
import type { Locale } from '../i18n/locales.ts';
import { ALERT_KINDS } from '../contract/alert-kinds.ts';
import { TRAVELLER_TOKEN_HEADER } from '../config/constants.ts';
import type {
  AlertPreferences,
  CartView,
  CreateCartRequest,
  CreateCartResponse,
  CreateOrderRequest,
  CreateOrderResponse,
  EsimList,
  EsimStatus,
  EsimSteps,
  EsimView,
  InstallStep,
  OrderList,
  OrderState,
  OrderView,
  PushPublicKey,
  PushSubscriptionRequest,
  TopUpPlans,
  Traveller,
  TravellerEsim,
  TravellerLink,
} from '../contract/shop-api.ts';

/**
 * The pages' client of the shop API (src/contract/shop-api.ts). Every failure becomes one ShopError
 * whose kind the pages turn into the spec's section 8 texts. Answers are checked by hand, not
 * with the contract's zod schemas: zod is not in the checkout page's JavaScript, and the server
 * validates with them anyway.
 */

export type ShopErrorKind =
  | 'network'
  | 'server'
  | 'unauthorized'
  | 'badInput'
  | 'notFound'
  | 'priceChanged'
  | 'notRefundable'
  /** Only an eSIM never downloaded, or deleted before it carried data, within 30 days is replaced. */
  | 'notReplaceable'
  /** POST /orders with exchangeOf: that eSIM cannot be exchanged for this plan (`reason` says why). */
  | 'notExchangeable'
  | 'cannotTopUp'
  /** PUT /esims/{id}/traveller: only a delivered eSIM that has not ended can be given to a traveller. */
  | 'notShareable'
  | 'tooManyRequests'
  /** The shop has stopped selling for a while (the partner's balance ran dry): nothing was charged. */
  | 'salesPaused'
  /** The provider blocked the account: no orders, top-ups or refund requests (nothing was charged); support can help. */
  | 'accountBlocked';

export class ShopError extends Error {
  constructor(
    readonly kind: ShopErrorKind,
    /** With priceChanged: the plan's current price. */
    readonly price?: Price,
    /** With tooManyRequests: the seconds to wait (the answer's Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
    /** With notExchangeable: why ('not_refundable', 'same_destination', 'already_exchanged'). */
    readonly reason?: string,
    /** With priceChanged on a cart: every plan's current price. */
    readonly prices?: { planId: string; price: Price }[],
  ) {
    super(`shop API: ${kind}`);
    this.name = 'ShopError';
  }
}

/** What a client of the shop API is made with: this one and the back office's (ops-client.ts). */
export interface ApiClientOptions {
  /** API_BASE_URL, without a trailing slash. */
  baseUrl: string;
  /** The signed-in user's (or operator's) Firebase ID token. */
  idToken: () => Promise<string>;
  fetch?: typeof fetch;
}

export interface ShopClientOptions extends ApiClientOptions {
  /** The signed-in user's Firebase ID token; throws ShopError('unauthorized') when nobody is. */
  idToken: () => Promise<string>;
  /** Headers sent with every call besides the token: a traveller's link kept in this tab (issue 33). */
  headers?: () => Record<string, string>;
}

export interface ShopClient {
  createOrder(request: CreateOrderRequest): Promise<CreateOrderResponse>;
  /** Several eSIMs on one payment page (POST /carts); a moved price is priceChanged with every plan's `prices`. */
  createCart(request: CreateCartRequest): Promise<CreateCartResponse>;
  /** A cart's orders, each with its eSIM once paid. */
  getCart(id: string, lang: Locale): Promise<CartView>;
  listOrders(lang: Locale): Promise<OrderList>;
  /**
   * One order. With waitMs, a long-poll: answers as soon as a pending order changes, else after
   * waitMs (the API's OrderQuery); `signal` abandons it (the page went away).
   */
  getOrder(id: string, lang: Locale, wait?: { waitMs: number; signal?: AbortSignal }): Promise<OrderView>;
  /** Before the account goes: cancels the caller's open orders and detaches the paid ones. */
  deleteMe(): Promise<void>;
  /** The caller's eSIMs with their install codes and data use. */
  listEsims(lang: Locale): Promise<EsimList>;
  /** The caller's eSIMs' states and install steps only (from the shop's database: cheap to poll). */
  listEsimSteps(): Promise<EsimSteps>;
  /**
   * The partner's top-ups of this eSIM, priced in `currency` (the visitor's, issue 34; absent: the
   * one the eSIM was bought in), cheapest first, with the eSIM's destination.
   */
  listTopUps(esimId: string, lang: Locale, currency?: Currency): Promise<TopUpPlans>;
  /** Cancels a never-installed eSIM and refunds it; answers the eSIM as it is now. */
  refundEsim(esimId: string, lang: Locale): Promise<EsimView>;
  /** A new eSIM of the same plan at our cost for one never downloaded or deleted before use; answers the new one. */
  replaceEsim(esimId: string, lang: Locale): Promise<EsimView>;
  /** The eSIM as the partner has it now ("Not working?": read again at most once a minute per eSIM). */
  diagnoseEsim(esimId: string, lang: Locale): Promise<EsimView>;
  /** Gives the eSIM to a traveller, or sends their link again: a new link (the last one stops), e-mailed when an address is given. */
  shareWithTraveller(esimId: string, traveller: Traveller): Promise<TravellerLink>;
  /** Stops the traveller's link. */
  revokeTravellerLink(esimId: string): Promise<void>;
  /** Which alerts go by e-mail and by push (saved on the server, all on until changed). */
  getAlertPreferences(): Promise<AlertPreferences>;
  saveAlertPreferences(preferences: AlertPreferences): Promise<AlertPreferences>;
  /** The VAPID public key that pushManager.subscribe needs. */
  getPushPublicKey(): Promise<PushPublicKey>;
  /** Stores this device's push subscription (its endpoint is its key) with the language of its notifications. */
  savePushSubscription(subscription: PushSubscriptionRequest): Promise<void>;
  /** Forgets this device's push subscription, stored or not. */
  deletePushSubscription(endpoint: string): Promise<void>;
}

/** Every state, checked at compile time against the contract's. */
const STATES: Record<OrderState, true> = {
  pending_payment: true,
  paid: true,
  provisioning: true,
  delivered: true,
  expired: true,
  payment_failed: true,
  cancelled: true,
  fulfilment_failed: true,
  refund_requested: true,
  refunded: true,
};
const INSTALL_STEPS: Record<InstallStep, true> = {
  released: true,
  downloaded: true,
  installed: true,
  enabled: true,
  in_use: true,
  deleted: true,
  expired: true,
};

const ESIM_STATUSES: Record<EsimStatus, true> = {
  preparing: true,
  ready: true,
  active: true,
  suspended: true,
  used_up: true,
  expired: true,
  refunding: true,
  refunded: true,
  replaced: true,
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
/** One of the table's keys: a state, status or install step this page knows. */
const isKeyOf = (table: object, value: unknown): value is string => isString(value) && Object.hasOwn(table, value);
/** A moment the page can read (ISO 8601). */
const isMoment = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));
/** A checkout answer's checkoutUrl: the page goes wherever it says, so a web address only, never javascript: or data:. */
const isCheckoutUrl = (value: unknown): value is string => isString(value) && /^https?:\/\//.test(value) && URL.canParse(value);
const isPrice = (value: unknown): value is Price =>
  isObject(value) &&
  Number.isInteger(value.amountMinor) &&
  (value.amountMinor as number) >= 0 &&
  isString(value.currency) &&
  /^[A-Z]{3}$/.test(value.currency);

const isPlan = (plan: unknown) =>
  isObject(plan) &&
  isObject(plan.metadata) &&
  isObject(plan.metadata.dataAmount) &&
  typeof plan.metadata.dataAmount.value === 'number' &&
  ['MB', 'GB'].includes(plan.metadata.dataAmount.unit as string) &&
  Number.isInteger(plan.validity) &&
  ['day', 'week', 'month'].includes(plan.validityUnit as string) &&
  Array.isArray(plan.supportedCountries);

const isDestination = (destination: unknown) => isObject(destination) && isString(destination.name) && isString(destination.flag);

/** The install codes, with an SVG that is only an SVG. */
const isInstall = (install: unknown) =>
  isObject(install) &&
  isString(install.lpa) &&
  isString(install.smdpAddress) &&
  isString(install.activationCode) &&
  isString(install.qrSvg) &&
  install.qrSvg.startsWith('<svg') &&
  isString(install.iphoneUrl) &&
  install.iphoneUrl.startsWith('https://') &&
  // Absent in a list an older API answered or this device saved before the APN was sent.
  (install.apn === undefined || install.apn === null || isString(install.apn));

function isEsimView(value: unknown): value is EsimView {
  if (!isObject(value)) return false;
  const { usage } = value;
  return (
    isString(value.id) &&
    isString(value.orderNumber) &&
    isKeyOf(ESIM_STATUSES, value.status) &&
    isPlan(value.plan) &&
    isDestination(value.destination) &&
    (usage === null || (isObject(usage) && typeof usage.usedBytes === 'number' && typeof usage.totalBytes === 'number')) &&
    (value.expiresAt === null || isMoment(value.expiresAt)) &&
    (value.install === null || isInstall(value.install)) &&
    // A device's copy saved before install steps existed has none.
    (value.installStep === undefined || value.installStep === null || isKeyOf(INSTALL_STEPS, value.installStep)) &&
    typeof value.refundable === 'boolean' &&
    typeof value.canTopUp === 'boolean' &&
    typeof value.topUpSupported === 'boolean' &&
    // A device's copy saved before travellers existed has none.
    (value.traveller === undefined || value.traveller === null || (isObject(value.traveller) && isString(value.traveller.name)))
  );
}

/** What the pages read of an order; anything else the server sends is its business. */
const isPlanPrice = (value: unknown): value is { planId: string; price: Price } =>
  isObject(value) && isString(value.planId) && isPrice(value.price);

function isCart(value: unknown): value is CartView {
  return isObject(value) && isString(value.id) && isPrice(value.total) && Array.isArray(value.orders) && value.orders.every(isOrderView);
}

function isOrderView(value: unknown): value is OrderView {
  if (!isObject(value)) return false;
  const { paymentMethod } = value;
  return (
    isString(value.id) &&
    isString(value.number) &&
    isKeyOf(STATES, value.state) &&
    (value.kind === 'esim' || value.kind === 'top_up' || value.kind === 'auto') &&
    isString(value.esimId) &&
    isPlan(value.plan) &&
    isDestination(value.destination) &&
    isPrice(value.total) &&
    isMoment(value.createdAt) &&
    (paymentMethod === null || (isObject(paymentMethod) && isString(paymentMethod.type))) &&
    (value.receiptUrl === null || isString(value.receiptUrl)) &&
    (value.esim === undefined || value.esim === null || isEsimView(value.esim))
  );
}

const isAlertPreferences = (value: unknown): value is AlertPreferences =>
  isObject(value) &&
  ALERT_KINDS.every((kind) => {
    const channels = value[kind];
    return isObject(channels) && typeof channels.email === 'boolean' && typeof channels.push === 'boolean';
  });

/** 204 has no body; anything with one is not what the contract answers. */
const isNoContent = (body: unknown): body is void => body === undefined;

/** A top-up as GET /esims/{id}/top-ups and the automatic top-ups' choices give it. */
const isTopUpPlan = (plan: unknown) =>
  isObject(plan) &&
  isString(plan.id) &&
  isPlan({
    metadata: { dataAmount: plan.dataAmount },
    validity: plan.validity,
    validityUnit: plan.validityUnit,
    supportedCountries: plan.supportedCountries,
  }) &&
  isPrice(plan.price);

/** Retry-After in seconds (the shop API sends whole seconds; an HTTP date is not expected). */
function retryAfter(response: Response): number | undefined {
  const seconds = Number(response.headers.get('Retry-After') ?? '');
  return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

function kindOf(status: number): ShopErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'notFound';
  if (status === 400 || status === 413 || status === 422) return 'badInput';
  return 'server';
}

/** A call of the shop API as the signed-in visitor: its answer checked by `check`, every failure one ShopError. */
export type ShopCall = <R>(
  path: string,
  check: (body: unknown) => body is R,
  init?: { method?: string; body?: unknown; signal?: AbortSignal },
) => Promise<R>;

/** The shop API's calls with the visitor's token (the shop client's, and the automatic top-ups' own: auto-top-up-client.ts). */
export function shopCall({ baseUrl, idToken, fetch: fetchImpl = fetch, headers: extraHeaders }: ShopClientOptions): ShopCall {
  return async function call<R>(
    path: string,
    check: (body: unknown) => body is R,
    init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<R> {
    // Firebase refreshes an expired token over the network; failing that is a network error.
    const token = await idToken().catch((error: unknown) => {
      throw error instanceof ShopError ? error : new ShopError('network');
    });
    let response: Response;
    try {
      const headers: Record<string, string> = { ...extraHeaders?.(), Authorization: `Bearer ${token}` };
      const request: RequestInit = { method: init.method ?? 'GET', headers };
      if (init.signal) request.signal = init.signal;
      if (init.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        request.body = JSON.stringify(init.body);
      }
      response = await fetchImpl(`${baseUrl}${path}`, request);
    } catch {
      throw new ShopError('network');
    }
    // A body that does not arrive or is not JSON: the server (or something before it) failed.
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      if (check(body)) return body;
      throw new ShopError('server');
    }
    // A per-user limit of orders or refund requests (the page says how long to wait).
    if (response.status === 429) throw new ShopError('tooManyRequests', undefined, retryAfter(response));
    if (response.status === 409 && isObject(body) && isObject(body.error)) {
      if (body.error.code === 'price_changed' && isPrice(body.error.price)) throw new ShopError('priceChanged', body.error.price);
      if (body.error.code === 'price_changed' && Array.isArray(body.error.prices) && body.error.prices.every(isPlanPrice))
        throw new ShopError('priceChanged', undefined, undefined, undefined, body.error.prices);
      if (body.error.code === 'not_refundable') throw new ShopError('notRefundable');
      if (body.error.code === 'not_replaceable') throw new ShopError('notReplaceable');
      if (body.error.code === 'not_exchangeable')
        throw new ShopError('notExchangeable', undefined, undefined, isString(body.error.reason) ? body.error.reason : undefined);
      if (body.error.code === 'cannot_top_up') throw new ShopError('cannotTopUp');
      if (body.error.code === 'not_shareable') throw new ShopError('notShareable');
    }
    if (response.status === 503 && isObject(body) && isObject(body.error) && body.error.code === 'sales_paused')
      throw new ShopError('salesPaused');
    if (response.status === 403 && isObject(body) && isObject(body.error) && body.error.code === 'account_blocked')
      throw new ShopError('accountBlocked');
    throw new ShopError(kindOf(response.status));
  };
}

export function createShopClient(options: ShopClientOptions): ShopClient {
  const call = shopCall(options);
  return {
    createOrder: (request) =>
      call('/orders', (body): body is CreateOrderResponse => isObject(body) && isCheckoutUrl(body.checkoutUrl) && isOrderView(body.order), {
        method: 'POST',
        body: request,
      }),
    createCart: (request) =>
      call('/carts', (body): body is CreateCartResponse => isObject(body) && isCheckoutUrl(body.checkoutUrl) && isCart(body.cart), {
        method: 'POST',
        body: request,
      }),
    getCart: (id, lang) => call(`/carts/${encodeURIComponent(id)}?lang=${lang}`, isCart),
    listOrders: (lang) =>
      call(
        `/orders?lang=${lang}`,
        (body): body is OrderList => isObject(body) && Array.isArray(body.orders) && body.orders.every(isOrderView),
      ),
    getOrder: (id, lang, wait) =>
      call(
        `/orders/${encodeURIComponent(id)}?lang=${lang}${wait ? `&waitMs=${wait.waitMs}` : ''}`,
        isOrderView,
        wait?.signal ? { signal: wait.signal } : {},
      ),
    deleteMe: () => call('/me', isNoContent, { method: 'DELETE' }),
    listEsimSteps: () =>
      call(
        '/esims/steps',
        (body): body is EsimSteps =>
          isObject(body) &&
          Array.isArray(body.esims) &&
          body.esims.every(
            (e) =>
              isObject(e) &&
              isString(e.id) &&
              isKeyOf(ESIM_STATUSES, e.status) &&
              (e.installStep === null || isKeyOf(INSTALL_STEPS, e.installStep)) &&
              (e.installStepAt === null || isString(e.installStepAt)),
          ),
      ),
    listEsims: (lang) =>
      call(`/esims?lang=${lang}`, (body): body is EsimList => isObject(body) && Array.isArray(body.esims) && body.esims.every(isEsimView)),
    listTopUps: (esimId, lang, currency) =>
      call(
        `/esims/${encodeURIComponent(esimId)}/top-ups?lang=${lang}${currency ? `&currency=${currency}` : ''}`,
        (body): body is TopUpPlans =>
          isObject(body) && isDestination(body.destination) && Array.isArray(body.plans) && body.plans.every(isTopUpPlan),
      ),
    refundEsim: (esimId, lang) => call(`/esims/${encodeURIComponent(esimId)}/refund?lang=${lang}`, isEsimView, { method: 'POST' }),
    replaceEsim: (esimId, lang) => call(`/esims/${encodeURIComponent(esimId)}/replace?lang=${lang}`, isEsimView, { method: 'POST' }),
    diagnoseEsim: (esimId, lang) => call(`/esims/${encodeURIComponent(esimId)}/diagnosis?lang=${lang}`, isEsimView),
    shareWithTraveller: (esimId, traveller) =>
      call(
        `/esims/${encodeURIComponent(esimId)}/traveller`,
        (body): body is TravellerLink =>
          isObject(body) && isString(body.link) && /^https?:\/\//.test(body.link) && (body.emailedTo === null || isString(body.emailedTo)),
        { method: 'PUT', body: traveller },
      ),
    revokeTravellerLink: (esimId) => call(`/esims/${encodeURIComponent(esimId)}/traveller-link`, isNoContent, { method: 'DELETE' }),
    getAlertPreferences: () => call('/me/alerts', isAlertPreferences),
    saveAlertPreferences: (preferences) => call('/me/alerts', isAlertPreferences, { method: 'PUT', body: preferences }),
    getPushPublicKey: () =>
      call('/push/public-key', (body): body is PushPublicKey => isObject(body) && isString(body.publicKey) && body.publicKey !== ''),
    savePushSubscription: (subscription) => call('/me/push-subscriptions', isNoContent, { method: 'POST', body: subscription }),
    deletePushSubscription: (endpoint) => call('/me/push-subscriptions', isNoContent, { method: 'DELETE', body: { endpoint } }),
  };
}

/** What a traveller's link opened (GET /traveller/esim), as their page tells it. */
export type TravellerEsimOutcome = { status: 'found'; esim: TravellerEsim } | { status: 'notFound' } | { status: 'failed' };

/**
 * A traveller's eSIM by the token of their private link (issue 33): no sign-in, so none of the
 * signed-in client and its Firebase code. The token goes in a header, never in the URL.
 * baseUrl: API_BASE_URL, without a trailing slash.
 */
export async function getTravellerEsim(
  baseUrl: string,
  token: string,
  lang: Locale,
  fetchImpl: typeof fetch = fetch,
): Promise<TravellerEsimOutcome> {
  try {
    const response = await fetchImpl(`${baseUrl}/traveller/esim?lang=${lang}`, { headers: { [TRAVELLER_TOKEN_HEADER]: token } });
    if (response.status === 404) return { status: 'notFound' };
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok && isTravellerEsim(body)) return { status: 'found', esim: body };
  } catch {
    // The network failed: the page offers to try again.
  }
  return { status: 'failed' };
}

const isTravellerEsim = (value: unknown): value is TravellerEsim =>
  isObject(value) &&
  isString(value.travellerName) &&
  isEsimView({ ...value, orderNumber: '', refundable: false, topUpSupported: false, traveller: null });

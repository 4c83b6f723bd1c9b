import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { buildEsimGoCatalogue, networksOf, type StandInBundle } from './catalogue.ts';
import { listenLocally, parseJson, postNotification, readBody, setReachable } from '../http-parts.ts';
import { createEsimGoStore, EsimGoRefusal, type CallbackBody, type ProfileStatus } from './esims.ts';

/**
 * A local stand-in for eSIM Go's API v2.5 (dev and tests only; nothing under src/ imports it). It
 * checks what eSIM Go checks (the X-API-Key, 10 requests a second per client address in fixed
 * windows with its X-RateLimit-* headers, the request bodies) and answers with its shapes and its
 * error answer `{ message }`. README.md says what it follows and where it assumes.
 */

export interface EsimGoStandInOptions {
  apiKey: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Per client address per fixed window; over it HTTP 429 with Retry-After (guides/rate_limits: 10 a second). */
  rateLimit?: { requests: number; perMs: number };
  bundles?: StandInBundle[];
  /** The organisation's prepaid balance, in its currency (default 10,000). */
  balance?: number;
  /** The organisation's currency (default USD). */
  currency?: string;
  smdpAddress?: string;
  /** How long a new order's install details answer 503 'Processing' (default 0: at once). */
  processingMs?: number;
  /** Where callbacks go (the portal's Callback URL); none: only recorded. */
  callbackUrl?: string;
  /** The X-Signature-SHA256 digest: base64 as the API reference's example, or hex as the webhooks guide's. */
  signatureEncoding?: 'base64' | 'hex';
}

/** A failure the next matching requests get instead of their answer. */
export type InjectedFailure =
  | { status: number; message?: string; retryAfterSeconds?: number }
  | { drop: true }
  /** No answer at all, until the client gives up (or the stand-in closes). */
  | { hang: true }
  /** The request is carried out, then the connection drops: the caller cannot know it was applied. */
  | { lostAnswer: true };

/** The failures tests switch on most, for `failNext`. */
export const FAILURES = {
  serverError: { status: 500, message: 'Internal Server Error' },
  timeout: { hang: true },
  lostAnswer: { lostAnswer: true },
  rateLimited: { status: 429, message: 'Rate limit exceeded', retryAfterSeconds: 1 },
  processing: { status: 503, message: 'Processing - Please come back later', retryAfterSeconds: 1 },
} as const satisfies Record<string, InjectedFailure>;

export interface RecordedRequest {
  /** The operation: method and eSIM Go's path template ('GET /esims/{iccid}'); the raw path when no route matched. */
  call: string;
  path: string;
  query: Record<string, string | string[]>;
  /** When it arrived, by the stand-in's clock (ms since the epoch). */
  receivedAt: number;
  /** 0 for a dropped or unanswered request. */
  status: number;
  /** The error answer's message, null for a success. */
  message: string | null;
  body: unknown;
  clientAddress: string;
}

export interface SentCallback {
  /** The raw body, as signed. */
  body: string;
  /** X-Signature-SHA256. */
  signature: string;
  /** The callback URL's HTTP status; 0 if it could not be reached; null while sending or with no URL. */
  status: number | null;
}

export interface EsimGoStandIn {
  /** The base URL to configure as ESIM_GO_BASE_URL (with its /v2.5). */
  url: string;
  port: number;
  apiKey: string;
  bundles: readonly StandInBundle[];
  /** The partner changes a bundle's price (USD). */
  setPrice(name: string, usd: number): void;
  /** Every request so far, oldest first. */
  requests: readonly RecordedRequest[];
  /**
   * The next `count` requests (to `call`, 'POST /orders', if given; whose JSON body and query `where` accepts,
   * if given: a transaction rather than its validate) fail this way.
   */
  failNext(
    failure: InjectedFailure,
    options?: { count?: number; call?: string; where?: (body: unknown, query: URLSearchParams) => boolean },
  ): void;
  /** The failures still queued (for `call`, if given) are dropped. */
  recover(call?: string): void;
  /** Every callback so far, oldest first, sent or not. */
  callbacks: readonly SentCallback[];
  setCallbackUrl(url: string | undefined): void;
  setSignatureEncoding(encoding: 'base64' | 'hex'): void;
  /** eSIM Go down (false): every connection refused until it is reachable again (true). */
  setReachable(reachable: boolean): Promise<void>;
  /** The traveller's phone: downloads (Downloaded), installs (Installed), deletes (Released) the eSIM. */
  installEsim(iccid: string, stage?: ProfileStatus): void;
  /** The phone uses this much data (bytes): the bundle starts at first use, FirstUse and Utilisation callbacks. */
  useData(iccid: string, bytes: number): void;
  /** The started bundles' validity ends now. */
  expire(iccid: string): void;
  /** eSIM Go suspends the eSIM for a policy breach: the API cannot unsuspend it. */
  policySuspend(iccid: string): void;
  /** The organisation's balance (its currency). */
  readonly balance: number;
  setBalance(amount: number): void;
  /** Refunds to the balance enabled (eSIM Go: 'disabled by default', by the account manager); on here by default. */
  setRefundsEnabled(enabled: boolean): void;
  /** One eSIM's state as the stand-in keeps it (customerRef, profileStatus, assignments), undefined if never issued. */
  esim(iccid: string): { customerRef: string; profileStatus: ProfileStatus; inAccount: boolean; state: string } | undefined;
  /** The eSIM whose customerRef is this transactionId, for tests in another process. */
  iccidOfTransaction(transactionId: string): string | undefined;
  /** Every order placed (transactions), oldest first. */
  ordersPlaced(): { orderReference: string; iccids: string[]; total: number; placedAt: Date }[];
  readonly esimCount: number;
  readonly orderCount: number;
  close(): Promise<void>;
}

const PREFIX = '/v2.5';

type Handler = (input: {
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  json: boolean;
  clientAddress: string;
}) => unknown;
type Route = { call: string; method: string; pattern: RegExp; handle: Handler };

/** A route from eSIM Go's path template: each {param} one path segment. */
function route(call: string, handle: Handler): Route {
  const [method, template] = call.split(' ') as [string, string];
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
  return { call, method, pattern, handle };
}

export async function startEsimGoStandIn(options: EsimGoStandInOptions): Promise<EsimGoStandIn> {
  const bundles = options.bundles ?? buildEsimGoCatalogue();
  const rateLimit = options.rateLimit ?? { requests: 10, perMs: 1000 };
  const requests: RecordedRequest[] = [];
  const failures: {
    failure: InjectedFailure;
    call: string | undefined;
    where?: ((body: unknown, query: URLSearchParams) => boolean) | undefined;
  }[] = [];
  const windows = new Map<string, { start: number; count: number }>();
  const callbacks: SentCallback[] = [];
  let callbackUrl = options.callbackUrl;
  let encoding = options.signatureEncoding ?? 'base64';

  // One eSIM's callbacks go one after another, each once the one before was answered (or gave up):
  // its events happen in order. One attempt each: the docs promise no redelivery.
  const queues = new Map<string, Promise<void>>();
  function notify(body: CallbackBody, iccid: string) {
    const raw = JSON.stringify(body);
    const sent: SentCallback = { body: raw, signature: createHmac('sha256', options.apiKey).update(raw).digest(encoding), status: null };
    callbacks.push(sent);
    const url = callbackUrl;
    if (!url) return;
    const next = (queues.get(iccid) ?? Promise.resolve()).then(() =>
      postNotification(url, raw, { 'X-Signature-SHA256': sent.signature }, sent),
    );
    queues.set(iccid, next);
    void next.then(() => {
      if (queues.get(iccid) === next) queues.delete(iccid);
    });
  }

  const store = createEsimGoStore({
    bundles,
    smdpAddress: options.smdpAddress ?? 'rsp.esim-go.stand-in.invalid',
    balanceUsd: options.balance ?? 10_000,
    processingMs: options.processingMs ?? 0,
    notify,
  });
  const served = (b: StandInBundle) => {
    const { provider: _, ...bundle } = b;
    return bundle;
  };
  const routes = createRoutes(store, bundles, served, options.currency ?? 'USD');

  const server = createServer(async (req, res) => {
    const receivedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const text = await readBody(req);
    const clientAddress = req.socket.remoteAddress ?? 'unknown';
    if (url.pathname.startsWith('/_stand-in/') && req.method === 'POST')
      return void control(url.pathname.slice('/_stand-in/'.length), parseJson(text), res);

    const path = url.pathname.startsWith(`${PREFIX}/`) ? url.pathname.slice(PREFIX.length) : url.pathname;
    const matched = routes.find((r) => r.method === req.method && r.pattern.test(path));
    const call = matched?.call ?? `${req.method} ${url.pathname}`;
    const record = (status: number, message: string | null) =>
      requests.push({
        call,
        path: url.pathname,
        query: queryOf(url.searchParams),
        receivedAt,
        status,
        message,
        body: parseJson(text) ?? text,
        clientAddress,
      });
    const limits = rateLimited(clientAddress, receivedAt);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const message =
        status >= 400 && typeof body === 'object' && body !== null ? String((body as { message?: unknown }).message ?? '') : null;
      record(status, message);
      send(res, status, body, { ...limits.headers, ...headers });
    };

    // Counted per client address before anything else, as eSIM Go's gateway does (guides/rate_limits).
    if (limits.refused) return answer(429, { message: 'Rate limit exceeded' }, { 'Retry-After': String(limits.retryAfterSeconds) });
    if (!validKey(req.headers['x-api-key'], options.apiKey))
      return answer(401, { message: 'Unauthorized: a valid X-API-Key header is required' });

    const injected = failures.findIndex(
      (f) => (f.call === undefined || f.call === call) && (!f.where || f.where(parseJson(text), url.searchParams)),
    );
    let loseAnswer = false;
    if (injected !== -1) {
      const { failure } = failures.splice(injected, 1)[0]!;
      if ('drop' in failure) {
        record(0, null);
        return void res.socket?.destroy();
      }
      if ('hang' in failure) return void record(0, null);
      if ('status' in failure) {
        const retry = failure.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(failure.retryAfterSeconds) };
        return answer(failure.status, { message: failure.message ?? 'Error' }, retry);
      }
      loseAnswer = true;
    }
    if (!matched) return answer(404, { message: `No such endpoint: ${req.method} ${url.pathname}` });
    const parsed = text === '' ? {} : parseJson(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return answer(400, { message: 'The request body is not a JSON object' });
    try {
      const params = matched.pattern.exec(path)!.slice(1).map(decodeURIComponent);
      const json = (req.headers.accept ?? '').includes('application/json');
      const result = matched.handle({ params, query: url.searchParams, body: parsed as Record<string, unknown>, json, clientAddress });
      if (loseAnswer) {
        record(0, null);
        return void res.socket?.destroy();
      }
      if (result instanceof Answer) return answer(result.status, result.body, result.headers);
      answer(matched.call === 'POST /esims/{iccid}/suspend' ? 201 : 200, result);
    } catch (error) {
      if (error instanceof EsimGoRefusal) return answer(error.status, { message: error.message });
      answer(500, { message: error instanceof Error ? error.message : String(error) });
    }
  });

  /** The fixed window of this address (guides/rate_limits: 'a fixed window algorithm', its four headers). */
  function rateLimited(address: string, now: number) {
    const start = Math.floor(now / rateLimit.perMs) * rateLimit.perMs;
    const window = windows.get(address)?.start === start ? windows.get(address)! : { start, count: 0 };
    windows.set(address, window);
    window.count++;
    const refused = window.count > rateLimit.requests;
    const reset = start + rateLimit.perMs;
    return {
      refused,
      retryAfterSeconds: Math.max(1, Math.ceil((reset - now) / 1000)),
      headers: {
        'X-RateLimit-Limit': String(rateLimit.requests),
        'X-RateLimit-Remaining': String(Math.max(0, rateLimit.requests - window.count)),
        'X-RateLimit-Reset': new Date(reset).toISOString(),
        'X-RateLimit-Cost': '1',
      },
    };
  }

  /**
   * POST /_stand-in/install { iccid | transactionId, stage? }, /_stand-in/use-data { iccid |
   * transactionId, bytes }, /_stand-in/expire { iccid | transactionId }, /_stand-in/balance { amount },
   * /_stand-in/fail-next { failure: 'serverError' | 'timeout' | 'lostAnswer' | 'rateLimited' | 'processing', count?, call? }:
   * what a traveller's phone or an outage would do, for tests in another process. Answers once the
   * eSIM's callbacks were delivered (or gave up).
   */
  async function control(name: string, body: unknown, res: ServerResponse) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const iccid =
      typeof input['iccid'] === 'string'
        ? input['iccid']
        : typeof input['transactionId'] === 'string'
          ? iccidOfTransaction(input['transactionId'])
          : undefined;
    try {
      const stage = input['stage'] ?? 'Installed';
      if (name === 'install' && iccid && (stage === 'Downloaded' || stage === 'Installed' || stage === 'Released'))
        store.install(iccid, stage);
      else if (name === 'use-data' && iccid && typeof input['bytes'] === 'number') store.useData(iccid, input['bytes']);
      else if (name === 'expire' && iccid) store.expire(iccid);
      else if (name === 'balance' && typeof input['amount'] === 'number') store.setBalance(input['amount']);
      else if (name === 'fail-next' && typeof input['failure'] === 'string' && Object.hasOwn(FAILURES, input['failure'])) {
        const failure = FAILURES[input['failure'] as keyof typeof FAILURES];
        for (let i = 0; i < (typeof input['count'] === 'number' ? input['count'] : 1); i++)
          failures.push({ failure, call: typeof input['call'] === 'string' ? input['call'] : undefined });
      } else return send(res, 400, { error: 'unknown control or eSIM' });
    } catch (error) {
      return send(res, 409, { error: error instanceof Error ? error.message : String(error) });
    }
    if (iccid) await queues.get(iccid);
    send(res, 200, { ok: true });
  }

  function iccidOfTransaction(transactionId: string): string | undefined {
    return store.listEsims(new URLSearchParams({ filterBy: 'customerRef', filter: `eq:${transactionId}`, perPage: '10' })).esims[0]?.iccid;
  }

  const port = await listenLocally(server, options.port);
  return {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    port,
    apiKey: options.apiKey,
    bundles,
    setPrice(name, usd) {
      const bundle = bundles.find((b) => b.name === name);
      if (!bundle) throw new Error(`stand-in: no bundle ${name}`);
      bundle.price = usd;
    },
    requests,
    failNext(failure, { count = 1, call, where } = {}) {
      for (let i = 0; i < count; i++) failures.push({ failure, call, where });
    },
    recover(call) {
      for (let i = failures.length - 1; i >= 0; i--) if (call === undefined || failures[i]!.call === call) failures.splice(i, 1);
    },
    callbacks,
    setCallbackUrl(url) {
      callbackUrl = url;
    },
    setSignatureEncoding(next) {
      encoding = next;
    },
    setReachable: (reachable) => setReachable(server, port, reachable),
    installEsim: (iccid, stage = 'Installed') => store.install(iccid, stage),
    useData: store.useData,
    expire: store.expire,
    policySuspend: store.policySuspend,
    get balance() {
      return store.balance();
    },
    setBalance: store.setBalance,
    setRefundsEnabled: store.setRefundsEnabled,
    esim(iccid) {
      const esim = store.esim(iccid);
      return esim && { customerRef: esim.customerRef, profileStatus: esim.profileStatus, inAccount: esim.inAccount, state: esim.state };
    },
    iccidOfTransaction,
    ordersPlaced: store.ordersPlaced,
    get esimCount() {
      return store.esimCount;
    },
    get orderCount() {
      return store.orderCount;
    },
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A handler's answer other than 200 with its JSON (the install details' 503 and CSV). */
class Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

function createRoutes(
  store: ReturnType<typeof createEsimGoStore>,
  bundles: readonly StandInBundle[],
  served: (b: StandInBundle) => Omit<StandInBundle, 'provider'>,
  currency: string,
): Route[] {
  return [
    route('GET /catalogue', ({ query }) => catalogue(bundles, query, served)),
    route('GET /catalogue/bundle/{name}', ({ params: [name] }) => {
      const bundle = bundles.find((b) => b.name === name);
      if (!bundle) throw new EsimGoRefusal(404, `Bundle ${name} not found`);
      return served(bundle);
    }),
    route('GET /networks', ({ query }) => {
      const isos = query.get('isos');
      if (query.get('returnAll') === 'true')
        return { countryNetworks: [...new Set(bundles.flatMap((b) => b.countries.map((c) => c.iso)))].sort().map(networksOf) };
      if (!isos) throw new EsimGoRefusal(400, 'isos, countries or returnAll is required');
      return {
        countryNetworks: isos
          .split(',')
          .map((c) => c.trim().toUpperCase())
          .filter(Boolean)
          .map(networksOf),
      };
    }),
    route('GET /organisation', () => ({
      name: 'Stand-in Travel Ltd',
      taxLiable: 'No',
      country: 'GB',
      currency,
      balance: store.balance(),
      testCredit: 0,
      groups: ['Standard'],
      users: [],
    })),
    route('POST /orders', ({ body, clientAddress }) => store.order(body, clientAddress)),
    route('GET /orders', ({ query }) => store.listOrders(query)),
    route('GET /orders/{orderReference}', ({ params: [reference] }) => store.orderDetail(reference!)),
    route('GET /esims', ({ query }) => store.listEsims(query)),
    route('PUT /esims', ({ body, query }) => store.updateEsim(body, query)),
    route('GET /esims/assignments', ({ query, json }) => {
      const found = store.assignments(query.get('reference'), json);
      if (found.processing) return new Answer(503, { message: 'Processing - Please come back later' }, { 'Retry-After': '1' });
      return json ? found.body : new Answer(200, found.body, { 'Content-Type': 'text/csv' });
    }),
    route('GET /esims/{iccid}', ({ params: [iccid] }) => store.esimDetails(iccid!)),
    route('GET /esims/{iccid}/bundles', ({ params: [iccid], query }) => store.bundlesOf(iccid!, query)),
    route('GET /esims/{iccid}/bundles/{name}', ({ params: [iccid, name] }) => store.bundleStatus(iccid!, name!)),
    route('DELETE /esims/{iccid}/bundles/{name}', ({ params: [iccid, name], query }) => store.revoke(iccid!, name!, query)),
    route('GET /esims/{iccid}/compatible/{bundle}', ({ params: [iccid, name] }) => store.compatible(iccid!, name!)),
    route('POST /esims/{iccid}/suspend', ({ params: [iccid], body }) => store.suspend(iccid!, body)),
  ];
}

/**
 * Get Bundle catalogue's filters: countries ('include at least one of the countries as their base
 * country'), region (of a base country), description (a wildcard search), group (exact); page and
 * perPage. Answered `{ bundles, pageCount, rows, pageSize }`: the docs' schema is a bare array,
 * integrations read `bundles` (our choice; the adapter reads both).
 */
function catalogue(
  bundles: readonly StandInBundle[],
  query: URLSearchParams,
  served: (b: StandInBundle) => Omit<StandInBundle, 'provider'>,
) {
  const countries = (query.get('countries') ?? '')
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  const region = query.get('region')?.toLowerCase();
  const description = query.get('description')?.toLowerCase();
  const group = query.get('group');
  const listed = bundles.filter(
    (b) =>
      (countries.length === 0 || b.countries.some((c) => countries.includes(c.iso))) &&
      (!region || b.countries.some((c) => c.region.toLowerCase() === region)) &&
      (!description || b.description.toLowerCase().includes(description)) &&
      (!group || b.groups.includes(group)),
  );
  const page = Number(query.get('page') ?? 1);
  const perPage = Number(query.get('perPage') ?? 50);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1)
    throw new EsimGoRefusal(400, 'page and perPage must be whole numbers above 0');
  return {
    bundles: listed.slice((page - 1) * perPage, page * perPage).map(served),
    pageCount: Math.max(1, Math.ceil(listed.length / perPage)),
    rows: listed.length,
    pageSize: perPage,
  };
}

function validKey(header: string | string[] | undefined, apiKey: string): boolean {
  const given = Buffer.from(typeof header === 'string' ? header : '');
  const expected = Buffer.from(apiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const csv = headers['Content-Type'] === 'text/csv';
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(csv ? String(payload) : JSON.stringify(payload));
}

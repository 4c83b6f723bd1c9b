import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { buildTopUpCatalogue, buildWholesaleCatalogue, locationOf, type StandInPackage } from './catalogue.ts';
import { listenLocally, parseJson, postNotification, readBody } from '../http-parts.ts';
import { createEsimStore, PartnerRefusal, type InstallStage, type NotificationShape, type PartnerNotificationBody } from './esims.ts';

/**
 * A local stand-in for the eSIM Access open API (dev and tests only; nothing under src/ imports
 * it). It checks what the real API checks (access code, HMAC signature, timestamp, 8 requests a
 * second per account) and answers in its envelope, with its error codes.
 */

export interface StandInOptions {
  accessCode: string;
  secretKey: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Requests per account per window; over it the partner answers HTTP 429 with 900001. */
  rateLimit?: { requests: number; perMs: number };
  /** How far RT-Timestamp may be from the stand-in's clock. */
  maxClockSkewMs?: number;
  packages?: StandInPackage[];
  /** How long an order's profiles take to be allocated (esim/query answers 200010 meanwhile). */
  allocationDelayMs?: number;
  /** The fake SM-DP+ address in activation codes. */
  smdpAddress?: string;
  /** Where to POST webhook notifications (the partner's console setting); none: only recorded. */
  webhookUrl?: string;
}

/** A failure the next matching requests get instead of their answer. */
export type InjectedFailure =
  | { status: number; errorCode?: string; errorMsg?: string }
  | { errorCode: string; errorMsg: string }
  | { drop: true }
  /** No answer at all, until the client gives up (or the stand-in closes). */
  | { hang: true }
  /** The request is carried out, then the connection drops: the caller cannot know it was applied. */
  | { lostAnswer: true }
  /** The request is carried out and answered, this much later (a slow partner, not a failed one). */
  | { delayMs: number };

/** The failures tests switch on most, for `failNext`. */
export const FAILURES = {
  /** The partner's 'insufficient available profiles'. */
  outOfStock: { errorCode: '200011', errorMsg: 'Insufficient available profiles' },
  timeout: { hang: true },
  serverError: { status: 500 },
  lostAnswer: { lostAnswer: true },
} as const satisfies Record<string, InjectedFailure>;

export interface SentNotification {
  body: PartnerNotificationBody;
  /** The webhook's HTTP status; 0 if it could not be reached; null while sending or with no webhook. */
  status: number | null;
}

export interface RecordedRequest {
  /** The call, e.g. 'package/list'. */
  call: string;
  /** When it arrived, by the stand-in's clock (ms since the epoch). */
  receivedAt: number;
  status: number;
  /** The errorCode answered, null for a success or a dropped connection. */
  errorCode: string | null;
  body: unknown;
}

export interface EsimAccessStandIn {
  /** The base URL to configure as ESIM_ACCESS_BASE_URL. */
  url: string;
  port: number;
  /** The base packages (package/list type BASE), with their supportTopUpType. */
  packages: readonly StandInPackage[];
  /** Every top-up package (package/list type TOPUP lists those of one eSIM or base package). */
  topUpPackages: readonly StandInPackage[];
  /** The top-ups an eSIM of this base package can take (none if it cannot be topped up). */
  topUpsOf(packageCode: string): readonly StandInPackage[];
  /** The partner changes a package's price (USD × 10,000), a base or a top-up package. */
  setPrice(packageCode: string, usdE4: number): void;
  /** Every request so far, oldest first. */
  requests: readonly RecordedRequest[];
  /** The next `count` requests (to `call`, if given) fail this way. */
  failNext(failure: InjectedFailure, options?: { count?: number; call?: string }): void;
  /** The partner works again: the failures still queued (for `call`, if given) are dropped. */
  recover(call?: string): void;
  /** Every webhook notification so far, oldest first, sent or not. */
  notifications: readonly SentNotification[];
  /** Where notifications go (the console's setting, or webhook/save); sends nothing (no CHECK_HEALTH). */
  setWebhookUrl(url: string | undefined): void;
  /** The webhook URL set now, if any. */
  readonly webhookUrl: string | undefined;
  /**
   * The traveller's phone takes the eSIM to `stage`: DOWNLOAD, INSTALLATION, ENABLED (an
   * SMDP_EVENT each, still GOT_RESOURCE: no longer cancellable from DOWNLOAD on), IN_USE on first
   * use (an SMDP_EVENT and an ESIM_STATUS). Steps already passed change nothing. DELETED: the
   * traveller deletes it from the phone (an SMDP_EVENT; from DOWNLOAD on; no step after it).
   */
  installTo(esimTranNo: string, stage: InstallStage): void;
  /** The traveller installs the eSIM and uses it: every step of installTo up to IN_USE, at once. */
  markInstalled(esimTranNo: string): void;
  /** The partner measures this much data used (DATA_USAGE; an eSIM not in use yet is put in use first). */
  setUsage(esimTranNo: string, usedBytes: number): void;
  /**
   * The eSIM's validity ends in a day (as if the days had passed): VALIDITY_USAGE in today's shape,
   * or the older one without esimTranNo and notifyId. Only for an eSIM whose validity started.
   */
  sendValidityUsage(esimTranNo: string, shape?: NotificationShape): void;
  /** Sends CHECK_HEALTH to the webhook now; answers its HTTP status (0: no answer; null: no webhook). */
  sendCheckHealth(): Promise<number | null>;
  /** The allocated eSIM with this ICCID (what the buyer's page shows). */
  esimTranNoOf(iccid: string): string | undefined;
  /** The eSIM ordered with this transactionId (the shop's order id). */
  tranNoOfTransaction(transactionId: string): string | undefined;
  /** The account's prepaid balance, USD × 10,000 (orders above it are refused with 200007). */
  setBalance(usdE4: number): void;
  /** What a repeated esim/order transactionId answers: the same orderNo, or a refusal. */
  setRepeatedOrderAnswer(answer: 'same' | 'refuse'): void;
  /** Top-ups applied with this transactionId: more than one is a top-up bought twice. */
  topUpsApplied(transactionId: string): number;
  /** eSIMs handed out so far. */
  readonly esimCount: number;
  close(): Promise<void>;
}

const PREFIX = '/api/v1/open/';
/** The partner's documented error codes that the stand-in answers. */
const ERROR = {
  serverError: ['000001', 'Server error'],
  missingHeader: ['000101', 'Missing mandatory header'],
  badHeader: ['000102', 'Wrong header format'],
  badMethod: ['000103', 'Unsupported HTTP method'],
  badJson: ['000104', 'Invalid JSON'],
  timestampExpired: ['101001', 'Timestamp expired'],
  signatureMismatch: ['101003', 'Signature mismatch'],
  busy: ['900001', 'System busy'],
} as const;

const HEADERS = ['rt-accesscode', 'rt-requestid', 'rt-timestamp', 'rt-signature'] as const;
/** eSIMs per esim/usage/query call, at most (docs.esimaccess.com, Usage Check). */
const USAGE_QUERY_MAX = 10;

export async function startEsimAccessStandIn(options: StandInOptions): Promise<EsimAccessStandIn> {
  const packages = options.packages ?? buildWholesaleCatalogue();
  const topUpsByLocation = buildTopUpCatalogue(packages);
  const topUpsOf = (pkg: StandInPackage | undefined) => (pkg ? (topUpsByLocation.get(locationOf(pkg)) ?? []) : []);
  const rateLimit = options.rateLimit ?? { requests: 8, perMs: 1000 };
  const maxClockSkewMs = options.maxClockSkewMs ?? 5 * 60_000;
  const requests: RecordedRequest[] = [];
  const failures: { failure: InjectedFailure; call: string | undefined }[] = [];
  const accepted = new Map<string, number[]>();
  const notifications: SentNotification[] = [];
  let webhookUrl = options.webhookUrl;

  // One attempt per notification, like a partner that does not promise redelivery: the shop
  // must not depend on them (it queries as a fallback).
  function deliver(url: string, sent: SentNotification): Promise<void> {
    return postNotification(url, JSON.stringify(sent.body), {}, sent);
  }
  // One eSIM's notifications go one after another, each once the webhook answered the one before
  // (or it gave up), in the order its SM-DP+ steps happened; the docs promise no order, but a
  // partner sending an eSIM's events as they occur is the likely case. Others' go at once. Each
  // goes to the URL set when it happened.
  const queues = new Map<string, Promise<void>>();
  function notify(body: PartnerNotificationBody, esimTranNo?: string) {
    const sent: SentNotification = { body, status: null };
    notifications.push(sent);
    const url = webhookUrl;
    if (!url) return;
    if (!esimTranNo) return void deliver(url, sent);
    const next = (queues.get(esimTranNo) ?? Promise.resolve()).then(() => deliver(url, sent));
    queues.set(esimTranNo, next);
    void next.then(() => {
      if (queues.get(esimTranNo) === next) queues.delete(esimTranNo);
    });
  }
  // CHECK_HEALTH (docs, Webhooks, Endpoint Setup: the test send on adding a webhook; its 2026 sample
  // has a notifyId and eventGenerateTime, the content is always orderNo '1234567890', orderStatus 'Test').
  async function checkHealth(url = webhookUrl): Promise<number | null> {
    const body: PartnerNotificationBody = {
      notifyType: 'CHECK_HEALTH',
      notifyId: randomUUID().replaceAll('-', ''),
      eventGenerateTime: `${new Date().toISOString().slice(0, 19)}+0000`,
      content: { orderNo: '1234567890', orderStatus: 'Test' },
    };
    const sent: SentNotification = { body, status: null };
    notifications.push(sent);
    if (!url) return null;
    await deliver(url, sent);
    return sent.status;
  }
  const store = createEsimStore({
    packages,
    topUpsOf,
    allocationDelayMs: options.allocationDelayMs ?? 1_000,
    smdpAddress: options.smdpAddress ?? 'smdp.esim-access.stand-in.invalid',
    notify,
  });

  const routes: Record<string, (body: Record<string, unknown>) => unknown> = {
    'package/list': (body) => ({
      packageList:
        body['type'] === 'TOPUP'
          ? // Top-ups of one eSIM (its iccid) or of one base package (packageCode): docs, package/list.
            topUpsOf(
              typeof body['iccid'] === 'string' && body['iccid']
                ? store.packageOfIccid(body['iccid'])
                : packages.find((p) => p.packageCode === body['packageCode']),
            )
          : listPackages(packages, body),
    }),
    ...store.routes,
    'esim/usage/query': (body) => {
      // "Usage Check" (docs.esimaccess.com, esim/usage/query) takes up to 10 esimTranNo a call. The
      // docs name no code for more: the stand-in answers 000105 (documented as 'Mandatory params
      // missing'; our guess at the partner's answer, in its envelope).
      const list = body['esimTranNoList'];
      if (Array.isArray(list) && list.length > USAGE_QUERY_MAX) {
        throw new PartnerRefusal('000105', `esimTranNoList takes at most ${USAGE_QUERY_MAX} eSIMs, not ${list.length}`);
      }
      return store.routes['esim/usage/query']!(body);
    },
    // Set Webhook (docs: webhook/save {webhook}, answered with obj {}): 'Adding your webhook the first
    // time will trigger a test webhook send ... CHECK_HEALTH ... If our test send fails, your endpoint
    // cannot be saved.' The docs name no error code for that, nor say whether a later change is
    // tested again: the stand-in tests every save and refuses with 000001 (our guess). webhook/query
    // is documented without an answer: not served.
    'webhook/save': async (body) => {
      const url = body['webhook'];
      if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)) throw new PartnerRefusal('000105', 'Mandatory params missing');
      const status = await checkHealth(url);
      if (status === null || status < 200 || status >= 300) {
        throw new PartnerRefusal(
          '000001',
          `The test send (CHECK_HEALTH) to the webhook failed: ${status ? `HTTP ${status}` : 'no answer'}`,
        );
      }
      webhookUrl = url;
      return {};
    },
  };

  const server = createServer(async (req, res) => {
    const receivedAt = Date.now();
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const call = path.startsWith(PREFIX) ? path.slice(PREFIX.length) : path;
    const text = await readBody(req);
    const record = (status: number, errorCode: string | null) =>
      requests.push({ call, receivedAt, status, errorCode, body: parseJson(text) ?? text });
    const fail = (status: number, [code, message]: readonly [string, string], detail = '') => {
      record(status, code);
      send(res, status, { success: false, errorCode: code, errorMsg: detail ? `${message}: ${detail}` : message, obj: null });
    };

    // The test's controls, for tests in another process than the stand-in (browser tests).
    if (path.startsWith('/_stand-in/') && req.method === 'POST')
      return void control(path.slice('/_stand-in/'.length), parseJson(text), res);

    const injected = failures.findIndex((f) => f.call === undefined || f.call === call);
    // Failures that still carry the request out: decided here, acted on after it was applied.
    let after: Extract<InjectedFailure, { lostAnswer: true } | { delayMs: number }> | undefined;
    if (injected !== -1) {
      const { failure } = failures.splice(injected, 1)[0]!;
      if ('lostAnswer' in failure || 'delayMs' in failure) {
        after = failure;
      } else if ('drop' in failure) {
        record(0, null);
        res.socket?.destroy();
      } else if ('hang' in failure) {
        record(0, null);
      } else if ('status' in failure) {
        fail(failure.status, [failure.errorCode ?? ERROR.serverError[0], failure.errorMsg ?? ERROR.serverError[1]]);
      } else {
        fail(200, [failure.errorCode, failure.errorMsg]);
      }
      if (!after) return;
    }
    if (after && 'delayMs' in after) await new Promise((resolve) => setTimeout(resolve, after.delayMs));

    const route = path.startsWith(PREFIX) ? routes[call] : undefined;
    if (!route) {
      record(404, '404');
      send(res, 404, { success: false, errorCode: '404', errorMsg: `No such call: ${path}`, obj: null });
      return;
    }
    if (req.method !== 'POST') return fail(200, ERROR.badMethod, req.method ?? '');

    const missing = HEADERS.filter((name) => !req.headers[name]);
    if (missing.length > 0) return fail(200, ERROR.missingHeader, missing.join(', '));
    const header = (name: (typeof HEADERS)[number]) => String(req.headers[name]);
    const accessCode = header('rt-accesscode');

    // Counted per access code before anything else is checked, as a gateway would.
    const recent = (accepted.get(accessCode) ?? []).filter((t) => receivedAt - t < rateLimit.perMs);
    accepted.set(accessCode, recent);
    if (recent.length >= rateLimit.requests) {
      return fail(429, ERROR.busy, `more than ${rateLimit.requests} requests in ${rateLimit.perMs} ms`);
    }
    recent.push(receivedAt);

    const timestamp = header('rt-timestamp');
    if (!/^\d{13}$/.test(timestamp)) return fail(200, ERROR.badHeader, 'RT-Timestamp must be milliseconds');
    if (Math.abs(receivedAt - Number(timestamp)) > maxClockSkewMs) return fail(200, ERROR.timestampExpired);
    const expected = createHmac('sha256', options.secretKey)
      .update(timestamp + header('rt-requestid') + options.accessCode + text)
      .digest();
    const given = Buffer.from(header('rt-signature'), 'hex');
    if (accessCode !== options.accessCode || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return fail(200, ERROR.signatureMismatch);
    }

    const body = parseJson(text);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(200, ERROR.badJson);
    let obj: unknown;
    try {
      obj = await route(body as Record<string, unknown>);
    } catch (error) {
      if (error instanceof PartnerRefusal) return fail(200, [error.code, error.message]);
      return fail(500, ERROR.serverError, error instanceof Error ? error.message : String(error));
    }
    if (after && 'lostAnswer' in after) {
      record(0, null);
      res.socket?.destroy();
      return;
    }
    record(200, null);
    send(res, 200, { success: true, errorCode: null, errorMsg: null, obj });
  });

  /**
   * POST /_stand-in/install {iccid | transactionId, stage?}, /_stand-in/usage {iccid | transactionId, usedBytes},
   * /_stand-in/validity {iccid | transactionId, shape?: 'current' | 'older'}, /_stand-in/check-health,
   * /_stand-in/fail-next {failure: 'outOfStock' | 'timeout' | 'serverError', count?, call?}: what a
   * traveller's phone or a partner outage would do, for browser tests. It answers once the eSIM's
   * notifications have reached the webhook (or given up), so a test reads the shop after them.
   */
  async function control(name: string, body: unknown, res: ServerResponse) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const esimTranNo =
      typeof input['iccid'] === 'string'
        ? store.tranNoOfIccid(input['iccid'])
        : typeof input['transactionId'] === 'string'
          ? store.tranNoOfTransaction(input['transactionId'])
          : undefined;
    try {
      const stage = input['stage'] ?? 'IN_USE';
      const stages: unknown[] = ['DOWNLOAD', 'INSTALLATION', 'ENABLED', 'IN_USE', 'DELETED'];
      if (name === 'install' && esimTranNo && stages.includes(stage)) store.installTo(esimTranNo, stage as InstallStage);
      else if (name === 'validity' && esimTranNo) store.sendValidityUsage(esimTranNo, input['shape'] === 'older' ? 'older' : 'current');
      else if (name === 'check-health') void checkHealth();
      else if (name === 'usage' && esimTranNo && typeof input['usedBytes'] === 'number') store.setUsage(esimTranNo, input['usedBytes']);
      else if (name === 'balance' && typeof input['balance'] === 'number') store.setBalance(input['balance']);
      else if (name === 'fail-next' && typeof input['failure'] === 'string' && Object.hasOwn(FAILURES, input['failure'])) {
        const count = typeof input['count'] === 'number' ? input['count'] : 1;
        for (let i = 0; i < count; i++)
          failures.push({
            failure: FAILURES[input['failure'] as keyof typeof FAILURES],
            call: typeof input['call'] === 'string' ? input['call'] : undefined,
          });
      } else return send(res, 400, { error: 'unknown control or eSIM' });
    } catch (error) {
      return send(res, 409, { error: error instanceof Error ? error.message : String(error) });
    }
    if (esimTranNo) await queues.get(esimTranNo);
    return send(res, 200, { ok: true });
  }

  const port = await listenLocally(server, options.port);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    packages,
    topUpPackages: [...topUpsByLocation.values()].flat(),
    topUpsOf: (packageCode) => topUpsOf(packages.find((p) => p.packageCode === packageCode)),
    setPrice(packageCode, usdE4) {
      const pkg = [...packages, ...[...topUpsByLocation.values()].flat()].find((p) => p.packageCode === packageCode);
      if (!pkg) throw new Error(`stand-in: no package ${packageCode}`);
      pkg.price = usdE4;
    },
    requests,
    failNext(failure, { count = 1, call } = {}) {
      for (let i = 0; i < count; i++) failures.push({ failure, call });
    },
    recover(call) {
      for (let i = failures.length - 1; i >= 0; i--) if (call === undefined || failures[i]!.call === call) failures.splice(i, 1);
    },
    notifications,
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    get webhookUrl() {
      return webhookUrl;
    },
    installTo: store.installTo,
    markInstalled: store.markInstalled,
    setUsage: store.setUsage,
    sendValidityUsage: store.sendValidityUsage,
    sendCheckHealth: () => checkHealth(),
    esimTranNoOf: store.tranNoOfIccid,
    tranNoOfTransaction: store.tranNoOfTransaction,
    setRepeatedOrderAnswer: store.setRepeatedOrderAnswer,
    setBalance: store.setBalance,
    topUpsApplied: store.topUpsApplied,
    get esimCount() {
      return store.esimCount;
    },
    close: () =>
      new Promise((resolve) => {
        store.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * package/list's filters for base packages (type BASE or none): locationCode (a country, '!RG'
 * regional, '!GL' global, or a location code such as 'EU-54'), packageCode, slug. (Type TOPUP lists
 * an eSIM's top-ups instead: see the route.)
 */
function listPackages(packages: readonly StandInPackage[], body: Record<string, unknown>): StandInPackage[] {
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : '');
  const location = text('locationCode');
  return packages.filter(
    (p) =>
      (location === '' ||
        (location === '!GL' && locationOf(p).startsWith('GL-')) ||
        (location === '!RG' && p.locationNetworkList.length > 1 && !locationOf(p).startsWith('GL-')) ||
        locationOf(p) === location) &&
      (text('packageCode') === '' || p.packageCode === text('packageCode')) &&
      (text('slug') === '' || p.slug === text('slug')),
  );
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}

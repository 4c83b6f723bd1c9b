import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { PartnerError, type EsimPartner, type PackageQuery, type PartnerPackage } from './partner.ts';

/**
 * The eSIM Access open API (docs.esimaccess.com) behind the partner interface. Every call is a
 * signed POST of a JSON body to `<base>/api/v1/open/<call>`, answered with the envelope
 * `{ success, errorCode, errorMsg, obj }`, mostly with HTTP 200 even when it failed.
 * Prices are US dollars × 10,000, volumes bytes. The account may make 8 requests a second: one
 * limiter per account and process holds every call to that (an account was suspended for more).
 */

const PARTNER = 'eSIM Access';
const ESIM_ACCESS_BASE_URL = 'https://api.esimaccess.com';
const ESIM_ACCESS_RATE_LIMIT = { requests: 8, perMs: 1000 } as const;

/** The partner's codes for 'server error' and 'system busy' (its answer to too many requests). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['000001', '900001']);
/** Extra spacing so that network jitter cannot squeeze 9 requests into the partner's second. */
const RATE_MARGIN_MS = 25;

export interface EsimAccessConfig {
  accessCode: string;
  secretKey: string;
  /** Scheme and host without the /api/v1/open path; the stand-in's URL in dev and tests. */
  baseUrl: string;
  /** Retries after the first attempt, for network errors, HTTP 429 and 5xx, and busy answers. */
  retries?: number;
  /** First backoff; it doubles with each retry (with jitter), up to 5 s. */
  backoffMs?: number;
  timeoutMs?: number;
}

/** The configuration from ESIM_ACCESS_CODE, ESIM_ACCESS_SECRET and ESIM_ACCESS_BASE_URL. */
export function esimAccessConfigFromEnv(env: Record<string, string | undefined> = process.env): EsimAccessConfig {
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is not set: the eSIM Access adapter needs it`);
    return value;
  };
  return {
    accessCode: required('ESIM_ACCESS_CODE'),
    secretKey: required('ESIM_ACCESS_SECRET'),
    baseUrl: env['ESIM_ACCESS_BASE_URL']?.trim() || ESIM_ACCESS_BASE_URL,
  };
}

/** RT-Signature: lower-case hex HMAC-SHA256 of timestamp + request id + access code + body, keyed with the secret. */
export function signEsimAccessRequest(
  parts: { timestamp: string; requestId: string; accessCode: string; body: string },
  secretKey: string,
): string {
  return createHmac('sha256', secretKey)
    .update(parts.timestamp + parts.requestId + parts.accessCode + parts.body)
    .digest('hex');
}

export function createEsimAccessPartner(config: EsimAccessConfig): EsimPartner {
  const call = createCaller(config);
  return {
    name: PARTNER,
    async listPackages(query: PackageQuery = {}) {
      const body: Record<string, string> = { type: 'BASE' };
      if (query.location) body['locationCode'] = query.location;
      if (query.packageCode) body['packageCode'] = query.packageCode;
      return call('package/list', body, (obj) =>
        // Daily plans (a volume per day) have no place in our catalogue of fixed-data plans.
        PackageListObj.parse(obj).packageList.filter((raw) => raw.dataType === FIXED_DATA).map(mapEsimAccessPackage),
      );
    },
  };
}

const FIXED_DATA = 1;

const RawPackage = z.looseObject({
  packageCode: z.string().min(1),
  slug: z.string(),
  name: z.string(),
  price: z.number().int().nonnegative(),
  currencyCode: z.string(),
  volume: z.number().int().positive(),
  dataType: z.number().int().default(FIXED_DATA),
  duration: z.number().int().positive(),
  durationUnit: z.string(),
  location: z.string().default(''),
  locationNetworkList: z.array(z.looseObject({ locationCode: z.string() })).default([]),
});
export type EsimAccessPackage = z.input<typeof RawPackage>;
const PackageListObj = z.object({ packageList: z.array(RawPackage) });

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const DURATION_UNITS: Record<string, PartnerPackage['validityUnit']> = { DAY: 'day', WEEK: 'week', MONTH: 'month' };

/** The partner's package in our terms: volume from bytes to MB/GB (binary, as the partner sells them). */
export function mapEsimAccessPackage(input: EsimAccessPackage): PartnerPackage {
  const raw = RawPackage.parse(input);
  const validityUnit = DURATION_UNITS[raw.durationUnit.toUpperCase()];
  if (!validityUnit) throw new Error(`${PARTNER} package ${raw.packageCode}: unknown durationUnit '${raw.durationUnit}'`);
  if (raw.currencyCode !== 'USD') throw new Error(`${PARTNER} package ${raw.packageCode}: price in ${raw.currencyCode}, not USD`);
  const listed = raw.locationNetworkList.map((l) => l.locationCode);
  const codes = listed.length > 0 ? listed : raw.location.split(',');
  return {
    partnerCode: raw.packageCode,
    slug: raw.slug,
    name: raw.name,
    countries: [...new Set(codes.map((c) => c.trim().toUpperCase()).filter(Boolean))].sort(),
    dataAmount:
      raw.volume >= GIB
        ? { value: Math.round((raw.volume / GIB) * 100) / 100, unit: 'GB' }
        : { value: Math.round(raw.volume / MIB), unit: 'MB' },
    dataBytes: raw.volume,
    validity: raw.duration,
    validityUnit,
    wholesaleUsdE4: raw.price,
  };
}

const Envelope = z.object({
  success: z.union([z.boolean(), z.literal('true'), z.literal('false')]),
  errorCode: z.union([z.string(), z.number()]).nullish(),
  errorMsg: z.string().nullish(),
  errorMessage: z.string().nullish(),
  obj: z.unknown(),
});

type Failure = { code?: string; reason: string; retryable: boolean; cause?: unknown };

function createCaller(config: EsimAccessConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const retries = config.retries ?? 3;
  const backoffMs = config.backoffMs ?? 250;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const waitForTurn = accountLimiter(`${base}\n${config.accessCode}`);

  async function attempt<T>(
    name: string,
    body: string,
    read: (obj: unknown) => T,
  ): Promise<{ ok: true; value: T } | ({ ok: false } & Failure)> {
    await waitForTurn();
    const timestamp = String(Date.now());
    const requestId = randomUUID().replaceAll('-', '');
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}/api/v1/open/${name}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'RT-AccessCode': config.accessCode,
          'RT-RequestID': requestId,
          'RT-Timestamp': timestamp,
          'RT-Signature': signEsimAccessRequest({ timestamp, requestId, accessCode: config.accessCode, body }, config.secretKey),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { ok: false, reason: `no answer (${describe(error)})`, retryable: true, cause: error };
    }
    const envelope = Envelope.safeParse(safeJson(text));
    const code = envelope.success && envelope.data.errorCode != null ? String(envelope.data.errorCode) : undefined;
    const message = envelope.success ? (envelope.data.errorMsg ?? envelope.data.errorMessage ?? '') : '';
    const http = `HTTP ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      return { ok: false, code: code ?? http, reason: code ? `${http} ${code} ${message}`.trim() : http, retryable: true };
    }
    if (!envelope.success) {
      return { ok: false, code: http, reason: `${http}, not the partner's envelope: ${text.slice(0, 120)}`, retryable: false };
    }
    if (envelope.data.success !== true && envelope.data.success !== 'true') {
      const retryable = code !== undefined && RETRYABLE_CODES.has(code);
      return { ok: false, code: code ?? http, reason: `${code ?? http} ${message}`.trim(), retryable };
    }
    try {
      return { ok: true, value: read(envelope.data.obj) };
    } catch (error) {
      const reason = error instanceof z.ZodError ? z.prettifyError(error) : describe(error);
      return { ok: false, reason: `unexpected answer: ${reason}`, retryable: false, cause: error };
    }
  }

  /** Calls `name`, retrying what may pass on a second try; `read` turns the answer's obj into ours or throws. */
  return async function call<T>(name: string, payload: object, read: (obj: unknown) => T): Promise<T> {
    const body = JSON.stringify(payload);
    for (let attempts = 1; ; attempts++) {
      const result = await attempt(name, body, read);
      if (result.ok) return result.value;
      if (!result.retryable || attempts > retries) {
        throw new PartnerError(
          { partner: PARTNER, call: name, code: result.code, retryable: result.retryable, attempts, reason: result.reason },
          { cause: result.cause },
        );
      }
      await sleep(Math.min(5_000, backoffMs * 2 ** (attempts - 1)) * (0.5 + Math.random() / 2));
    }
  };
}

/** One sliding-window limiter per account in this process, shared by every adapter made for it. */
const limiters = new Map<string, () => Promise<void>>();

function accountLimiter(account: string): () => Promise<void> {
  let limiter = limiters.get(account);
  if (!limiter) {
    limiter = slidingWindow(ESIM_ACCESS_RATE_LIMIT.requests, ESIM_ACCESS_RATE_LIMIT.perMs + RATE_MARGIN_MS);
    limiters.set(account, limiter);
  }
  return limiter;
}

/** Resolves when a request may start: at most `limit` starts in any `windowMs`, in call order. */
function slidingWindow(limit: number, windowMs: number): () => Promise<void> {
  const starts: number[] = [];
  let queue = Promise.resolve();
  return () => {
    const turn = queue.then(async () => {
      for (;;) {
        const oldest = starts.length >= limit ? starts[starts.length - limit]! : -Infinity;
        const wait = oldest + windowMs - performance.now();
        if (wait <= 0) break;
        await sleep(wait);
      }
      starts.push(performance.now());
      if (starts.length > limit) starts.shift();
    });
    queue = turn;
    return turn;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

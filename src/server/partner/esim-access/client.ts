import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { PartnerError } from '../partner.ts';
import type { PartnerErrorKind } from '../partner.types.ts';
import { createRateLimiter } from '../../../lib/rate-limiter.ts';
import { ESIM_ACCESS_BUDGET } from '../partner-budget.ts';
import type { PartnerBudget, PartnerPriority } from '../partner-budget.types.ts';
import { PARTNER, type EsimAccessConfig } from './config.ts';

/**
 * The eSIM Access open API's transport (docs.esimaccess.com): every call is a signed POST of a JSON
 * body to `<base>/api/v1/open/<call>`, answered with the envelope `{ success, errorCode, errorMsg, obj }`,
 * mostly with HTTP 200 even when it failed. The account may make 8 requests a second (an account was
 * suspended for more): every call takes a turn in the account's budget first, the shop's in
 * PostgreSQL shared by every instance (`config.budget`), else one per account and process.
 */

/** The partner's codes for 'server error' and 'system busy' (its answer to too many requests). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['000001', '900001']);
/** 'Profile not yet allocated': esim/query's answer while an order is being prepared (up to ~30 s). */
export const NOT_ALLOCATED = '200010';
/** The partner's documented codes (docs.esimaccess.com, error codes) that the shop acts on. */
const KIND_BY_CODE: Readonly<Record<string, PartnerErrorKind>> = {
  '200002': 'not_allowed', // operation not allowed due to order status
  '200005': 'price_changed', // package price error: the partner's price is not the one we sent
  '200006': 'price_changed', // wrong total amount
  '200007': 'insufficient_balance',
  '200009': 'not_allowed', // abnormal order status
  [NOT_ALLOCATED]: 'not_allocated',
  '200011': 'out_of_stock', // insufficient available profiles
  '310241': 'not_found', // packageCode does not exist
  '310243': 'not_found', // package does not exist
  '310272': 'not_found', // orderNo does not exist
  '310403': 'not_found', // ICCID not in the order
};
/**
 * How urgent each call is in the budget (partner-budget.ts): deliveries first, then refunds and
 * top-ups, then usage reads. esim/query is a delivery when it reads an order's profiles or looks
 * an order up by its transactionId. The balance (once a minute while sales are paused) decides
 * when selling starts again: above usage reads. Suspending, unsuspending and revoking an eSIM are
 * writes an operator waits for: with refunds. Reads on an operator's request pass 'operator'.
 */
const PRIORITY_BY_CALL: Readonly<Record<string, PartnerPriority>> = {
  'esim/order': 'delivery',
  'esim/query': 'refund',
  'esim/cancel': 'refund',
  'esim/suspend': 'refund',
  'esim/unsuspend': 'refund',
  'esim/revoke': 'refund',
  'esim/topup': 'refund',
  'balance/query': 'refund',
  'esim/usage/query': 'usage',
  'package/list': 'usage',
};

/** RT-Signature: lower-case hex HMAC-SHA256 of timestamp + request id + access code + body, keyed with the secret. */
export function signEsimAccessRequest(
  parts: { timestamp: string; requestId: string; accessCode: string; body: string },
  secretKey: string,
): string {
  return createHmac('sha256', secretKey)
    .update(parts.timestamp + parts.requestId + parts.accessCode + parts.body)
    .digest('hex');
}

/** A failure inside an answer's reader that means 'no such thing', not 'unexpected answer'. */
export class NotFound extends Error {}

const Envelope = z.object({
  success: z.union([z.boolean(), z.literal('true'), z.literal('false')]),
  errorCode: z.union([z.string(), z.number()]).nullish(),
  errorMsg: z.string().nullish(),
  errorMessage: z.string().nullish(),
  obj: z.unknown(),
});

type Failure = { code?: string; kind?: PartnerErrorKind; reason: string; retryable: boolean; cause?: unknown };

interface CallOptions {
  /** Fewer retries than configured for a call that is not safe to repeat (0: once). */
  retries?: number;
  /** The call's turn in the budget, if not the one PRIORITY_BY_CALL gives it. */
  priority?: PartnerPriority;
  /** Its caller stopped waiting: a call still waiting for its turn is not sent (PartnerReadOptions.signal). */
  signal?: AbortSignal | undefined;
}

/** Signs, sends and reads one call at a time; `call` retries what may pass on a second try. */
export function createEsimAccessClient(config: EsimAccessConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const retries = config.retries ?? 3;
  const backoffMs = config.backoffMs ?? 250;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const budget = config.budget ?? accountLimiter(`${base}\n${config.accessCode}`);

  async function attempt<T>(
    name: string,
    priority: PartnerPriority,
    body: string,
    read: (obj: unknown) => T,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; value: T } | ({ ok: false } & Failure)> {
    let done: () => void | Promise<void>;
    try {
      done = await budget.acquire(priority, signal);
    } catch (error) {
      // Nothing was sent: safe to try again, unless the caller stopped waiting.
      if (signal?.aborted)
        return { ok: false, kind: 'busy', reason: 'no turn in the request budget before the caller stopped waiting', retryable: false };
      return { ok: false, reason: `no turn in the request budget (${describe(error)})`, retryable: true, cause: error };
    }
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
    } finally {
      await done();
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
      if (error instanceof NotFound) return { ok: false, kind: 'not_found', reason: error.message, retryable: false };
      const reason = error instanceof z.ZodError ? z.prettifyError(error) : describe(error);
      return { ok: false, reason: `unexpected answer: ${reason}`, retryable: false, cause: error };
    }
  }

  /** Calls `name`, retrying what may pass on a second try; `read` turns the answer's obj into ours or throws. */
  return async function call<T>(name: string, payload: object, read: (obj: unknown) => T, options: CallOptions = {}): Promise<T> {
    const body = JSON.stringify(payload);
    const maxRetries = Math.min(retries, options.retries ?? retries);
    const priority = options.priority ?? PRIORITY_BY_CALL[name] ?? 'usage';
    for (let attempts = 1; ; attempts++) {
      const result = await attempt(name, priority, body, read, options.signal);
      if (result.ok) return result.value;
      if (!result.retryable || attempts > maxRetries) {
        const kind = result.kind ?? (result.code === undefined ? undefined : KIND_BY_CODE[result.code]);
        const details = {
          partner: PARTNER,
          call: name,
          code: result.code,
          kind,
          retryable: result.retryable,
          attempts,
          reason: result.reason,
        };
        throw new PartnerError(details, { cause: result.cause });
      }
      await sleep(Math.min(5_000, backoffMs * 2 ** (attempts - 1)) * (0.5 + Math.random() / 2));
    }
  };
}

/**
 * One limiter per account in this process, shared by every adapter made for it without a budget:
 * first come first served, priorities and callers' signals ignored (enough for the catalogue generator and unit tests,
 * the only callers of their account; the shop passes its PostgreSQL budget).
 */
const limiters = new Map<string, PartnerBudget>();

function accountLimiter(account: string): PartnerBudget {
  let limiter = limiters.get(account);
  if (!limiter) {
    // 25 ms of margin, as before: one process counts the ends of its own requests on one clock.
    limiter = createRateLimiter({ ...ESIM_ACCESS_BUDGET, marginMs: 25 });
    limiters.set(account, limiter);
  }
  return limiter;
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

import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { PartnerErrorKind } from '../partner.types.ts';
import { ESIM_ACCESS_BUDGET } from '../partner-budget.ts';
import type { PartnerPriority } from '../partner-budget.types.ts';
import { inTurn, processBudget, readAnswer, safeJson, withRetries, type PartnerAttempt } from '../partner-http.ts';
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

const Envelope = z.object({
  success: z.union([z.boolean(), z.literal('true'), z.literal('false')]),
  errorCode: z.union([z.string(), z.number()]).nullish(),
  errorMsg: z.string().nullish(),
  errorMessage: z.string().nullish(),
  obj: z.unknown(),
});

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
  // 25 ms of margin without a shared budget: one process counts the ends of its own requests on one clock.
  const budget = config.budget ?? processBudget(`${base}\n${config.accessCode}`, { ...ESIM_ACCESS_BUDGET, marginMs: 25 });

  async function attempt<T>(
    name: string,
    priority: PartnerPriority,
    body: string,
    read: (obj: unknown) => T,
    signal: AbortSignal | undefined,
  ): Promise<PartnerAttempt<T>> {
    const timestamp = String(Date.now());
    const requestId = randomUUID().replaceAll('-', '');
    const exchanged = await inTurn(budget, priority, signal, () =>
      fetch(`${base}/api/v1/open/${name}`, {
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
      }),
    );
    if (!exchanged.ok) return exchanged;
    const { response, text } = exchanged;
    const envelope = Envelope.safeParse(safeJson(text));
    const code = envelope.success && envelope.data.errorCode != null ? String(envelope.data.errorCode) : undefined;
    const message = envelope.success ? (envelope.data.errorMsg ?? envelope.data.errorMessage ?? '') : '';
    const kind = code === undefined ? undefined : KIND_BY_CODE[code];
    const http = `HTTP ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      return { ok: false, code: code ?? http, kind, reason: code ? `${http} ${code} ${message}`.trim() : http, retryable: true };
    }
    if (!envelope.success) {
      return { ok: false, code: http, reason: `${http}, not the partner's envelope: ${text.slice(0, 120)}`, retryable: false };
    }
    if (envelope.data.success !== true && envelope.data.success !== 'true') {
      const retryable = code !== undefined && RETRYABLE_CODES.has(code);
      return { ok: false, code: code ?? http, kind, reason: `${code ?? http} ${message}`.trim(), retryable };
    }
    return readAnswer(() => read(envelope.data.obj));
  }

  /** Calls `name`, retrying what may pass on a second try; `read` turns the answer's obj into ours or throws. */
  return function call<T>(name: string, payload: object, read: (obj: unknown) => T, options: CallOptions = {}): Promise<T> {
    const body = JSON.stringify(payload);
    const priority = options.priority ?? PRIORITY_BY_CALL[name] ?? 'usage';
    return withRetries({ partner: PARTNER, name, retries: Math.min(retries, options.retries ?? retries), backoffMs }, () =>
      attempt(name, priority, body, read, options.signal),
    );
  };
}

import { z } from 'zod';
import type { PartnerErrorKind } from '../partner.types.ts';
import type { PartnerPriority } from '../partner-budget.types.ts';
import { inTurn, processBudget, readAnswer, safeJson, withRetries, type PartnerAttempt, type PartnerFailure } from '../partner-http.ts';
import { ESIM_GO_BUDGET, PARTNER, type EsimGoConfig } from './config.ts';

/**
 * eSIM Go's transport (docs.esim-go.com/api/v2_5): REST over HTTPS with the organisation's key in
 * `X-API-Key`, JSON both ways (`Accept: application/json`: Get eSIM Install Details answers CSV
 * without it). Errors carry no code of their own, only the HTTP status and `{ "message": ... }`
 * (guides/rate_limits: 'All error responses use the same JSON structure'). Every request takes a
 * turn in the account's budget first (10 a second per IP, config.ts).
 *
 * PartnerError codes, from what was read:
 * - eSIM Go's own error answer (a 4xx with `{ message }`, or a 401 with any body): the bare status,
 *   '400', its only code. Not retryable and `refused`: eSIM Go said no, nothing was applied.
 * - 'HTTP nnn': 429 and 5xx (retryable: a 5xx may have been applied), or an answer that is not
 *   eSIM Go's error shape (a proxy's page): not `refused`.
 * - undefined: no answer (network, time-out), or an answer we could not read: not `refused`.
 * The kind of a refusal comes from its message (patterns below); the docs name none, so the
 * patterns are ours, written to the refusals the docs describe and the stand-in's wording.
 */

/** A request: `call` names it in errors and the budget (eSIM Go's path template), `path` is the one sent. */
export interface EsimGoRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** 'GET /esims/{iccid}': the documented operation, whatever its parameters. */
  call: string;
  path: string;
  /** Repeated keys as arrays (List orders takes `createdAt` twice). */
  query?: Record<string, string | readonly string[] | undefined>;
  body?: unknown;
}

/** Get eSIM details (GET /esims/{iccid}): the eSIM's reads, and the label's read-back. */
export function esimDetailsRequest(iccid: string): EsimGoRequest {
  return { method: 'GET', call: 'GET /esims/{iccid}', path: `/esims/${encodeURIComponent(iccid)}` };
}

export interface CallOptions {
  /**
   * Whether sending it again after a failure that may have been applied is harmless (reads, the
   * eSIM's customerRef). A 429 is always sent again after its Retry-After: eSIM Go's gateway
   * refused it before anything was done (guides/rate_limits).
   */
  repeatable?: boolean;
  /** The call's turn in the budget, if not the one PRIORITY_BY_CALL gives it. */
  priority?: PartnerPriority | undefined;
  /** Its caller stopped waiting: a call still waiting for its turn is not sent (PartnerReadOptions.signal). */
  signal?: AbortSignal | undefined;
  /** Fewer retries than configured (0: once), for a read whose failure has a meaning of its own. */
  retries?: number;
}

/**
 * How urgent each call is in the budget (partner-budget.types.ts): ordering and everything a
 * delivery reads first; cancels, top-ups, suspends and single eSIM reads with refunds; the
 * catalogue last. Reads on an operator's request pass 'operator'.
 */
const PRIORITY_BY_CALL: Readonly<Record<string, PartnerPriority>> = {
  'POST /orders': 'delivery',
  'GET /orders': 'delivery',
  'GET /esims': 'delivery',
  'PUT /esims': 'delivery',
  'GET /esims/assignments': 'delivery',
  'GET /esims/{iccid}': 'refund',
  'GET /esims/{iccid}/bundles': 'refund',
  'GET /esims/{iccid}/compatible/{bundle}': 'refund',
  'DELETE /esims/{iccid}/bundles/{name}': 'refund',
  'POST /esims/{iccid}/suspend': 'refund',
  'GET /organisation': 'refund',
  'GET /catalogue': 'usage',
  'GET /catalogue/bundle/{name}': 'usage',
  'GET /networks': 'usage',
};

/** Our reading of a refusal's message (the docs name no codes): first match wins. */
const KIND_BY_MESSAGE: readonly [RegExp, PartnerErrorKind][] = [
  [/insufficient (account )?(balance|funds|credit)/i, 'insufficient_balance'],
  [/not found|does not exist|no such|not accessible|unknown (bundle|iccid|order|reference)/i, 'not_found'],
  [/not compatible|incompatible|cannot be|already|not suspended|not allowed|policy/i, 'not_allowed'],
];

/** The longest Retry-After waited before retrying; a longer one fails the call (retryable) rather than hold a buyer. */
const MAX_RETRY_AFTER_MS = 30_000;

const ErrorBody = z.looseObject({ message: z.string() });

/** Sends one request at a time per call; `call` retries what may pass on a second try. */
export function createEsimGoClient(config: EsimGoConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const retries = config.retries ?? 3;
  const backoffMs = config.backoffMs ?? 250;
  const timeoutMs = config.timeoutMs ?? 30_000;
  const budget = config.budget ?? processBudget(`${base}\n${config.apiKey}`, ESIM_GO_BUDGET);

  async function attempt<T>(
    request: EsimGoRequest,
    priority: PartnerPriority,
    read: (json: unknown) => T,
    signal?: AbortSignal,
  ): Promise<PartnerAttempt<T>> {
    const exchanged = await inTurn(budget, priority, signal, () =>
      fetch(urlOf(base, request), {
        method: request.method,
        headers: {
          'X-API-Key': config.apiKey,
          Accept: 'application/json',
          ...(request.body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );
    if (!exchanged.ok) return exchanged;
    const { response, text } = exchanged;
    if (!response.ok) return { ok: false, ...failureOf(response, text) };
    return readAnswer(() => read(text === '' ? undefined : JSON.parse(text)));
  }

  /** Sends `request`, retrying what may pass on a second try; `read` turns the answer's JSON into ours or throws. */
  return function call<T>(request: EsimGoRequest, read: (json: unknown) => T, options: CallOptions = {}): Promise<T> {
    const repeatable = options.repeatable ?? (request.method === 'GET' || request.method === 'PUT');
    const priority = options.priority ?? PRIORITY_BY_CALL[request.call] ?? 'usage';
    return withRetries(
      {
        partner: PARTNER,
        name: request.call,
        retries: Math.min(retries, options.retries ?? retries),
        backoffMs,
        maxWaitMs: MAX_RETRY_AFTER_MS,
      },
      () => attempt(request, priority, read, options.signal),
      (failure) => repeatable || failure.code === 'HTTP 429',
    );
  };
}

export type EsimGoCall = ReturnType<typeof createEsimGoClient>;

/** An answer that is not a success, in our terms (the module comment says which code is which). */
function failureOf(response: Response, text: string): PartnerFailure {
  const http = `HTTP ${response.status}`;
  const parsed = ErrorBody.safeParse(safeJson(text));
  const message = parsed.success ? parsed.data.message : '';
  if (response.status === 429 || response.status >= 500) {
    const waitMs = retryAfterMs(response.headers.get('retry-after'));
    return { code: http, reason: `${http} ${message}`.trim(), retryable: true, ...(waitMs !== undefined && { waitMs }) };
  }
  // A 401 is eSIM Go's refusal of the key whatever its body (Create orders documents it text/plain, empty).
  if (parsed.success || response.status === 401) {
    const kind = KIND_BY_MESSAGE.find(([pattern]) => pattern.test(message))?.[1];
    return { code: String(response.status), ...(kind && { kind }), reason: `${http} ${message || 'Unauthorized'}`, retryable: false };
  }
  return { code: http, reason: `${http}, not eSIM Go's error answer: ${text.slice(0, 120)}`, retryable: false };
}

/** Retry-After in delay-seconds (eSIM Go's, guides/rate_limits: 'Retry-After: 1') or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function urlOf(base: string, request: EsimGoRequest): string {
  const url = new URL(base + request.path);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) url.searchParams.append(key, one);
  }
  return url.toString();
}

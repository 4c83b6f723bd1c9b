import { z } from 'zod';
import { createRateLimiter } from '../../lib/rate-limiter.ts';
import { PartnerError } from './partner.ts';
import type { PartnerErrorKind } from './partner.types.ts';
import type { PartnerBudget, PartnerBudgetLimit, PartnerPriority } from './partner-budget.types.ts';

/**
 * What every partner's HTTP client does alike (eSIM Access's, eSIM Go's): a turn in the request
 * budget around each exchange, an answer's content read into ours, and retries with backoff of what
 * may pass on a second try. How each partner signs, sends and says no stays in its own client.
 */

/** Why one try failed, in our terms; `waitMs`: how long the partner asked us to wait (Retry-After). */
export type PartnerFailure = {
  code?: string | undefined;
  kind?: PartnerErrorKind | undefined;
  reason: string;
  retryable: boolean;
  cause?: unknown;
  waitMs?: number;
  /** The connection was refused: the request never reached the partner, so nothing of it was applied. */
  notSent?: boolean;
};
export type PartnerAttempt<T> = { ok: true; value: T } | ({ ok: false } & PartnerFailure);

/** A failure inside an answer's reader that means 'no such thing', not 'unexpected answer'. */
export class NotFound extends Error {}

/**
 * One request in the partner's budget: waits for a turn (a caller that stopped waiting gets 'busy'
 * and nothing is sent), sends, reads the body, and gives the turn back whatever happened.
 */
export async function inTurn(
  budget: PartnerBudget,
  priority: PartnerPriority,
  signal: AbortSignal | undefined,
  send: () => Promise<Response>,
): Promise<{ ok: true; response: Response; text: string } | ({ ok: false } & PartnerFailure)> {
  let done: () => void | Promise<void>;
  try {
    done = await budget.acquire(priority, signal);
  } catch (error) {
    // Nothing was sent: safe to try again, unless the caller stopped waiting.
    if (signal?.aborted)
      return { ok: false, kind: 'busy', reason: 'no turn in the request budget before the caller stopped waiting', retryable: false };
    return { ok: false, reason: `no turn in the request budget (${errorText(error)})`, retryable: true, cause: error };
  }
  try {
    const response = await send();
    return { ok: true, response, text: await response.text() };
  } catch (error) {
    if (connectionRefused(error))
      return { ok: false, reason: `not sent (${errorText(error)})`, retryable: true, cause: error, notSent: true };
    return { ok: false, reason: `no answer (${errorText(error)})`, retryable: true, cause: error };
  } finally {
    await done();
  }
}

/**
 * Whether fetch failed because nothing listened at the partner's address (ECONNREFUSED, undici's
 * `cause`; every address refused, for a name with several): no byte of the request left us. A reset,
 * a time-out or a dropped answer may come after the partner read the request, and is not this.
 */
export function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every((e) => connectionRefused({ cause: e }));
  return (cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';
}

/** An answer's content read into ours: the reader's NotFound is 'not_found', any other failure an unexpected answer. */
export function readAnswer<T>(read: () => T): PartnerAttempt<T> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof NotFound) return { ok: false, kind: 'not_found', reason: error.message, retryable: false };
    const reason = error instanceof z.ZodError ? z.prettifyError(error) : errorText(error);
    return { ok: false, reason: `unexpected answer: ${reason}`, retryable: false, cause: error };
  }
}

/**
 * Tries `attempt` until it answers, or fails in a way another try cannot mend (then a PartnerError
 * naming the partner and the call): a retryable failure is tried again up to `retries` times, after
 * a backoff doubling from `backoffMs` (with jitter, at most 5 s) or the wait the partner asked for,
 * unless `mayRepeat` says this call must not be sent again or the partner asks for more than `maxWaitMs`.
 */
export async function withRetries<T>(
  call: { partner: string; name: string; retries: number; backoffMs: number; maxWaitMs?: number },
  attempt: () => Promise<PartnerAttempt<T>>,
  mayRepeat: (failure: PartnerFailure) => boolean = () => true,
): Promise<T> {
  // Not sent only if no try of it reached the partner.
  let notSent = true;
  for (let attempts = 1; ; attempts++) {
    const result = await attempt();
    if (result.ok) return result.value;
    notSent &&= result.notSent === true;
    const again = result.retryable && attempts <= call.retries && mayRepeat(result) && (result.waitMs ?? 0) <= (call.maxWaitMs ?? Infinity);
    if (!again) {
      const { code, kind, retryable, reason, cause } = result;
      throw new PartnerError({ partner: call.partner, call: call.name, code, kind, retryable, attempts, reason, notSent }, { cause });
    }
    const backoff = Math.min(5_000, call.backoffMs * 2 ** (attempts - 1)) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(backoff, result.waitMs ?? 0)));
  }
}

/**
 * One limiter per account in this process, shared by every adapter made for it without a budget:
 * first come first served, priorities and callers' signals ignored (enough for the catalogue
 * generator and unit tests, the only callers of their account; the shop passes its PostgreSQL budget).
 */
const limiters = new Map<string, PartnerBudget>();

export function processBudget(account: string, limit: PartnerBudgetLimit): PartnerBudget {
  let limiter = limiters.get(account);
  if (!limiter) {
    limiter = createRateLimiter(limit);
    limiters.set(account, limiter);
  }
  return limiter;
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

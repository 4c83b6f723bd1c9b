import type { PartnerBudget, PartnerBudgetLimit } from '../partner-budget.types.ts';

/** Its id on the shop's rows (partner-module.types.ts). */
export const ESIM_GO = 'esim-go';
/** The partner's name in errors and on the EsimPartner. */
export const PARTNER = 'eSIM Go';
/** API v2.5 (docs.esim-go.com/api/v2_5: servers; guides/api_version_migration: 'The current version is v2.5'). */
export const ESIM_GO_BASE_URL = 'https://api.esim-go.com/v2.5';

/**
 * eSIM Go's rate limit (docs.esim-go.com/guides/rate_limits): 10 requests a second per IP address,
 * a fixed window; over it HTTP 429 with Retry-After. The same margin as eSIM Access's budget: a
 * request's slot is held a window after its answer, so no fixed window at eSIM Go sees more than 10.
 * For the shop's PostgreSQL budget (postgresPartnerBudget's `limit`).
 */
export const ESIM_GO_BUDGET: PartnerBudgetLimit = { requests: 10, windowMs: 1000, marginMs: 25 };

export interface EsimGoConfig {
  /** The organisation's API key (portal: Account Settings → API Details); also the callbacks' HMAC key. */
  apiKey: string;
  /** Up to and including the version path ('https://api.esim-go.com/v2.5'); the stand-in's URL in dev and tests. */
  baseUrl: string;
  /** Retries after the first attempt, for network errors, HTTP 429 and 5xx, of the calls safe to repeat. */
  retries?: number;
  /** First backoff; it doubles with each retry (with jitter), up to 5 s. A 429's or 503's Retry-After is waited instead when longer. */
  backoffMs?: number;
  timeoutMs?: number;
  /**
   * The account's request budget. The shop passes one in its database (postgresPartnerBudget with
   * ESIM_GO_BUDGET), shared by every API instance; without one, this process's own limiter.
   */
  budget?: PartnerBudget;
}

/** The environment, as src/server/config.ts reads it. */
type Env = Record<string, string | undefined>;

/**
 * The eSIM Go account from ESIM_GO_API_KEY, ESIM_GO_BASE_URL (optional: the stand-in's, else
 * production) and ESIM_GO_TIMEOUT_MS (optional), the shape of esimAccessConfigFromEnv's (src/server/config.ts).
 */
export function esimGoConfigFromEnv(env: Env = process.env): EsimGoConfig {
  const apiKey = env['ESIM_GO_API_KEY']?.trim();
  if (!apiKey) throw new Error('ESIM_GO_API_KEY is not set: the eSIM Go adapter needs it');
  const timeout = env['ESIM_GO_TIMEOUT_MS']?.trim();
  const timeoutMs = timeout === undefined || timeout === '' ? undefined : Number(timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0))
    throw new Error('ESIM_GO_TIMEOUT_MS must be a whole number of milliseconds above 0');
  return {
    apiKey,
    baseUrl: env['ESIM_GO_BASE_URL']?.trim() || ESIM_GO_BASE_URL,
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

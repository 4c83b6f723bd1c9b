import type { PartnerBudget } from '../partner-budget.types.ts';

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
  /**
   * The account's request budget. The shop passes the one in its database (postgresPartnerBudget),
   * shared by every API instance; without one, this process's own limiter for the account.
   */
  budget?: PartnerBudget;
}

/** The partner's name in errors and on the EsimPartner. */
export const PARTNER = 'eSIM Access';
export const ESIM_ACCESS_BASE_URL = 'https://api.esimaccess.com';
/** A delivery's requests (EsimPartner.requestsPerDelivery): esim/order, then esim/query once ORDER_STATUS says it is allocated. */
export const ESIM_ACCESS_REQUESTS_PER_DELIVERY = { order: 1, read: 1 } as const;

import type { Context } from 'hono';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import {
  ESIM_USAGE_REFRESHES_PER_USER_PER_MINUTE,
  ORDERS_PER_USER_PER_HOUR,
  ORDERS_PER_USER_PER_MINUTE,
  REFUND_REQUESTS_PER_USER_PER_MINUTE,
  TOP_UP_LISTS_PER_USER_PER_MINUTE,
} from '../config/constants.ts';
import { ERROR_CODES } from '../contract/shop-api.ts';
import type { Db } from './db/db.ts';
import { fail } from './http.ts';
import type { LimitedRoute, UserLimiter } from './limits.types.ts';

// Where the types were declared before their file of their own; importers keep these names.
export type { LimitedRoute, UserLimiter } from './limits.types.ts';

/** The 429 answer to a user whose requests of a costly route ran out: try again in `wait` seconds (Retry-After). */
export function tooManyAttempts(c: Context, wait: number): Response {
  c.header('Retry-After', String(wait));
  return fail(c, 429, ERROR_CODES.tooManyRequests, `Too many attempts. Please wait ${wait} seconds and try again.`);
}

/** How many requests one user may make of each costly route (src/config/constants.ts; tests may raise them). */
export interface UserLimits {
  ordersPerMinute: number;
  ordersPerHour: number;
  refundsPerMinute: number;
  topUpListsPerMinute: number;
  /** GET /esims's reads of data use from the partner; beyond it answers the figures it has. */
  usageRefreshesPerMinute: number;
}

export const USER_LIMITS: UserLimits = {
  ordersPerMinute: ORDERS_PER_USER_PER_MINUTE,
  ordersPerHour: ORDERS_PER_USER_PER_HOUR,
  refundsPerMinute: REFUND_REQUESTS_PER_USER_PER_MINUTE,
  topUpListsPerMinute: TOP_UP_LISTS_PER_USER_PER_MINUTE,
  usageRefreshesPerMinute: ESIM_USAGE_REFRESHES_PER_USER_PER_MINUTE,
};

/**
 * Per-user limits on the routes that cost a Stripe Checkout Session or calls to the eSIM partner
 * (issue 20, DESIGN 7), counted in PostgreSQL so every API instance shares them: rate-limiter-
 * flexible's RateLimiterPostgres on the `rate_limits` table of migration 0003. It talks to our
 * Db (PGlite or `pg`) through a small adapter: it only needs `query({ text, values })` answering
 * `{ rows, rowCount }`, and its statements are plain PostgreSQL (an upsert with RETURNING).
 */
export function createUserLimits(db: Db, limits: UserLimits = USER_LIMITS): UserLimiter {
  const storeClient = {
    async query({ text, values }: { text: string; values?: unknown[] }) {
      const rows = await db.query(text, values);
      return { rows, rowCount: rows.length };
    },
  };
  const window = (keyPrefix: string, points: number, duration: number, clearExpired = false) =>
    new RateLimiterPostgres({
      storeClient,
      storeType: 'pool',
      tableName: 'rate_limits',
      // Created by the migration, not by the library at start.
      tableCreated: true,
      keyPrefix,
      points,
      duration,
      // One of them deletes the rows that ran out an hour ago, every 5 minutes.
      clearExpiredByTimeout: clearExpired,
    });
  const windows: Record<LimitedRoute, RateLimiterPostgres[]> = {
    orders: [window('orders-minute', limits.ordersPerMinute, 60, true), window('orders-hour', limits.ordersPerHour, 3600)],
    refunds: [window('refunds-minute', limits.refundsPerMinute, 60)],
    topUps: [window('top-ups-minute', limits.topUpListsPerMinute, 60)],
    usage: [window('usage-minute', limits.usageRefreshesPerMinute, 60)],
  };

  /** Counts one request of this user; answers undefined when it may go on, else the seconds until it may try again. */
  async function take(route: LimitedRoute, uid: string): Promise<number | undefined> {
    for (const limiter of windows[route]) {
      try {
        await limiter.consume(uid);
      } catch (error) {
        // The library rejects with its result when the limit is reached, with an Error when the database fails.
        if (error instanceof RateLimiterRes) return Math.max(1, Math.ceil(error.msBeforeNext / 1000));
        throw error;
      }
    }
    return undefined;
  }

  return {
    take,
    /** For a route: undefined when the caller may go on, else the 429 answer (Retry-After in seconds). */
    async refuse(c: Context, route: LimitedRoute, uid: string): Promise<Response | undefined> {
      const wait = await take(route, uid);
      return wait === undefined ? undefined : tooManyAttempts(c, wait);
    },
  };
}

import type { Context } from 'hono';
import {
  ESIM_USAGE_REFRESHES_PER_USER_PER_MINUTE,
  ORDERS_PER_USER_PER_HOUR,
  ORDERS_PER_USER_PER_MINUTE,
  REFUND_REQUESTS_PER_USER_PER_MINUTE,
  TOP_UP_LISTS_PER_USER_PER_MINUTE,
  TRAVELLER_LINKS_PER_USER_PER_HOUR,
} from '../config/constants.ts';
import { ERROR_CODES } from '../contract/shop-api.ts';
import {
  SUPPORT_REQUESTS_PER_HOUR,
  SUPPORT_REQUESTS_PER_RECIPIENT_PER_DAY,
  SUPPORT_UNPROVEN_REQUESTS_PER_HOUR,
} from '../contract/support-api.ts';
import type { Db } from './db/db.types.ts';
import { fail } from './http.ts';
import type { LimitedRoute, LimitInStatement, UserLimiter } from './limits.types.ts';

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
  /** Support requests and follow-ups (issue 32): per account, or per visitor's address. */
  supportPerHour: number;
  /** Support requests confirmed to an unproven address, per recipient's mailbox a day (issue 46 item 3). */
  supportPerRecipientPerDay: number;
  /** Support requests confirmed to an unproven address, from everyone together in an hour (issue 46 item 3). */
  supportUnprovenPerHour: number;
  /** Links given to travellers (issue 33): each may send an e-mail to an address the buyer typed. */
  travellerLinksPerHour: number;
}

export const USER_LIMITS: UserLimits = {
  ordersPerMinute: ORDERS_PER_USER_PER_MINUTE,
  ordersPerHour: ORDERS_PER_USER_PER_HOUR,
  refundsPerMinute: REFUND_REQUESTS_PER_USER_PER_MINUTE,
  topUpListsPerMinute: TOP_UP_LISTS_PER_USER_PER_MINUTE,
  usageRefreshesPerMinute: ESIM_USAGE_REFRESHES_PER_USER_PER_MINUTE,
  supportPerHour: SUPPORT_REQUESTS_PER_HOUR,
  supportPerRecipientPerDay: SUPPORT_REQUESTS_PER_RECIPIENT_PER_DAY,
  supportUnprovenPerHour: SUPPORT_UNPROVEN_REQUESTS_PER_HOUR,
  travellerLinksPerHour: TRAVELLER_LINKS_PER_USER_PER_HOUR,
};

/** How often the rows of windows that ran out over an hour ago are deleted, by each instance. */
const CLEAR_EXPIRED_EVERY_MS = 5 * 60_000;

/** One window of a route: at most `points` requests of a user in `durationMs` from their first. */
interface Window {
  keyPrefix: string;
  points: number;
  durationMs: number;
}

/** From a window's count: the seconds a refused user waits (Retry-After), at least 1. */
export const retryAfterSeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));

/**
 * Per-user limits on the routes that cost a Stripe Checkout Session or calls to the eSIM partner
 * (issue 20, DESIGN 7), counted in PostgreSQL so every API instance shares them: fixed windows in
 * the `rate_limits` table of migration 0003, one row per user and window ('orders-minute:<uid>',
 * `expire` in ms since the epoch), in the format rate-limiter-flexible's RateLimiterPostgres wrote
 * before (issue 31: its one statement per window became one statement per request, which POST
 * /orders also folds into the statement that opens the order, LimitInStatement). A window counts
 * the request only when the windows before it let it through, as the library did.
 */
export function createUserLimits(db: Db, limits: UserLimits = USER_LIMITS): UserLimiter {
  const window = (keyPrefix: string, points: number, seconds: number): Window => {
    if (!Number.isSafeInteger(points) || points < 0) throw new RangeError(`${keyPrefix}: ${points} is not a count`);
    return { keyPrefix, points, durationMs: seconds * 1000 };
  };
  const windows: Record<LimitedRoute, Window[]> = {
    orders: [window('orders-minute', limits.ordersPerMinute, 60), window('orders-hour', limits.ordersPerHour, 3600)],
    refunds: [window('refunds-minute', limits.refundsPerMinute, 60)],
    topUps: [window('top-ups-minute', limits.topUpListsPerMinute, 60)],
    usage: [window('usage-minute', limits.usageRefreshesPerMinute, 60)],
    support: [window('support-hour', limits.supportPerHour, 3600)],
    supportRecipient: [window('support-recipient-day', limits.supportPerRecipientPerDay, 86_400)],
    supportUnproven: [window('support-unproven-hour', limits.supportUnprovenPerHour, 3600)],
    travellerLinks: [window('traveller-links-hour', limits.travellerLinksPerHour, 3600)],
  };

  function inStatement(route: LimitedRoute, uid: string, first: number, count = 1): LimitInStatement {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`${route}: ${count} is not a count of requests`);
    const list = windows[route];
    const now = `$${first}::bigint`;
    const name = (i: number) => `limit_${route}_${i}`;
    const ctes = list.map(
      // Counted afresh once the window has run out, else one more; the first window always counts,
      // each next one only when the one before let the request through.
      (w, i) => `${name(i)} AS (
        INSERT INTO rate_limits AS r (key, points, expire)
        SELECT $${first + 1 + i}::varchar, ${count}, ${now} + ${w.durationMs}${i === 0 ? '' : ` WHERE (SELECT points <= ${list[i - 1]!.points} FROM ${name(i - 1)})`}
        ON CONFLICT (key) DO UPDATE SET
          points = CASE WHEN r.expire <= ${now} THEN ${count} ELSE r.points + ${count} END,
          expire = CASE WHEN r.expire <= ${now} THEN EXCLUDED.expire ELSE r.expire END
        RETURNING points, expire
      )`,
    );
    const last = list.length - 1;
    return {
      ctes,
      allowed: `EXISTS (SELECT 1 FROM ${name(last)} WHERE points <= ${list[last]!.points})`,
      waitMs: `COALESCE(${list.map((w, i) => `(SELECT greatest(expire - ${now}, 0) FROM ${name(i)} WHERE points > ${w.points})`).join(', ')})`,
      params: [Date.now(), ...list.map((w) => `${w.keyPrefix}:${uid}`)],
    };
  }

  /** Counts `count` requests of this user in one statement; answers undefined when they may go on, else the seconds until it may try again. */
  async function take(route: LimitedRoute, uid: string, count = 1): Promise<number | undefined> {
    const limit = inStatement(route, uid, 1, count);
    const [row] = await db.query<{ wait_ms: number | string | null }>(
      `WITH ${limit.ctes.join(',\n')} SELECT ${limit.waitMs} AS wait_ms`,
      limit.params,
    );
    return row?.wait_ms == null ? undefined : retryAfterSeconds(Number(row.wait_ms));
  }

  // Rows of windows that ran out an hour ago go, as the library's did (unreferenced: a stopping
  // process does not wait for it). Housekeeping only: a failure (the database closed or away) waits
  // for the next time without a word, as the library's did.
  setInterval(() => {
    db.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now() - 3_600_000]).catch(() => {});
  }, CLEAR_EXPIRED_EVERY_MS).unref();

  return {
    take,
    /** For a route: undefined when the caller may go on, else the 429 answer (Retry-After in seconds). */
    async refuse(c: Context, route: LimitedRoute, uid: string): Promise<Response | undefined> {
      const wait = await take(route, uid);
      return wait === undefined ? undefined : tooManyAttempts(c, wait);
    },
    inStatement,
  };
}

import type { Context } from 'hono';

export type LimitedRoute =
  'orders' | 'refunds' | 'topUps' | 'usage' | 'support' | 'supportRecipient' | 'supportUnproven' | 'travellerLinks';

/**
 * One user's request of a limited route counted inside another statement (POST /orders counts it in
 * the statement that opens the order: one round trip for both). `ctes` are common table expressions
 * to put in its WITH (each ends without a comma; join them with the statement's own by ',\n'),
 * `allowed` a boolean SQL expression (the request may go on: every window counted it within its
 * limit), `waitMs` the milliseconds until the user may try again (NULL when allowed), and `params`
 * the values of $first, $first+1, … that they use.
 */
export interface LimitInStatement {
  ctes: string[];
  allowed: string;
  waitMs: string;
  params: unknown[];
}

/** Per-user limits of the costly routes, shared by every API instance (limits.ts). */
export interface UserLimiter {
  /**
   * Counts one request of this user (or `count` at once: a cart's eSIMs count one each on the
   * orders' windows); undefined when it may go on, else the seconds until it may try again.
   */
  take(route: LimitedRoute, uid: string, count?: number): Promise<number | undefined>;
  /** For a route: undefined when the caller may go on, else the 429 answer (Retry-After in seconds). */
  refuse(c: Context, route: LimitedRoute, uid: string): Promise<Response | undefined>;
  /** The same count as `take`, as SQL for another statement, its parameters numbered from `first` (LimitInStatement). */
  inStatement(route: LimitedRoute, uid: string, first: number, count?: number): LimitInStatement;
}

import type { Context } from 'hono';

export type LimitedRoute = 'orders' | 'refunds' | 'topUps' | 'usage';

/** Per-user limits of the costly routes, shared by every API instance (limits.ts). */
export interface UserLimiter {
  /** Counts one request of this user; undefined when it may go on, else the seconds until it may try again. */
  take(route: LimitedRoute, uid: string): Promise<number | undefined>;
  /** For a route: undefined when the caller may go on, else the 429 answer (Retry-After in seconds). */
  refuse(c: Context, route: LimitedRoute, uid: string): Promise<Response | undefined>;
}

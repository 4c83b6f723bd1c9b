import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { ERROR_CODES } from '../contract/shop-api.ts';
import { AccountDisabledError } from './auth.ts';
import type { Accounts, Caller } from './auth.types.ts';
import { TRAVELLER_TOKEN_HEADER } from '../config/constants.ts';
import { bearerToken, fail, siteCors } from './http.ts';

/** Methods that change nothing a deleted account could use (GET /orders/{id} marks an eSIM seen: a read's bookkeeping). */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the buyer routes see: the caller, from their Firebase ID token. */
export type BuyerEnv = { Variables: { caller: Caller } };

/**
 * The buyer routes' guard: CORS for the site's pages (locally the site and the API have different
 * ports), then a valid Firebase ID token (`Authorization: Bearer …`) as `c.var.caller`, or 401;
 * on a write, also of an account that still exists and was not signed out everywhere (else 401), and
 * is not disabled (blocked by the provider: 403 account_blocked).
 * The answers are the caller's own: never cached.
 */
export function buyerAuth(accounts: Accounts, allowedOrigins: ReadonlySet<string>): MiddlewareHandler<BuyerEnv> {
  return every(
    siteCors(allowedOrigins, {
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
      // A traveller's link token (issue 33): the top-ups of the eSIM it names.
      allowHeaders: ['Authorization', 'Content-Type', TRAVELLER_TOKEN_HEADER],
      // A 429's wait, for the pages on another origin.
      exposeHeaders: ['Retry-After'],
    }),
    async (c, next) => {
      const token = bearerToken(c);
      if (!token)
        return fail(c, 401, ERROR_CODES.unauthorized, 'Sign in: an Authorization: Bearer <Firebase ID token> header is required.');
      try {
        // A token is valid for its hour whatever happens to the account; a write asks the accounts
        // service whether the account still exists, is not disabled (blocked) and its sessions were
        // not revoked, so a deleted account's token stores nothing (issue 29). Reads cost no lookup:
        // a deleted account's orders are detached, so they show nothing.
        const checkRevoked = !READS.has(c.req.method);
        const asked = performance.now();
        c.set('caller', await accounts.verifyIdToken(token, { checkRevoked }));
        // The accounts service's time (its lookup), apart from ours, for monitoring and the benchmark (DESIGN 3).
        if (checkRevoked) c.header('Server-Timing', `accounts;dur=${(performance.now() - asked).toFixed(1)}`, { append: true });
      } catch (error) {
        // Blocked by the provider (issue 30): the token is good, the account may not change anything.
        // Only a write asks, so only a write is refused; a token revoked without disabling stays 401.
        if (error instanceof AccountDisabledError)
          return fail(c, 403, ERROR_CODES.accountBlocked, 'This account is blocked; please contact support.');
        return fail(c, 401, ERROR_CODES.unauthorized, 'The ID token is not valid, was revoked or has expired.');
      }
      await next();
      c.header('Cache-Control', 'no-store');
      return undefined;
    },
  );
}

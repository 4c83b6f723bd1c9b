import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { OPS_ADMIN_SIGN_IN_MS } from '../../config/constants.ts';
import { OPS_ERROR_CODES, type OpsRole } from '../../contract/ops-api.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { Accounts, Caller } from '../auth.types.ts';
import { bearerToken, fail, siteCors } from '../http.ts';

/** An operator: a caller whose token carries a back-office role. */
export type Operator = Caller & { role: OpsRole };
export type OpsEnv = { Variables: { operator: Operator } };

/**
 * The back office's guard (issue 30, DESIGN 8): CORS for the site's pages, then a Firebase ID token
 * checked with revocation on every call (a role removed, or an account blocked, counts at once: the
 * grant revokes the refresh tokens) and carrying the custom claim `role`. 401 without a valid token,
 * 403 for anyone without a role. Never cached.
 */
export function opsAuth(accounts: Accounts, allowedOrigins: ReadonlySet<string>): MiddlewareHandler<OpsEnv> {
  return every(
    siteCors(allowedOrigins, {
      allowMethods: ['GET', 'POST'],
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['Content-Disposition'],
    }),
    async (c, next) => {
      const token = bearerToken(c);
      if (!token)
        return fail(c, 401, ERROR_CODES.unauthorized, 'Sign in: an Authorization: Bearer <Firebase ID token> header is required.');
      let caller: Caller;
      try {
        caller = await accounts.verifyIdToken(token, { checkRevoked: true });
      } catch {
        return fail(c, 401, ERROR_CODES.unauthorized, 'The ID token is not valid, was revoked or has expired.');
      }
      if (!caller.role) return fail(c, 403, OPS_ERROR_CODES.forbidden, 'This area is for the shop’s staff.');
      c.set('operator', { ...caller, role: caller.role });
      await next();
      c.header('Cache-Control', 'no-store');
      c.header('X-Robots-Tag', 'noindex');
      return undefined;
    },
  );
}

/** After opsAuth: an admin's route. 403 for support, and for an admin whose sign-in is older than OPS_ADMIN_SIGN_IN_MS. */
export const adminOnly: MiddlewareHandler<OpsEnv> = async (c, next) => {
  const operator = c.var.operator;
  if (operator.role !== 'admin') return fail(c, 403, OPS_ERROR_CODES.forbidden, 'Only an admin may do this.');
  if (Date.now() - operator.signedInAt.getTime() > OPS_ADMIN_SIGN_IN_MS) {
    return fail(c, 403, ERROR_CODES.recentLoginRequired, 'Sign in again: admin actions want a sign-in within the last 12 hours.');
  }
  await next();
  return undefined;
};

import { Hono, type MiddlewareHandler } from 'hono';
import { RECENT_SIGN_IN_MS } from '../../config/constants.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import { fail } from '../http.ts';
import { deleteBuyerAccount, type AccountDeletionDeps } from './delete-account.ts';

/** The buyer's account, mounted at /me: DELETE / deletes it with the shop's data (its orders detached, its devices and alert choices gone). */
export function accountRoutes(deps: AccountDeletionDeps & { auth: MiddlewareHandler<BuyerEnv> }) {
  // Only /me itself: /me/x is no route (404 without asking who calls).
  return new Hono<BuyerEnv>().use('/', deps.auth).delete('/', async (c) => {
    // Irreversible: a token that is not revoked (the guard checks it on every write), of a sign-in
    // within minutes (a stolen hour-old token cannot delete anyone).
    const caller = c.var.caller;
    if (Date.now() - caller.signedInAt.getTime() > RECENT_SIGN_IN_MS) {
      return fail(c, 403, ERROR_CODES.recentLoginRequired, 'Sign in again to delete the account.');
    }
    try {
      await deleteBuyerAccount(deps, caller.uid);
    } catch (error) {
      console.error('account deletion failed', error instanceof Error ? error.message : error);
      return fail(c, 502, ERROR_CODES.accountNotDeleted, 'The account could not be deleted. Please try again.');
    }
    return c.body(null, 204);
  });
}

import { Hono, type MiddlewareHandler } from 'hono';
import { RECENT_SIGN_IN_MS } from '../../config/constants.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { AlertPreferenceStore } from '../alerts/preferences.ts';
import type { Accounts } from '../auth.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import { fail } from '../http.ts';
import type { OrderStore } from '../orders/store.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.ts';
import type { PushSubscriptionStore } from '../push/subscriptions.ts';

/** The buyer's account, mounted at /me: DELETE / deletes it with the shop's data (its orders detached, its devices and alert choices gone). */
export function accountRoutes(deps: {
  auth: MiddlewareHandler<BuyerEnv>;
  accounts: Accounts;
  store: OrderStore;
  checkouts: CheckoutExpiry;
  pushSubscriptions: PushSubscriptionStore;
  alertPreferences: AlertPreferenceStore;
}) {
  const { accounts, store, checkouts, pushSubscriptions, alertPreferences } = deps;
  // Only /me itself: /me/x is no route (404 without asking who calls).
  return new Hono<BuyerEnv>().use('/', deps.auth).delete('/', async (c) => {
    // Irreversible: a token that is not revoked (the guard checks it on every write), of a sign-in
    // within minutes (a stolen hour-old token cannot delete anyone). The account goes in the same
    // transaction as the shop's data: if Firebase refuses, nothing is detached, and the buyer can try again.
    const caller = c.var.caller;
    if (Date.now() - caller.signedInAt.getTime() > RECENT_SIGN_IN_MS) {
      return fail(c, 403, ERROR_CODES.recentLoginRequired, 'Sign in again to delete the account.');
    }
    let cancelledCheckouts: string[];
    try {
      ({ cancelledCheckouts } = await store.forgetBuyer(
        caller.uid,
        () => accounts.deleteAccount(caller.uid),
        async (tx) => {
          await pushSubscriptions.forget(tx, caller.uid);
          await alertPreferences.forget(tx, caller.uid);
        },
      ));
    } catch (error) {
      console.error('account deletion failed', error instanceof Error ? error.message : error);
      return fail(c, 502, ERROR_CODES.accountNotDeleted, 'The account could not be deleted. Please try again.');
    }
    // Close the payment pages of cancelled orders, so nobody pays for an order without a buyer
    // (queued with the cancellation: the reconcile job closes those Stripe could not be asked about now).
    await checkouts.close(cancelledCheckouts);
    return c.body(null, 204);
  });
}

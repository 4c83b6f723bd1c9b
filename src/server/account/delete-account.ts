import type { AlertPreferenceStore } from '../alerts/preferences.types.ts';
import type { Accounts } from '../auth.types.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import type { PushSubscriptionStore } from '../push/subscriptions.types.ts';
import { forgetSupportRequests } from '../support/store.ts';

export interface AccountDeletionDeps {
  accounts: Accounts;
  store: OrderStore;
  checkouts: CheckoutExpiry;
  pushSubscriptions: PushSubscriptionStore;
  alertPreferences: AlertPreferenceStore;
}

/**
 * The one deletion of an account (DESIGN 6), for the buyer's DELETE /me and the back office's
 * deletion on request: the account goes in the same transaction as the shop's data (its orders
 * detached, the books kept; its devices, alert choices and support requests gone), so a refusal by Firebase changes
 * nothing and can be tried again (it throws). Then the cancelled orders' payment pages are closed.
 */
export async function deleteBuyerAccount(deps: AccountDeletionDeps, uid: string): Promise<void> {
  const { cancelledCheckouts } = await deps.store.forgetBuyer(
    uid,
    () => deps.accounts.deleteAccount(uid),
    async (tx) => {
      await deps.pushSubscriptions.forget(tx, uid);
      await deps.alertPreferences.forget(tx, uid);
      await forgetSupportRequests(tx, uid);
    },
  );
  // Queued with the cancellation: the reconcile job closes those Stripe could not be asked about now.
  await deps.checkouts.close(cancelledCheckouts);
}

import type Stripe from 'stripe';
import type { AlertPreferenceStore } from '../alerts/preferences.types.ts';
import { removeSavedCard } from '../auto-top-ups/saved-card.ts';
import { forgetAutoTopUpOwner } from '../auto-top-ups/store.ts';
import type { Db } from '../db/db.types.ts';
import type { Accounts } from '../auth.types.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import type { PushSubscriptionStore } from '../push/subscriptions.types.ts';
import { forgetSupportRequests } from '../support/store.ts';

export interface AccountDeletionDeps {
  db: Db;
  stripe: Stripe;
  accounts: Accounts;
  store: OrderStore;
  checkouts: CheckoutExpiry;
  pushSubscriptions: PushSubscriptionStore;
  alertPreferences: AlertPreferenceStore;
}

/**
 * The one deletion of an account (DESIGN 6), for the buyer's DELETE /me and the back office's
 * deletion on request: the account goes in the same transaction as the shop's data (its orders
 * detached, the books kept; its devices, alert choices and support requests gone; its saved card
 * deleted at Stripe first, its automatic top-ups' consents kept, as the charges' record, without it), so a refusal by Firebase changes
 * nothing but the saved card, already gone, and can be tried again (it throws). Then the cancelled orders' payment pages are closed.
 */
export async function deleteBuyerAccount(deps: AccountDeletionDeps, uid: string): Promise<void> {
  // The saved card first, at Stripe too (its Customer deleted), and automatic top-ups off: nothing
  // is charged for an account that asked to go, whatever happens next.
  await removeSavedCard(deps.db, deps.stripe, uid, 'account deleted');
  const { cancelledCheckouts } = await deps.store.forgetBuyer(
    uid,
    () => deps.accounts.deleteAccount(uid),
    async (tx) => {
      await deps.pushSubscriptions.forget(tx, uid);
      await deps.alertPreferences.forget(tx, uid);
      await forgetSupportRequests(tx, uid);
      await forgetAutoTopUpOwner(tx, uid);
    },
  );
  // Queued with the cancellation: the reconcile job closes those Stripe could not be asked about now.
  await deps.checkouts.close(cancelledCheckouts);
}

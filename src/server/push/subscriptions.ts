import type { PushSubscriptionRequest } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Queryable } from '../db/db.ts';

/** A device's push subscription as stored (migration 0011). */
export interface StoredPushSubscription {
  endpoint: string;
  uid: string;
  p256dh: string;
  auth: string;
  lang: Locale;
}

// ISSUE 23 SKELETON (helper "push" fills it in): the subscriptions per user and device.
export function createPushSubscriptions(db: Queryable) {
  void db;
  const todo = (): never => {
    throw new Error('push subscriptions: not built yet');
  };
  return {
    /** Stores this device's subscription for the user (an endpoint another user had moves to this one). */
    async save(uid: string, subscription: PushSubscriptionRequest): Promise<void> {
      void uid;
      void subscription;
      todo();
    },
    /** Removes the user's subscription of this endpoint (nothing when there is none). */
    async remove(uid: string, endpoint: string): Promise<void> {
      void uid;
      void endpoint;
      todo();
    },
    async ofUser(uid: string): Promise<StoredPushSubscription[]> {
      void uid;
      return todo();
    },
    /** The push service said it is gone (404, 410). */
    async drop(endpoint: string): Promise<void> {
      void endpoint;
      todo();
    },
    /** With the account (in its deletion's transaction). */
    async forget(tx: Queryable, uid: string): Promise<void> {
      void tx;
      void uid;
      todo();
    },
  };
}

export type PushSubscriptionStore = ReturnType<typeof createPushSubscriptions>;

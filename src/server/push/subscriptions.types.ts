import type { PushSubscriptionRequest } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Queryable } from '../db/db.types.ts';

/** A device's push subscription as stored (migration 0011). */
export interface StoredPushSubscription {
  endpoint: string;
  uid: string;
  p256dh: string;
  auth: string;
  lang: Locale;
}

/** The Push API subscriptions per user and device, keyed by endpoint (subscriptions.ts). */
export interface PushSubscriptionStore {
  /** Stores this device's subscription for the user (an endpoint another user had moves to this one). */
  save(uid: string, subscription: PushSubscriptionRequest): Promise<void>;
  /** Removes the user's subscription of this endpoint (nothing when there is none, or it is another user's). */
  remove(uid: string, endpoint: string): Promise<void>;
  /** The user's devices, oldest first. */
  ofUser(uid: string): Promise<StoredPushSubscription[]>;
  /** The push service accepted a message for it: its failures are over. */
  sent(endpoint: string): Promise<void>;
  /** A send to it failed: counted, and the device dropped once it keeps failing; answers whether it was. */
  failed(endpoint: string): Promise<boolean>;
  /** The push service said it is gone (404, 410), or the shop may no longer post to it. */
  drop(endpoint: string): Promise<void>;
  /** With the account (in its deletion's transaction). */
  forget(tx: Queryable, uid: string): Promise<void>;
}

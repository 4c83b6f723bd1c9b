import type { PushSubscriptionRequest } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import type { PushSubscriptionStore, StoredPushSubscription } from './subscriptions.types.ts';

/**
 * The devices a user has kept: at most this many; saving one more drops the least recently saved
 * (a browser saves its subscription again on each visit to the profile), so a script with a valid
 * sign-in cannot fill the table, and a user's real devices stay far below it.
 */
export const MAX_PUSH_SUBSCRIPTIONS_PER_USER = 20;

/**
 * A device whose push service has failed this many sends in a row (no answer in time, 5xx, 429, a
 * refused connection), the first of them at least PUSH_DEVICE_FAILING_MS ago, is dropped: a short
 * outage of a push service costs nobody their device, one that never answers is not tried for
 * ever. A browser that still holds the subscription saves it again on its next profile visit.
 */
export const PUSH_DEVICE_MAX_FAILURES = 5;
export const PUSH_DEVICE_FAILING_MS = 60 * 60_000;

/** The Push API subscriptions per user and device (migration 0011), keyed by endpoint. */
export function createPushSubscriptions(db: Queryable): PushSubscriptionStore {
  return {
    /** Stores this device's subscription for the user (an endpoint another user had moves to this one). */
    async save(uid: string, subscription: PushSubscriptionRequest): Promise<void> {
      // One browser profile has one endpoint: signed in as someone else, its alerts are theirs now.
      await db.query(
        `INSERT INTO push_subscriptions (endpoint, uid, p256dh, auth, lang) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (endpoint) DO UPDATE SET uid = excluded.uid, p256dh = excluded.p256dh, auth = excluded.auth,
           lang = excluded.lang, updated_at = now()`,
        [subscription.endpoint, uid, subscription.keys.p256dh, subscription.keys.auth, subscription.lang],
      );
      await db.query(
        `DELETE FROM push_subscriptions WHERE uid = $1 AND endpoint NOT IN (
           SELECT endpoint FROM push_subscriptions WHERE uid = $1 ORDER BY updated_at DESC, created_at DESC LIMIT $2)`,
        [uid, MAX_PUSH_SUBSCRIPTIONS_PER_USER],
      );
    },
    /** Removes the user's subscription of this endpoint (nothing when there is none, or it is another user's). */
    async remove(uid: string, endpoint: string): Promise<void> {
      await db.query('DELETE FROM push_subscriptions WHERE uid = $1 AND endpoint = $2', [uid, endpoint]);
    },
    async ofUser(uid: string): Promise<StoredPushSubscription[]> {
      return db.query<StoredPushSubscription>(
        'SELECT endpoint, uid, p256dh, auth, lang FROM push_subscriptions WHERE uid = $1 ORDER BY created_at',
        [uid],
      );
    },
    /** The push service accepted a message for it: its failures are over. */
    async sent(endpoint: string): Promise<void> {
      await db.query('UPDATE push_subscriptions SET last_sent_at = now(), failures = 0, failing_since = NULL WHERE endpoint = $1', [
        endpoint,
      ]);
    },
    /** A send to it failed: counted, and the device dropped once it keeps failing (see PUSH_DEVICE_MAX_FAILURES). Answers whether it was. */
    async failed(endpoint: string): Promise<boolean> {
      await db.query(
        'UPDATE push_subscriptions SET failures = failures + 1, failing_since = coalesce(failing_since, now()) WHERE endpoint = $1',
        [endpoint],
      );
      const dropped = await db.query(
        `DELETE FROM push_subscriptions
         WHERE endpoint = $1 AND failures >= $2 AND failing_since <= now() - $3 * interval '1 millisecond' RETURNING 1`,
        [endpoint, PUSH_DEVICE_MAX_FAILURES, PUSH_DEVICE_FAILING_MS],
      );
      return dropped.length > 0;
    },
    /** The push service said it is gone (404, 410), or the shop may no longer post to it. */
    async drop(endpoint: string): Promise<void> {
      await db.query('DELETE FROM push_subscriptions WHERE endpoint = $1', [endpoint]);
    },
    /** With the account (in its deletion's transaction). */
    async forget(tx: Queryable, uid: string): Promise<void> {
      await tx.query('DELETE FROM push_subscriptions WHERE uid = $1', [uid]);
    },
  };
}

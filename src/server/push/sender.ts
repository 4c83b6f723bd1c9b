import { createHash } from 'node:crypto';
import webPush from 'web-push';
import type { PushMessage } from '../../contract/shop-api.ts';
import type { VapidConfig } from '../config.ts';
import { pushEndpointAllowed } from './push-services.ts';
import type { PushSubscriptionStore, StoredPushSubscription } from './subscriptions.types.ts';
import type { PushSendResult, PushSender } from './sender.types.ts';

/**
 * A push service that has not answered by then is counted as failed (the alert is retried later):
 * they answer in well under a second, and a send that waits holds one of the alerts' few send slots.
 */
export const PUSH_TIMEOUT_MS = 3_000;

/**
 * Web Push (RFC 8030) with the `web-push` library: it encrypts the payload to the subscription's
 * keys (aes128gcm, RFC 8291) and signs the VAPID header (RFC 8292); the request itself goes by
 * fetch, because the library's own request speaks https only, and the push-service stand-in of the
 * tests and `npm start` is plain http on loopback (taken only where the wiring names its origin).
 */
export function createPushSender(options: {
  vapid: VapidConfig;
  subscriptions: PushSubscriptionStore;
  /** Dev and tests only: the push-service stand-in's origin, taken besides the browsers' push services. */
  standInOrigin?: string | undefined;
}): PushSender {
  const { vapid, subscriptions, standInOrigin } = options;
  const accepts = (endpoint: string) => pushEndpointAllowed(endpoint, standInOrigin);

  async function deliver(
    device: StoredPushSubscription,
    message: PushMessage,
    { ttlSeconds, urgency }: { ttlSeconds: number; urgency: 'normal' | 'high' },
  ): Promise<keyof PushSendResult> {
    // Only the push service's origin is ever logged: the endpoint's path is the device's secret address.
    const service = new URL(device.endpoint).origin;
    // Stored before the list (or the stand-in of another run): never posted to.
    if (!accepts(device.endpoint)) {
      console.warn('push: a subscription at', service, 'is not at a push service the shop posts to; dropped');
      await subscriptions.drop(device.endpoint);
      return 'dropped';
    }
    let request: webPush.RequestDetails & { body: Buffer };
    try {
      request = webPush.generateRequestDetails(
        { endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } },
        JSON.stringify(message),
        {
          vapidDetails: vapid,
          TTL: ttlSeconds,
          urgency,
          contentEncoding: 'aes128gcm',
          // RFC 8030 section 5.4: a newer message of the same eSIM and kind replaces one not yet delivered
          // (a topic is at most 32 base64url characters, so the tag's digest).
          topic: createHash('sha256').update(message.tag).digest('base64url').slice(0, 32),
        },
      );
    } catch {
      // Keys nothing can be encrypted to (the route checks them; an older row might not be): never deliverable.
      console.warn('push: a subscription at', service, 'has unusable keys; dropped');
      await subscriptions.drop(device.endpoint);
      return 'dropped';
    }
    let status: number;
    try {
      const response = await fetch(request.endpoint, {
        method: request.method,
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: new Uint8Array(request.body),
        signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
        // A push service answers; it never sends the message on elsewhere.
        redirect: 'error',
      });
      await response.body?.cancel();
      status = response.status;
    } catch (error) {
      console.warn('push: not delivered to', service, error instanceof Error ? error.message : error);
      return failed(device, service);
    }
    if (status >= 200 && status <= 299) {
      await subscriptions.sent(device.endpoint);
      return 'sent';
    }
    // RFC 8030 section 7.3 (and the services' documentation): 404 or 410, the subscription has expired or was withdrawn.
    if (status === 404 || status === 410) {
      await subscriptions.drop(device.endpoint);
      return 'dropped';
    }
    console.warn('push: refused by', service, status);
    return failed(device, service);
  }

  /** Counted against the device, which is dropped once it keeps failing. */
  async function failed(device: StoredPushSubscription, service: string): Promise<'failed' | 'dropped'> {
    if (!(await subscriptions.failed(device.endpoint))) return 'failed';
    console.warn('push: a subscription at', service, 'kept failing; dropped');
    return 'dropped';
  }

  return {
    publicKey: vapid.publicKey,
    accepts,
    async sendToUser(uid, message, sendOptions) {
      const devices = await subscriptions.ofUser(uid);
      const outcomes = await Promise.all(devices.map((device) => deliver(device, message(device.lang), sendOptions)));
      const result: PushSendResult = { sent: 0, dropped: 0, failed: 0 };
      for (const outcome of outcomes) result[outcome] += 1;
      return result;
    },
  };
}

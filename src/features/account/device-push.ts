import type { PushSubscriptionRequest } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { deletePushSubscription, getPushPublicKey, savePushSubscription } from '../../shop-client/shop.ts';

/**
 * This device's Web Push subscription (issue 23): made with the API's VAPID key, stored by the
 * API with the page's language, and removed from both when turned off. The worker is the one
 * ServiceWorkerRegistration.astro registers.
 */

/** The subscription this browser holds for the site, if any. */
export async function deviceSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

/** PushSubscription.toJSON() with the language of the notifications. */
const request = (subscription: PushSubscription, lang: Locale) => ({ ...subscription.toJSON(), lang }) as PushSubscriptionRequest;

/**
 * This device's calls to the API, one after another in the order they were made: the profile's
 * refresh on load still on its way when the switch is turned off is stored before the delete, never
 * after it (which would leave the device subscribed, and sent the next alert).
 */
let pending: Promise<unknown> = Promise.resolve();
function inOrder<T>(task: () => Promise<T>): Promise<T> {
  const run = pending.then(task, task);
  pending = run.catch(() => undefined);
  return run;
}

/** Subscribes this device and stores it; if the API cannot store it, the device is not left subscribed. */
export const subscribeDevice = (lang: Locale): Promise<void> => inOrder(() => subscribe(lang));

async function subscribe(lang: Locale): Promise<void> {
  const [{ publicKey }, registration] = await Promise.all([getPushPublicKey(), navigator.serviceWorker.ready]);
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlBytes(publicKey) });
  try {
    await savePushSubscription(request(subscription, lang));
  } catch (error) {
    await subscription.unsubscribe().catch(() => undefined);
    throw error;
  }
}

/**
 * Stores an existing subscription again, so it follows the page's language and the signed-in
 * account. One made with another VAPID key (the shop's pair was replaced) can no longer be sent
 * to: it is replaced by a new one, which needs no new permission.
 */
export const refreshDeviceSubscription = (subscription: PushSubscription, lang: Locale): Promise<void> =>
  inOrder(async () => {
    const { publicKey } = await getPushPublicKey();
    const madeWith = subscription.options?.applicationServerKey;
    if (madeWith && !sameBytes(new Uint8Array(madeWith), base64UrlBytes(publicKey))) {
      await subscription.unsubscribe();
      await subscribe(lang);
      return;
    }
    await savePushSubscription(request(subscription, lang));
  });

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** Removes this device's subscription from the API, then from the browser (a failed call leaves both). */
export const unsubscribeDevice = (): Promise<void> =>
  inOrder(async () => {
    const subscription = await deviceSubscription();
    if (!subscription) return;
    await deletePushSubscription(subscription.endpoint);
    await subscription.unsubscribe();
  });

/** The key as bytes: every browser takes those, not all take the base64url text. */
function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(
    text
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '='),
  );
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/**
 * At log-out: this device stops getting the account's alerts (a shared or borrowed phone must not
 * show them to the next person). Never waits for a worker and never fails the log-out: a
 * subscription the API could not be told about is unsubscribed anyway, and the push service's
 * 404/410 drops it from the API at the next alert.
 */
export async function forgetDevicePush(): Promise<void> {
  const registration = await navigator.serviceWorker?.getRegistration().catch(() => undefined);
  const subscription = await registration?.pushManager?.getSubscription().catch(() => null);
  if (!subscription) return;
  await deletePushSubscription(subscription.endpoint).catch(() => undefined);
  await subscription.unsubscribe().catch(() => undefined);
}

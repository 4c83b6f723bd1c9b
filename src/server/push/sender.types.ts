import type { PushMessage } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';

/** Web Push to a user's devices (sender.ts: web-push to the browsers' push services). */
export interface PushSendResult {
  /** Accepted by the push service (201). */
  sent: number;
  /** Deleted: the push service answered 404 or 410, the device kept failing, or its endpoint is not one the shop posts to. */
  dropped: number;
  /** Any other failure (network, time-out, 5xx, 429): kept, and the alert may be sent again later. */
  failed: number;
}

export interface PushSender {
  /** For GET /push/public-key. */
  readonly publicKey: string;
  /** Whether a subscription's endpoint is one this sender posts to (a browser's push service, push-services.ts). */
  accepts(endpoint: string): boolean;
  /** The message, in each device's language, to every device of the user (web-push: encrypted, with a TTL and an urgency). */
  sendToUser(
    uid: string,
    message: (lang: Locale) => PushMessage,
    options: { ttlSeconds: number; urgency: 'normal' | 'high' },
  ): Promise<PushSendResult>;
}

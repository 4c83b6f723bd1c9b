import type { PushMessage } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { VapidConfig } from '../config.ts';
import type { PushSubscriptionStore } from './subscriptions.ts';

export interface PushSendResult {
  /** Accepted by the push service (201). */
  sent: number;
  /** Answered 404 or 410: the subscription is gone, and was deleted. */
  dropped: number;
  /** Any other failure (network, 5xx, 429): kept, and the alert may be sent again later. */
  failed: number;
}

export interface PushSender {
  /** For GET /push/public-key. */
  readonly publicKey: string;
  /** The message, in each device's language, to every device of the user (web-push: encrypted, with a TTL and an urgency). */
  sendToUser(
    uid: string,
    message: (lang: Locale) => PushMessage,
    options: { ttlSeconds: number; urgency: 'normal' | 'high' },
  ): Promise<PushSendResult>;
}

// ISSUE 23 SKELETON (helper "push" fills it in).
export function createPushSender(options: { vapid: VapidConfig; subscriptions: PushSubscriptionStore }): PushSender {
  return {
    publicKey: options.vapid.publicKey,
    async sendToUser() {
      throw new Error('push sender: not built yet');
    },
  };
}

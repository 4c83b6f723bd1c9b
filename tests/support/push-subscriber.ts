import { createECDH, randomBytes } from 'node:crypto';
import { decrypt } from 'http_ece';
import { PushMessage, type PushSubscriptionRequest } from '../../src/contract/shop-api.ts';
import type { Locale } from '../../src/i18n/locales.ts';
import type { PushServiceStandIn, ReceivedPushMessage } from '../../stand-ins/push-service/server.ts';

/**
 * A device subscribed as a browser does (the Push API): its own P-256 key pair and 16-byte auth
 * secret, and an endpoint on the push-service stand-in. It reads what the shop sent it by
 * decrypting with those keys through http_ece (RFC 8291, the library web-push encrypts with), so a
 * test sees what the service worker would: the PushMessage.
 */
export function pushSubscriber(
  // The stand-in of this process, or of the local shop (stand-ins/push-service/remote.ts: no `messages`).
  pushService: Pick<PushServiceStandIn, 'endpoint' | 'waitFor'> & Partial<Pick<PushServiceStandIn, 'messages'>>,
  lang: Locale = 'en',
) {
  const keys = createECDH('prime256v1');
  keys.generateKeys();
  const authSecret = randomBytes(16);
  const id = randomBytes(9).toString('base64url');
  const subscription = {
    endpoint: pushService.endpoint(id),
    expirationTime: null,
    keys: { p256dh: keys.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
    lang,
  } satisfies PushSubscriptionRequest;
  const read = (message: ReceivedPushMessage): PushMessage =>
    PushMessage.parse(JSON.parse(decrypt(message.body, { version: 'aes128gcm', privateKey: keys, authSecret }).toString('utf8')));
  return {
    /** The id in the endpoint (/push/<id>): pushService.setAnswer(id, 410) makes it gone. */
    id,
    /** POST /me/push-subscriptions's body. */
    subscription,
    /** Decrypts a message the stand-in received (throws when it was not encrypted to this device). */
    read,
    /** The messages the push service accepted for this device (201), decrypted, in order (a stand-in of this process). */
    received: () => {
      if (!pushService.messages) throw new Error('received() reads a stand-in of this process; use next()');
      return pushService.messages.filter((m) => m.id === id && m.status === 201).map(read);
    },
    /** The next (or an earlier) accepted message for this device, decrypted. */
    next: async (timeoutMs?: number) => read(await pushService.waitFor((m) => m.id === id && m.status === 201, timeoutMs)),
  };
}

export type PushSubscriber = ReturnType<typeof pushSubscriber>;

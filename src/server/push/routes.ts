import { createECDH } from 'node:crypto';
import { Hono, type MiddlewareHandler } from 'hono';
import { ERROR_CODES, PushSubscriptionRequest, PushUnsubscribeRequest, type PushPublicKey } from '../../contract/shop-api.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import { fail, siteCors } from '../http.ts';
import { jsonBody } from '../validation.ts';
import type { PushSender } from './sender.types.ts';
import type { PushSubscriptionStore } from './subscriptions.types.ts';

/**
 * Keys a message can be encrypted to (RFC 8291 section 3): p256dh a point on P-256 (uncompressed,
 * 65 bytes), auth a 16-byte secret. Checked here, so a stored subscription never fails to encrypt.
 */
function encryptable(keys: PushSubscriptionRequest['keys']): boolean {
  const point = Buffer.from(keys.p256dh, 'base64url');
  if (Buffer.from(keys.auth, 'base64url').length !== 16 || point.length !== 65) return false;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(point);
    return true;
  } catch {
    return false;
  }
}

/**
 * This device's Push API subscription, mounted at /me/push-subscriptions: POST stores it (the
 * profile's switch turned on, or the page saving it again), DELETE removes it (the switch off).
 */
export function pushSubscriptionRoutes(deps: {
  auth: MiddlewareHandler<BuyerEnv>;
  pushSubscriptions: PushSubscriptionStore;
  push: PushSender;
}) {
  const { pushSubscriptions, push } = deps;
  return new Hono<BuyerEnv>()
    .use('/', deps.auth)
    .post('/', ...jsonBody(PushSubscriptionRequest), async (c) => {
      const subscription = c.req.valid('json');
      // Only a browser's push service (or the stand-in where the wiring names it): nobody can make
      // the API post to its own network, a cloud's metadata address or any other host.
      if (!push.accepts(subscription.endpoint)) return fail(c, 400, ERROR_CODES.badRequest, 'Check these fields: endpoint.');
      if (!encryptable(subscription.keys)) return fail(c, 400, ERROR_CODES.badRequest, 'Check these fields: keys.');
      await pushSubscriptions.save(c.var.caller.uid, subscription);
      return c.body(null, 204);
    })
    .delete('/', ...jsonBody(PushUnsubscribeRequest), async (c) => {
      // Only the caller's own: an endpoint another user stored stays theirs.
      await pushSubscriptions.remove(c.var.caller.uid, c.req.valid('json').endpoint);
      return c.body(null, 204);
    });
}

/** The key cached for an hour by browsers (a rotated key reaches the profile page within that). */
const PUBLIC_KEY_MAX_AGE_S = 3600;

/** GET /push/public-key: the VAPID public key pushManager.subscribe needs, for the site's pages (no sign-in). */
export function pushPublicKeyRoutes(deps: { push: PushSender; allowedOrigins: ReadonlySet<string> }) {
  const { push, allowedOrigins } = deps;
  return new Hono()
    .use('/public-key', siteCors(allowedOrigins, { allowMethods: ['GET'] }))
    .get('/public-key', (c) =>
      c.json({ publicKey: push.publicKey } satisfies PushPublicKey, 200, { 'Cache-Control': `public, max-age=${PUBLIC_KEY_MAX_AGE_S}` }),
    );
}

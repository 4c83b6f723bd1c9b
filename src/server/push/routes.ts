import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { PushSubscriptionRequest, PushUnsubscribeRequest, type PushPublicKey } from '../../contract/shop-api.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import { jsonBody } from '../validation.ts';
import type { PushSender } from './sender.ts';
import type { PushSubscriptionStore } from './subscriptions.ts';

/**
 * This device's Push API subscription, mounted at /me/push-subscriptions: POST stores it (the
 * profile's switch turned on, or the page saving it again), DELETE removes it (the switch off).
 */
export function pushSubscriptionRoutes(deps: { auth: MiddlewareHandler<BuyerEnv>; pushSubscriptions: PushSubscriptionStore }) {
  const { pushSubscriptions } = deps;
  return new Hono<BuyerEnv>()
    .use('/', deps.auth)
    .post('/', ...jsonBody(PushSubscriptionRequest), async (c) => {
      await pushSubscriptions.save(c.var.caller.uid, c.req.valid('json'));
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
    .use('/public-key', cors({ origin: (origin) => (allowedOrigins.has(origin) ? origin : null), allowMethods: ['GET'], maxAge: 600 }))
    .get('/public-key', (c) =>
      c.json({ publicKey: push.publicKey } satisfies PushPublicKey, 200, { 'Cache-Control': `public, max-age=${PUBLIC_KEY_MAX_AGE_S}` }),
    );
}

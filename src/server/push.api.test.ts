import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { startPushServiceStandIn, type PushServiceStandIn } from '../../stand-ins/push-service/server.ts';
import { TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { pushSubscriber, type PushSubscriber } from '../../tests/support/push-subscriber.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ApiError, PushPublicKey, type PushMessage } from '../contract/shop-api.ts';
import type { Locale } from '../i18n/locales.ts';
import { createPushSender } from './push/sender.ts';
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER, createPushSubscriptions } from './push/subscriptions.ts';

/**
 * Web Push (issue 23): a device's subscription stored and removed over HTTP, and messages sent by
 * the real sender (web-push: aes128gcm, VAPID) to the push-service stand-in, which checks the VAPID
 * token; each device decrypts its own with its own keys.
 */
const SITE = 'http://127.0.0.1:4329';

let pushService: PushServiceStandIn;
beforeAll(async () => {
  pushService = await startPushServiceStandIn({ applicationServerKey: TEST_ALERTS.vapid.publicKey });
});
afterAll(() => pushService.close());

const message = (lang: Locale): PushMessage => ({
  kind: 'data_80',
  title: `title ${lang}`,
  body: `body ${lang}`,
  url: `/${lang}/checkout?topUp=esim-1`,
  tag: 'esim-1:data_80',
  lang,
});

describe.each(databaseDrivers())('Web Push on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue: embeddedSnapshot(), siteUrl: SITE, stripe: false, partnerNotifications: false });
  const { call } = bed;
  const stored = () => createPushSubscriptions(bed.db);
  const sender = () => createPushSender({ vapid: TEST_ALERTS.vapid, subscriptions: stored() });
  const subscribe = (token: string, body: unknown) => call('/me/push-subscriptions', { method: 'POST', token, body: JSON.stringify(body) });
  const unsubscribe = (token: string, endpoint: string) =>
    call('/me/push-subscriptions', { method: 'DELETE', token, body: JSON.stringify({ endpoint }) });
  const endpointsOf = async (uid: string) => (await stored().ofUser(uid)).map((s) => s.endpoint);
  async function subscribed(lang: Locale = 'en') {
    const buyer = await signUp();
    const device = pushSubscriber(pushService, lang);
    expect((await subscribe(buyer.idToken, device.subscription)).status).toBe(204);
    return { buyer, device };
  }

  it('serves the VAPID public key without a sign-in, cacheable, readable by the site’s pages only', async () => {
    const response = await call('/push/public-key', { headers: { Origin: SITE } });
    expect(response.status).toBe(200);
    expect(PushPublicKey.parse(await response.json())).toEqual({ publicKey: TEST_ALERTS.vapid.publicKey });
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('access-control-allow-origin')).toBe(SITE);
    const elsewhere = await call('/push/public-key', { headers: { Origin: 'https://elsewhere.example' } });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('stores this device’s subscription for the signed-in buyer, and deletes it when the device turns alerts off', async () => {
    const { buyer, device } = await subscribed('de');
    expect(await stored().ofUser(buyer.uid)).toEqual([
      { endpoint: device.subscription.endpoint, uid: buyer.uid, ...device.subscription.keys, lang: 'de' },
    ]);
    // Saved again (each visit to the profile): still one, in the page's language now.
    expect((await subscribe(buyer.idToken, { ...device.subscription, lang: 'ar' })).status).toBe(204);
    expect((await stored().ofUser(buyer.uid)).map((s) => s.lang)).toEqual(['ar']);
    expect((await unsubscribe(buyer.idToken, device.subscription.endpoint)).status).toBe(204);
    expect(await endpointsOf(buyer.uid)).toEqual([]);
    // Not stored (any more): the same answer.
    expect((await unsubscribe(buyer.idToken, device.subscription.endpoint)).status).toBe(204);
  });

  it('needs a sign-in, and leaves another buyer’s subscription alone on DELETE', async () => {
    const { buyer, device } = await subscribed();
    const other = await signUp();
    expect((await subscribe('', device.subscription)).status).toBe(401);
    expect((await unsubscribe(other.idToken, device.subscription.endpoint)).status).toBe(204);
    expect(await endpointsOf(buyer.uid)).toEqual([device.subscription.endpoint]);
  });

  it('moves a browser’s endpoint to whoever signs in on it next', async () => {
    const { buyer, device } = await subscribed();
    const next = await signUp();
    expect((await subscribe(next.idToken, device.subscription)).status).toBe(204);
    expect(await endpointsOf(buyer.uid)).toEqual([]);
    expect(await endpointsOf(next.uid)).toEqual([device.subscription.endpoint]);
  });

  it('refuses what is no push subscription: 400 naming the fields', async () => {
    const buyer = await signUp();
    const { subscription } = pushSubscriber(pushService);
    const refused = async (body: unknown) => {
      const response = await subscribe(buyer.idToken, body);
      expect(response.status).toBe(400);
      return ApiError.parse(await response.json()).error.message;
    };
    expect(await refused({ ...subscription, endpoint: 'http://push.example.net/push/1' })).toMatch(/endpoint/);
    expect(await refused({ ...subscription, endpoint: 'javascript:alert(1)' })).toMatch(/endpoint/);
    expect(await refused({ ...subscription, keys: { p256dh: subscription.keys.p256dh } })).toMatch(/keys\.auth/);
    expect(await refused({ ...subscription, keys: { ...subscription.keys, auth: 'not base64url!' } })).toMatch(/keys\.auth/);
    expect(await refused({ ...subscription, lang: 'xx' })).toMatch(/lang/);
    // Well-formed base64url, but nothing a message can be encrypted to: no point on P-256, a short secret.
    const notAPoint = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
    expect(await refused({ ...subscription, keys: { ...subscription.keys, p256dh: notAPoint } })).toMatch(/keys/);
    expect(await refused({ ...subscription, keys: { ...subscription.keys, auth: 'c2hvcnQ' } })).toMatch(/keys/);
    expect((await unsubscribe(buyer.idToken, 'not a url')).status).toBe(400);
    expect(await endpointsOf(buyer.uid)).toEqual([]);
  });

  it('takes only https endpoints on a live site: no loopback address for the API to post to', async () => {
    const live = await serveApi(bed.build({ siteUrl: 'https://travel-esim-shop.com' }));
    try {
      const buyer = await signUp();
      const { subscription } = pushSubscriber(pushService);
      const post = (endpoint: string) =>
        fetch(`${live.url}/api/me/push-subscriptions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${buyer.idToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...subscription, endpoint }),
        });
      expect((await post(subscription.endpoint)).status).toBe(400);
      expect((await post('https://fcm.googleapis.com/fcm/send/abc:def')).status).toBe(204);
      expect(await endpointsOf(buyer.uid)).toEqual(['https://fcm.googleapis.com/fcm/send/abc:def']);
    } finally {
      await live.close();
    }
  });

  it(`keeps at most ${MAX_PUSH_SUBSCRIPTIONS_PER_USER} devices a buyer: one more drops the least recently saved`, async () => {
    const buyer = await signUp();
    const endpoints: string[] = [];
    for (let i = 0; i <= MAX_PUSH_SUBSCRIPTIONS_PER_USER; i++) {
      const { subscription } = pushSubscriber(pushService);
      endpoints.push(subscription.endpoint);
      expect((await subscribe(buyer.idToken, subscription)).status).toBe(204);
    }
    expect((await endpointsOf(buyer.uid)).sort()).toEqual(endpoints.slice(1).sort());
  });

  it('sends each device the message in its own language, encrypted to its keys, with the TTL and urgency asked', async () => {
    const { buyer, device: german } = await subscribed('de');
    const japanese = pushSubscriber(pushService, 'ja');
    expect((await subscribe(buyer.idToken, japanese.subscription)).status).toBe(204);
    expect(await sender().sendToUser(buyer.uid, message, { ttlSeconds: 86_400, urgency: 'high' })).toEqual({
      sent: 2,
      dropped: 0,
      failed: 0,
    });
    expect(german.received()).toEqual([message('de')]);
    expect(japanese.received()).toEqual([message('ja')]);
    expect(pushService.messages.find((m) => m.id === german.id)).toMatchObject({
      ttl: 86_400,
      urgency: 'high',
      contentEncoding: 'aes128gcm',
    });
    const [row] = await bed.db.query<{ last_sent_at: Date | null }>('SELECT last_sent_at FROM push_subscriptions WHERE endpoint = $1', [
      german.subscription.endpoint,
    ]);
    expect(row!.last_sent_at).toBeInstanceOf(Date);
    // Nobody's devices: nothing to do.
    expect(await sender().sendToUser((await signUp()).uid, message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({
      sent: 0,
      dropped: 0,
      failed: 0,
    });
  });

  it('drops a subscription the push service says is gone (404, 410), keeps one that failed otherwise', async () => {
    const buyer = await signUp();
    const devices: Record<'notFound' | 'gone' | 'busy' | 'unreachable' | 'fine', PushSubscriber> = {
      notFound: pushSubscriber(pushService),
      gone: pushSubscriber(pushService),
      busy: pushSubscriber(pushService),
      unreachable: pushSubscriber(pushService),
      fine: pushSubscriber(pushService),
    };
    pushService.setAnswer(devices.notFound.id, 404);
    pushService.setAnswer(devices.gone.id, 410);
    pushService.setAnswer(devices.busy.id, 500);
    // Nothing listens on port 9: a network failure.
    const unreachable = { ...devices.unreachable.subscription, endpoint: 'http://127.0.0.1:9/push/unreachable' };
    for (const device of Object.values(devices)) {
      const body = device === devices.unreachable ? unreachable : device.subscription;
      expect((await subscribe(buyer.idToken, body)).status).toBe(204);
    }
    expect(await sender().sendToUser(buyer.uid, message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({
      sent: 1,
      dropped: 2,
      failed: 2,
    });
    expect((await endpointsOf(buyer.uid)).sort()).toEqual(
      [devices.busy.subscription.endpoint, unreachable.endpoint, devices.fine.subscription.endpoint].sort(),
    );
    expect(devices.fine.received()).toEqual([message('en')]);
  });

  it('drops a stored subscription whose keys nothing can be encrypted to, and still sends to the others', async () => {
    const { buyer, device } = await subscribed();
    const broken = pushSubscriber(pushService);
    await bed.db.query(`INSERT INTO push_subscriptions (endpoint, uid, p256dh, auth, lang) VALUES ($1, $2, 'BAAA', $3, 'en')`, [
      broken.subscription.endpoint,
      buyer.uid,
      broken.subscription.keys.auth,
    ]);
    expect(await sender().sendToUser(buyer.uid, message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({
      sent: 1,
      dropped: 1,
      failed: 0,
    });
    expect(await endpointsOf(buyer.uid)).toEqual([device.subscription.endpoint]);
    expect(device.received()).toEqual([message('en')]);
  });
});

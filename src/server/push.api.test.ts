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
import { PUSH_TIMEOUT_MS, createPushSender } from './push/sender.ts';
import { PUSH_SERVICE_HOSTS } from './push/push-services.ts';
import {
  MAX_PUSH_SUBSCRIPTIONS_PER_USER,
  PUSH_DEVICE_FAILING_MS,
  PUSH_DEVICE_MAX_FAILURES,
  createPushSubscriptions,
} from './push/subscriptions.ts';

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

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('Web Push on $name', (driver) => {
  const bed = shopTestBed(driver, {
    catalogue: embeddedSnapshot(),
    siteUrl: SITE,
    stripe: false,
    partnerNotifications: false,
    api: () => ({ pushServiceStandInOrigin: pushService.url }),
  });
  const { call } = bed;
  const stored = () => createPushSubscriptions(bed.db);
  const sender = () => createPushSender({ vapid: TEST_ALERTS.vapid, subscriptions: stored(), standInOrigin: pushService.url });
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

  it('takes endpoints at the browsers’ push services only (https, default port), and the stand-in only where the wiring names it', async () => {
    const buyer = await signUp();
    const { subscription } = pushSubscriber(pushService);
    const post = (baseUrl: string, endpoint: string) =>
      fetch(`${baseUrl}/api/me/push-subscriptions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${buyer.idToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...subscription, endpoint }),
      });
    // Every listed host (a name under each `*.` one), and endpoints as the browsers give them.
    const listed = PUSH_SERVICE_HOSTS.map((host) => `https://${host.replace('*.', 'a-1.')}/push/abc`);
    const browsers = [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://fcm.googleapis.com/wp/abc',
      'https://android.googleapis.com/gcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABc',
      'https://web.push.apple.com/QGk3Yl0cX2Jt',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB',
      'https://FCM.googleapis.com:443/fcm/send/upper-case-and-default-port',
    ];
    for (const endpoint of [...listed, ...browsers, subscription.endpoint])
      expect({ endpoint, status: (await post(bed.api.url, endpoint)).status }).toEqual({ endpoint, status: 204 });

    const standIn = new URL(pushService.url);
    const refused = [
      'https://127.0.0.1/push/abc',
      'http://127.0.0.1:8080/push/abc',
      'https://10.0.0.1/push/abc',
      'https://169.254.169.254/latest/meta-data/',
      'http://169.254.169.254/latest/meta-data/',
      'https://[::1]/push/abc',
      'http://[::1]:8080/push/abc',
      'https://localhost/push/abc',
      'https://fcm.googleapis.com:8443/fcm/send/abc',
      'http://fcm.googleapis.com/fcm/send/abc',
      'https://fcm.googleapis.com.evil.example/fcm/send/abc',
      'https://evil.example/fcm.googleapis.com/fcm/send/abc',
      'https://fcm.googleapis.com@evil.example/fcm/send/abc',
      'https://user:secret@fcm.googleapis.com/fcm/send/abc',
      'https://googleapis.com/fcm/send/abc',
      'https://evilpush.apple.com/abc',
      'https://push.apple.com.evil.example/abc',
      'https://notify.windows.com/w/?token=abc',
      // The stand-in's host on another port, or by another name: only its exact origin.
      `http://127.0.0.1:${Number(standIn.port) + 1}/push/abc`,
      `http://localhost:${standIn.port}/push/abc`,
      `https://127.0.0.1:${standIn.port}/push/abc`,
    ];
    for (const endpoint of refused) {
      const response = await post(bed.api.url, endpoint);
      expect({ endpoint, status: response.status }).toEqual({ endpoint, status: 400 });
      expect(ApiError.parse(await response.json()).error.message).toMatch(/endpoint/);
    }
    expect((await endpointsOf(buyer.uid)).sort()).toEqual([...listed, ...browsers, subscription.endpoint].sort());

    // A build not told of the stand-in (as a live one is never told): its endpoint is refused too,
    // whatever the site's URL; the push services are still taken.
    for (const siteUrl of [SITE, 'https://travel-esim-shop.com']) {
      const live = await serveApi(bed.build({ siteUrl, pushServiceStandInOrigin: undefined }));
      try {
        expect((await post(live.url, pushSubscriber(pushService).subscription.endpoint)).status).toBe(400);
        expect((await post(live.url, 'https://fcm.googleapis.com/fcm/send/live')).status).toBe(204);
      } finally {
        await live.close();
      }
    }
  });

  it('never posts to a stored subscription outside the push services (stored before the list): drops it', async () => {
    const { buyer, device } = await subscribed();
    const elsewhere = pushSubscriber(pushService);
    await bed.db.query(`INSERT INTO push_subscriptions (endpoint, uid, p256dh, auth, lang) VALUES ($1, $2, $3, $4, 'en')`, [
      elsewhere.subscription.endpoint,
      buyer.uid,
      elsewhere.subscription.keys.p256dh,
      elsewhere.subscription.keys.auth,
    ]);
    // A sender not told of the stand-in: both endpoints are somewhere it does not post to.
    const live = createPushSender({ vapid: TEST_ALERTS.vapid, subscriptions: stored() });
    expect(await live.sendToUser(buyer.uid, message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({ sent: 0, dropped: 2, failed: 0 });
    expect(await endpointsOf(buyer.uid)).toEqual([]);
    expect(pushService.messages.filter((m) => m.id === device.id || m.id === elsewhere.id)).toEqual([]);
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

  it(`drops a subscription the push service says is gone (404, 410), keeps one that failed otherwise; gives up on silence within seconds`, async () => {
    const buyer = await signUp();
    const devices: Record<'notFound' | 'gone' | 'busy' | 'silent' | 'fine', PushSubscriber> = {
      notFound: pushSubscriber(pushService),
      gone: pushSubscriber(pushService),
      busy: pushSubscriber(pushService),
      silent: pushSubscriber(pushService),
      fine: pushSubscriber(pushService),
    };
    pushService.setAnswer(devices.notFound.id, 404);
    pushService.setAnswer(devices.gone.id, 410);
    pushService.setAnswer(devices.busy.id, 500);
    // Takes the message and never answers.
    pushService.setAnswer(devices.silent.id, 'hang');
    for (const device of Object.values(devices)) expect((await subscribe(buyer.idToken, device.subscription)).status).toBe(204);
    const started = performance.now();
    expect(await sender().sendToUser(buyer.uid, message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({
      sent: 1,
      dropped: 2,
      failed: 2,
    });
    const ms = performance.now() - started;
    console.log(`push on ${driver.name}: a send to a push service that never answers gave up after ${Math.round(ms)} ms`);
    // A few seconds: each send that waits holds one of the alerts' few send slots.
    expect(ms).toBeGreaterThanOrEqual(PUSH_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(5_000);
    expect((await endpointsOf(buyer.uid)).sort()).toEqual(
      [devices.busy.subscription.endpoint, devices.silent.subscription.endpoint, devices.fine.subscription.endpoint].sort(),
    );
    expect(devices.fine.received()).toEqual([message('en')]);
  });

  it(`drops a device that keeps failing (${PUSH_DEVICE_MAX_FAILURES} sends in a row, over an hour); an accepted one starts the count again`, async () => {
    const { buyer, device } = await subscribed();
    const send = () => sender().sendToUser(buyer.uid, message, { ttlSeconds: 60, urgency: 'normal' });
    const failedFor = (ago: number) =>
      bed.db.query(`UPDATE push_subscriptions SET failing_since = now() - $2 * interval '1 millisecond' WHERE endpoint = $1`, [
        device.subscription.endpoint,
        ago,
      ]);
    pushService.setAnswer(device.id, 500);
    // Many failures in a short outage: kept.
    for (let i = 0; i < PUSH_DEVICE_MAX_FAILURES + 2; i++) expect(await send()).toEqual({ sent: 0, dropped: 0, failed: 1 });
    // Failing for an hour, but an accepted message in between: the count starts again.
    await failedFor(PUSH_DEVICE_FAILING_MS);
    pushService.setAnswer(device.id, 201);
    expect(await send()).toEqual({ sent: 1, dropped: 0, failed: 0 });
    pushService.setAnswer(device.id, 500);
    for (let i = 1; i < PUSH_DEVICE_MAX_FAILURES; i++) expect(await send()).toEqual({ sent: 0, dropped: 0, failed: 1 });
    await failedFor(PUSH_DEVICE_FAILING_MS);
    expect(await endpointsOf(buyer.uid)).toEqual([device.subscription.endpoint]);
    // The last failure of the series: dropped, never tried again.
    expect(await send()).toEqual({ sent: 0, dropped: 1, failed: 0 });
    expect(await endpointsOf(buyer.uid)).toEqual([]);
    const tried = pushService.messages.filter((m) => m.id === device.id).length;
    expect(await send()).toEqual({ sent: 0, dropped: 0, failed: 0 });
    expect(pushService.messages.filter((m) => m.id === device.id)).toHaveLength(tried);
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

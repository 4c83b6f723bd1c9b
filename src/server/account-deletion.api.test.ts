import { getApps, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { startPushServiceStandIn, type PushServiceStandIn } from '../../stand-ins/push-service/server.ts';
import { ALL_ALERTS_ON, TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { pushSubscriber } from '../../tests/support/push-subscriber.ts';
import { productionLikeAccounts } from '../../tests/support/production-accounts.ts';
import { orderRequest, testShopApi } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { ApiError } from '../contract/shop-api.ts';
import { createAlertPreferences } from './alerts/preferences.ts';
import { firebaseAccounts } from './auth.ts';
import { sellablePlans } from './orders/plans.ts';
import { createPushSender } from './push/sender.ts';
import { createPushSubscriptions } from './push/subscriptions.ts';

/**
 * Deleting an account cannot be undone (issue 20 item 11): the server wants a token that is not
 * revoked, of a recent sign-in, and deletes the Firebase account together with detaching the
 * shop's data, so a failure leaves both as they were. Against the real Auth emulator.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;
const PROJECT = 'demo-esim';

let pushService: PushServiceStandIn;
beforeAll(async () => {
  pushService = await startPushServiceStandIn({ applicationServerKey: TEST_ALERTS.vapid.publicKey });
});
afterAll(() => pushService.close());

/**
 * An ID token as the Auth emulator issues them (unsigned: the emulator's tokens carry no
 * signature, and firebase-admin accepts them only while FIREBASE_AUTH_EMULATOR_HOST is set),
 * for a sign-in `minutesAgo` minutes ago.
 */
function emulatorToken(uid: string, email: string, minutesAgo: number): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({
    iss: `https://securetoken.google.com/${PROJECT}`,
    aud: PROJECT,
    auth_time: now - minutesAgo * 60,
    user_id: uid,
    sub: uid,
    iat: now,
    exp: now + 3600,
    email,
    email_verified: false,
    firebase: { identities: { email: [email] }, sign_in_provider: 'password' },
  })}.`;
}

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('account deletion on $name', (driver) => {
  // No webhooks: nothing here is paid or delivered.
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: 'http://127.0.0.1:4329',
    stripe: { webhooks: false },
    partnerNotifications: false,
    api: () => ({ pushServiceStandInOrigin: pushService.url }),
  });
  const admin = () =>
    getAuth(getApps().find((a) => a.name === 'account-deletion-test') ?? initializeApp({ projectId: PROJECT }, 'account-deletion-test'));
  const { call } = bed;
  const openOrder = async (token: string) =>
    (await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) })).status;
  const ownerOfOrders = async (uid: string) => (await bed.db.query('SELECT id FROM orders WHERE uid = $1', [uid])).length;
  /** Tokens count as revoked when their sign-in is older than this (the account's creation, by default). */
  async function accountValidSince(uid: string, minutesAgo: number) {
    const response = await fetch(
      `http://${inject('authEmulatorHost')}/identitytoolkit.googleapis.com/v1/projects/${PROJECT}/accounts:update`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer owner' },
        body: JSON.stringify({ localId: uid, validSince: String(Math.floor(Date.now() / 1000) - minutesAgo * 60) }),
      },
    );
    expect(response.status).toBe(200);
  }
  /** A device subscribed to push, and an alert turned off: the account's other data. */
  async function withAlerts(buyer: { uid: string; idToken: string }) {
    const device = pushSubscriber(pushService);
    const subscribed = await call('/me/push-subscriptions', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify(device.subscription),
    });
    expect(subscribed.status).toBe(204);
    await createAlertPreferences(bed.db).turn(buyer.uid, 'data_80', 'email', false);
    return device;
  }
  const alertDataOf = async (uid: string) => ({
    devices: (await createPushSubscriptions(bed.db).ofUser(uid)).length,
    preferences: (await bed.db.query('SELECT kind FROM alert_preferences WHERE uid = $1', [uid])).length,
  });
  const accountExists = (uid: string) =>
    admin()
      .getUser(uid)
      .then(
        () => true,
        () => false,
      );

  it('deletes the Firebase account with the shop data in one step', async () => {
    const buyer = await signUp();
    expect(await openOrder(buyer.idToken)).toBe(201);
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    expect(await accountExists(buyer.uid)).toBe(false);
    expect(await ownerOfOrders(buyer.uid)).toBe(0);
  });

  it('deletes the account’s push subscriptions and alert choices with it: nothing is sent to it any more', async () => {
    const buyer = await signUp();
    const device = await withAlerts(buyer);
    expect(await alertDataOf(buyer.uid)).toEqual({ devices: 1, preferences: 1 });
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    expect(await alertDataOf(buyer.uid)).toEqual({ devices: 0, preferences: 0 });
    const push = createPushSender({ vapid: TEST_ALERTS.vapid, subscriptions: createPushSubscriptions(bed.db) });
    const message = { kind: 'data_80', title: 'Data', body: '80 %', url: '/my-esims', tag: 'x', lang: 'en' } as const;
    expect(await push.sendToUser(buyer.uid, () => message, { ttlSeconds: 60, urgency: 'normal' })).toEqual({
      sent: 0,
      dropped: 0,
      failed: 0,
    });
    expect(pushService.messages.filter((m) => m.id === device.id)).toEqual([]);
  });

  it('refuses a token of a sign-in more than five minutes old: 403, and nothing changes', async () => {
    const buyer = await signUp();
    expect(await openOrder(buyer.idToken)).toBe(201);
    await accountValidSince(buyer.uid, 60);
    const old = emulatorToken(buyer.uid, buyer.email, 10);
    // The token itself is good: it reads the buyer's orders.
    expect((await call('/orders?lang=de', { token: old })).status).toBe(200);
    const response = await call('/me', { method: 'DELETE', token: old });
    expect(response.status).toBe(403);
    expect(ApiError.parse(await response.json()).error.code).toBe('recent_login_required');
    expect(await accountExists(buyer.uid)).toBe(true);
    expect(await ownerOfOrders(buyer.uid)).toBe(1);
    expect((await call('/me', { method: 'DELETE', token: emulatorToken(buyer.uid, buyer.email, 1) })).status).toBe(204);
  });

  it('refuses a revoked token: 401, and nothing changes', async () => {
    const buyer = await signUp();
    expect(await openOrder(buyer.idToken)).toBe(201);
    // Revocation counts in whole seconds: a token issued in the same second would still pass.
    await new Promise((r) => setTimeout(r, 1_100));
    await admin().revokeRefreshTokens(buyer.uid);
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(401);
    expect(await accountExists(buyer.uid)).toBe(true);
    expect(await ownerOfOrders(buyer.uid)).toBe(1);
  });

  describe("a deleted or disabled account's token, still within its hour, verified as production does (issue 29, defect 5)", () => {
    /** The API with production's verifier; `as` the buyer's token against it. */
    async function productionApi() {
      const api = testShopApi(
        { catalogue, db: bed.db, stripe: bed.stripe, siteUrl: 'http://127.0.0.1:4329', ...bed.stand.options },
        { accounts: productionLikeAccounts(PROJECT) },
      );
      const server = await serveApi(api);
      const as =
        (token: string) =>
        (path: string, method = 'GET', body?: unknown) =>
          fetch(`${server.url}/api${path}`, {
            method,
            headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          }).then((r) => r.status);
      return { server, as };
    }
    /** Every route that stores something for the caller. */
    const writes = (deviceSubscription: unknown, endpoint: string): [string, string, unknown][] => [
      ['POST', '/orders', orderRequest(PLAN)],
      ['PUT', '/me/alerts', ALL_ALERTS_ON],
      ['POST', '/me/push-subscriptions', deviceSubscription],
      ['DELETE', '/me/push-subscriptions', { endpoint }],
    ];

    it('after deletion: every write answers 401 and stores nothing under the deleted account; a read shows nothing', async () => {
      const { server, as } = await productionApi();
      try {
        const buyer = await signUp();
        const api = as(buyer.idToken);
        expect(await api('/orders', 'POST', orderRequest(PLAN))).toBe(201);
        expect(await api('/me', 'DELETE')).toBe(204);
        expect(await accountExists(buyer.uid)).toBe(false);
        const device = pushSubscriber(pushService);
        for (const [method, path, body] of writes(device.subscription, device.subscription.endpoint))
          expect(await api(path, method, body), `${method} ${path}`).toBe(401);
        expect(await ownerOfOrders(buyer.uid)).toBe(0);
        expect(await bed.db.query('SELECT id FROM orders WHERE email = $1', [buyer.email])).toEqual([]);
        expect(await alertDataOf(buyer.uid)).toEqual({ devices: 0, preferences: 0 });
        // Reads are verified offline, as in production: the token passes, and there is nothing of the account to see.
        expect(await api('/orders')).toBe(200);
      } finally {
        await server.close();
      }
    });

    it('after the account was disabled (blocked): every write answers 403 (account_blocked) and stores nothing', async () => {
      const { server, as } = await productionApi();
      try {
        const buyer = await signUp();
        const device = pushSubscriber(pushService);
        await admin().updateUser(buyer.uid, { disabled: true });
        for (const [method, path, body] of writes(device.subscription, device.subscription.endpoint))
          expect(await as(buyer.idToken)(path, method, body), `${method} ${path}`).toBe(403);
        expect(await ownerOfOrders(buyer.uid)).toBe(0);
        expect(await alertDataOf(buyer.uid)).toEqual({ devices: 0, preferences: 0 });
      } finally {
        await server.close();
      }
    });
  });

  it('leaves the shop data attached when the accounts service refuses, so the buyer can try again', async () => {
    const real = firebaseAccounts(PROJECT);
    const refusing = testShopApi(
      { catalogue, db: bed.db, stripe: bed.stripe, siteUrl: 'http://127.0.0.1:4329', ...bed.stand.options },
      { accounts: { ...real, deleteAccount: () => Promise.reject(new Error('auth/internal-error')) } },
    );
    const server = await serveApi(refusing);
    try {
      const buyer = await signUp();
      expect(await openOrder(buyer.idToken)).toBe(201);
      await withAlerts(buyer);
      const response = await fetch(`${server.url}/api/me`, { method: 'DELETE', headers: { Authorization: `Bearer ${buyer.idToken}` } });
      expect(response.status).toBe(502);
      expect(ApiError.parse(await response.json()).error.code).toBe('account_not_deleted');
      expect(await accountExists(buyer.uid)).toBe(true);
      expect(await ownerOfOrders(buyer.uid)).toBe(1);
      const [open] = await bed.db.query<{ state: string }>('SELECT state FROM orders WHERE uid = $1', [buyer.uid]);
      expect(open!.state).toBe('pending_payment');
      expect(await alertDataOf(buyer.uid)).toEqual({ devices: 1, preferences: 1 });
    } finally {
      await server.close();
    }
  });
});

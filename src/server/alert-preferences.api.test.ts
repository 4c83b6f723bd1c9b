import { describe, expect, inject, it } from 'vitest';
import { ALL_ALERTS_ON, TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, testCatalogue } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { AlertPreferences, AlertUnsubscribed, ApiError } from '../contract/shop-api.ts';
import { unsubscribeToken, unsubscribeUrl } from './alerts/unsubscribe-token.ts';

/**
 * Issue 23: the alert choices saved on the server (GET and PUT /me/alerts), and the alert e-mails'
 * one-click unsubscribe (POST /alerts/unsubscribe, RFC 8058), over HTTP with Auth emulator accounts.
 */
const SITE = 'http://127.0.0.1:4330';
const { catalogue, PLAN } = testCatalogue();

/** The same account signed in again, as on a second device: a token of its own. */
async function signInAgain(email: string): Promise<string> {
  const response = await fetch(
    `http://${inject('authEmulatorHost')}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-key`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct-horse-42', returnSecureToken: true }),
    },
  );
  return ((await response.json()) as { idToken: string }).idToken;
}

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('alert preferences on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: SITE, stripe: { webhooks: false }, partnerNotifications: false });
  const { call } = bed;
  /** A buyer with an order (unpaid will do): whom alert e-mails, and so unsubscribe links, are for. */
  const buyerWithOrder = async () => {
    const buyer = await signUp();
    const ordered = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    expect(ordered.status).toBe(201);
    return buyer;
  };
  const preferencesOf = async (token: string) => {
    const response = await call('/me/alerts', { token });
    expect(response.status).toBe(200);
    return AlertPreferences.parse(await response.json());
  };
  const put = (token: string, body: unknown) => call('/me/alerts', { method: 'PUT', token, body: JSON.stringify(body) });
  /** The e-mail's List-Unsubscribe URL, as a mail program would POST to it (RFC 8058). */
  const oneClick = (token: string, init: RequestInit = {}) =>
    fetch(unsubscribeUrl(`${bed.api.url}/api`, token), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      ...init,
    });

  it('has every alert on for a new buyer, on every channel its kind has, and never caches the answer', async () => {
    const buyer = await signUp();
    const response = await call('/me/alerts', { token: buyer.idToken });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual(ALL_ALERTS_ON);
  });

  it('saves what one device puts, and another device of the same account reads it', async () => {
    const buyer = await signUp();
    const chosen: AlertPreferences = { ...ALL_ALERTS_ON, esim_ready: { email: false, push: false }, data_80: { email: false, push: true } };
    const saved = await put(buyer.idToken, chosen);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual(chosen);
    expect(await preferencesOf(await signInAgain(buyer.email))).toEqual(chosen);
    // Another buyer's stay their own.
    expect(await preferencesOf((await signUp()).idToken)).toEqual(ALL_ALERTS_ON);
  });

  it('refuses choices that are not the whole table of booleans, and keeps what was saved', async () => {
    const buyer = await signUp();
    for (const body of [
      { ...ALL_ALERTS_ON, esim_ready: { email: true, push: true } }, // its e-mail is the order e-mail, always sent
      { ...ALL_ALERTS_ON, data_80: { email: 'no', push: true } },
      { data_80: ALL_ALERTS_ON.data_80 },
      { ...ALL_ALERTS_ON, newsletter: { email: true, push: true } },
      [],
    ]) {
      const response = await put(buyer.idToken, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(ApiError.parse(await response.json()).error.code).toBe('bad_request');
    }
    const notJson = await call('/me/alerts', { method: 'PUT', token: buyer.idToken, body: 'data_80=off' });
    expect(notJson.status).toBe(400);
    expect(await preferencesOf(buyer.idToken)).toEqual(ALL_ALERTS_ON);
  });

  it('answers 401 without a valid sign-in, and /me answers as before', async () => {
    for (const token of [undefined, 'not-a-token']) {
      expect((await call('/me/alerts', token ? { token } : {})).status).toBe(401);
      expect((await call('/me/alerts', { method: 'PUT', body: JSON.stringify(ALL_ALERTS_ON), ...(token && { token }) })).status).toBe(401);
    }
    expect((await call('/me', { method: 'DELETE' })).status).toBe(401);
    expect((await call('/me/nothing-here', { token: (await signUp()).idToken })).status).toBe(404);
  });

  it('lets the site save from its own origin (CORS preflight of the PUT)', async () => {
    const preflight = await call('/me/alerts', {
      method: 'OPTIONS',
      headers: { Origin: SITE, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
  });

  it('turns off exactly that kind’s e-mails on a one-click POST, whoever asks, and again without harm', async () => {
    const buyer = await buyerWithOrder();
    const token = unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'data_used_up');
    for (let i = 0; i < 2; i++) {
      const response = await oneClick(token);
      expect(response.status).toBe(200);
      expect(AlertUnsubscribed.parse(await response.json())).toEqual({ kind: 'data_used_up' });
    }
    expect(await preferencesOf(buyer.idToken)).toEqual({ ...ALL_ALERTS_ON, data_used_up: { email: false, push: true } });
  });

  it('takes the site page’s empty POST from the site’s origin, and tells the page it may read the answer', async () => {
    const buyer = await buyerWithOrder();
    const token = unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'validity_1_day');
    const response = await oneClick(token, { headers: { Origin: SITE }, body: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(await preferencesOf(buyer.idToken)).toEqual({ ...ALL_ALERTS_ON, validity_1_day: { email: false, push: true } });
    const elsewhere = await oneClick(token, { headers: { Origin: 'https://evil.example' }, body: null });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a forged or foreign token with 400 invalid_token, and changes nothing', async () => {
    const buyer = await buyerWithOrder();
    const genuine = unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'data_80');
    const [uid, , mac] = genuine.split('.');
    const otherKind = unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'data_used_up').split('.')[1];
    for (const token of [
      unsubscribeToken('another-shop-secret', buyer.uid, 'data_80'),
      `${uid}.${otherKind}.${mac}`,
      unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'esim_ready'), // a kind without e-mail
      'garbage',
      '',
    ]) {
      const response = await oneClick(token);
      expect(response.status, token).toBe(400);
      expect(ApiError.parse(await response.json()).error.code).toBe('invalid_token');
    }
    expect(await preferencesOf(buyer.idToken)).toEqual(ALL_ALERTS_ON);
  });

  it('answers a deleted account’s link as done, and stores nothing of it again', async () => {
    const buyer = await buyerWithOrder();
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    const response = await oneClick(unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'data_80'));
    expect(response.status).toBe(200);
    expect(await bed.db.query('SELECT * FROM alert_preferences WHERE uid = $1', [buyer.uid])).toEqual([]);
  });

  it('does not unsubscribe on a GET of the link (scanners open links): it sends the reader to the site’s page', async () => {
    const buyer = await buyerWithOrder();
    const token = unsubscribeToken(TEST_ALERTS.secret, buyer.uid, 'data_80');
    const response = await fetch(`${bed.api.url}/api/alerts/unsubscribe?token=${token}&lang=de`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${SITE}/de/unsubscribe?token=${token}`);
    expect(await preferencesOf(buyer.idToken)).toEqual(ALL_ALERTS_ON);
  });
});

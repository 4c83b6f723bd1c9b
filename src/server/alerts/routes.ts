import { Hono, type MiddlewareHandler } from 'hono';
import { ALERT_KIND_CHANNELS, AlertPreferences, ERROR_CODES, type AlertUnsubscribed } from '../../contract/shop-api.ts';
import { DEFAULT_LOCALE, isLocale } from '../../i18n/locales.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Queryable } from '../db/db.types.ts';
import { fail, siteCors } from '../http.ts';
import { jsonBody } from '../validation.ts';
import type { AlertPreferenceStore } from './preferences.types.ts';
import { readUnsubscribeToken, unsubscribePageUrl } from './unsubscribe-token.ts';

/** The buyer's alert choices, mounted at /me/alerts: GET them, PUT them all (the profile's table). */
export function alertPreferenceRoutes(deps: { auth: MiddlewareHandler<BuyerEnv>; alertPreferences: AlertPreferenceStore }) {
  const { alertPreferences } = deps;
  return new Hono<BuyerEnv>()
    .use('/', deps.auth)
    .get('/', async (c) => c.json(await alertPreferences.get(c.var.caller.uid)))
    .put('/', ...jsonBody(AlertPreferences), async (c) => {
      const { uid } = c.var.caller;
      await alertPreferences.set(uid, c.req.valid('json'));
      return c.json(await alertPreferences.get(uid));
    });
}

/**
 * One-click unsubscribe, mounted at /alerts (RFC 8058): no sign-in, the signed token names the
 * account and the kind. A mail program POSTs `List-Unsubscribe=One-Click` to the e-mail's header
 * URL; the site's page POSTs with an empty body after the reader's click. A GET (a link opened, a
 * scanner following it) changes nothing: it is sent on to that page.
 */
export function alertUnsubscribeRoutes(deps: {
  db: Queryable;
  alertPreferences: AlertPreferenceStore;
  alertsSecret: string;
  allowedOrigins: ReadonlySet<string>;
  siteUrl: string;
}) {
  const { db, alertPreferences, alertsSecret, allowedOrigins, siteUrl } = deps;
  const invalid = (c: Parameters<typeof fail>[0]) =>
    fail(c, 400, ERROR_CODES.invalidToken, 'This unsubscribe link is not valid. Manage your alerts in your profile.');
  return new Hono()
    .use('/unsubscribe', siteCors(allowedOrigins, { allowMethods: ['POST'] }))
    .post('/unsubscribe', async (c) => {
      const token = readUnsubscribeToken(alertsSecret, c.req.query('token') ?? '');
      // Only e-mail kinds get tokens; anything else was not made here.
      if (!token || !ALERT_KIND_CHANNELS[token.kind].includes('email')) return invalid(c);
      // Alert e-mails come only to buyers with orders; a deleted account has none left under its
      // uid (they were detached): nothing goes to it any more, and nothing of it is stored again.
      const [buyer] = await db.query('SELECT 1 FROM orders WHERE uid = $1 LIMIT 1', [token.uid]);
      if (buyer) await alertPreferences.turn(token.uid, token.kind, 'email', false);
      return c.json({ kind: token.kind } satisfies AlertUnsubscribed, 200, { 'Cache-Control': 'no-store' });
    })
    .get('/unsubscribe', (c) => {
      const token = c.req.query('token');
      if (!token) return invalid(c);
      const lang = c.req.query('lang');
      return c.redirect(unsubscribePageUrl(siteUrl, isLocale(lang) ? lang : DEFAULT_LOCALE, token), 303);
    });
}

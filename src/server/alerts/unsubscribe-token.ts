import { createHmac, timingSafeEqual } from 'node:crypto';
import { AlertKind } from '../../contract/shop-api.ts';
import { DEFAULT_LOCALE, type Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';

/**
 * The alert e-mails' one-click unsubscribe tokens (issue 23, RFC 8058): `<uid>.<kind>.<mac>`, the
 * first two base64url, the MAC an HMAC-SHA256 of both under ALERTS_SECRET. No expiry: a link in an
 * old e-mail must keep working. The token names only the account and the kind, so it can turn off
 * that kind's e-mail and nothing else.
 */

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest();

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export function unsubscribeToken(secret: string, uid: string, kind: AlertKind): string {
  const payload = `${encode(uid)}.${encode(kind)}`;
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The account and kind a token was signed for; undefined for anything else (tampered, another key, garbage). */
export function readUnsubscribeToken(secret: string, token: string): { uid: string; kind: AlertKind } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return undefined;
  const [uid, kind, signature] = parts as [string, string, string];
  // Compared as text: base64url decoding ignores a last character's spare bits, the text does not.
  const given = Buffer.from(signature);
  const expected = Buffer.from(mac(secret, `${uid}.${kind}`).toString('base64url'));
  // timingSafeEqual needs equal lengths; a length that differs says nothing of the key.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const parsedKind = AlertKind.safeParse(Buffer.from(kind, 'base64url').toString('utf8'));
  return parsedKind.success ? { uid: Buffer.from(uid, 'base64url').toString('utf8'), kind: parsedKind.data } : undefined;
}

/**
 * The List-Unsubscribe URL (the API's POST /alerts/unsubscribe); publicApiUrl without a trailing
 * slash. With `lang`, a GET of it (a mail program that only opens links) lands on the page in that language.
 */
export function unsubscribeUrl(publicApiUrl: string, token: string, lang?: Locale): string {
  return `${publicApiUrl}/alerts/unsubscribe?token=${encodeURIComponent(token)}${lang && lang !== DEFAULT_LOCALE ? `&lang=${lang}` : ''}`;
}

/**
 * The site's unsubscribe page (the e-mail footer's visible link): it POSTs the token after a click,
 * so a link scanner that opens every link unsubscribes nobody. siteUrl without a trailing slash.
 */
export function unsubscribePageUrl(siteUrl: string, lang: Locale, token: string): string {
  return `${siteUrl}${localizePath(lang, '/unsubscribe')}?token=${encodeURIComponent(token)}`;
}

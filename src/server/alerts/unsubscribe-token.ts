import { AlertKind } from '../../contract/shop-api.ts';
import { DEFAULT_LOCALE, type Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { readSignedToken, signedToken } from '../signed-token.ts';

/**
 * The alert e-mails' one-click unsubscribe tokens (issue 23, RFC 8058): `<uid>.<kind>.<mac>`
 * (signed-token.ts), under ALERTS_SECRET. No expiry: a link in an
 * old e-mail must keep working. The token names only the account and the kind, so it can turn off
 * that kind's e-mail and nothing else.
 */

export function unsubscribeToken(secret: string, uid: string, kind: AlertKind): string {
  return signedToken(secret, [uid, kind]);
}

/** The account and kind a token was signed for; undefined for anything else (tampered, another key, garbage). */
export function readUnsubscribeToken(secret: string, token: string): { uid: string; kind: AlertKind } | undefined {
  const [uid, kind] = readSignedToken(secret, token, 2) ?? [];
  const parsedKind = AlertKind.safeParse(kind);
  return uid !== undefined && parsedKind.success ? { uid, kind: parsedKind.data } : undefined;
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

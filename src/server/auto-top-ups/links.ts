import { AUTO_TOP_UP_ROUTE } from '../../config/site.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { readSignedToken, signedToken } from '../signed-token.ts';

/**
 * The links in automatic top-ups' e-mails and pushes (issue 49), signed (signed-token.ts): one pays
 * a refused top-up on-session (it names that order), one turns automatic top-ups of an eSIM off (it
 * names the eSIM). Both lead to the site's page, which acts only on the reader's click, so a link
 * scanner that opens every link pays for nothing and turns nothing off. No expiry in the token:
 * the page checks the order and the eSIM as they are then.
 */
export type AutoTopUpLink = { purpose: 'pay'; orderId: string } | { purpose: 'off'; esimId: string };

export function autoTopUpToken(secret: string, link: AutoTopUpLink): string {
  return signedToken(secret, link.purpose === 'pay' ? ['pay', link.orderId] : ['off', link.esimId]);
}

export function readAutoTopUpToken(secret: string, token: string): AutoTopUpLink | undefined {
  const [purpose, id] = readSignedToken(secret, token, 2) ?? [];
  if (id === undefined) return undefined;
  if (purpose === 'pay') return { purpose, orderId: id };
  return purpose === 'off' ? { purpose, esimId: id } : undefined;
}

/** The site's page for a link, as a same-origin path (a push's) or, with siteUrl, a whole URL (an e-mail's). */
export function autoTopUpPagePath(lang: Locale, token: string): string {
  return `${localizePath(lang, AUTO_TOP_UP_ROUTE)}?token=${encodeURIComponent(token)}`;
}

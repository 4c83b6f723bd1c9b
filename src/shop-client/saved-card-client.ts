import type { SavedCardAnswer, SavedCardView } from '../contract/shop-api.ts';
import type { Locale } from '../i18n/locales.ts';
import type { ShopCall } from './shop-client.ts';

/**
 * The saved card's calls (issue 49) on the shop client's own (shop-client.ts shopCall): apart from
 * it, so only the pages that show the card (My eSIMs, the profile) carry them. Answers checked by
 * hand with checks of their own, which the automatic top-ups' client (auto-top-up-client.ts) shares:
 * the shop client's would add their exports to the chunk every signed-in page loads (the chat
 * page's JavaScript is at its budget).
 */

/** A JSON object. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
/** A JSON string. */
export const isString = (value: unknown): value is string => typeof value === 'string';
/** A moment as the shop API writes it (ISO 8601). */
export const isMoment = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));

const isNumberOrNull = (value: unknown) => value === null || typeof value === 'number';
/** A saved card as the shop API describes it: brand, last four digits and expiry, each possibly unknown, and when it was saved. */
export const isSavedCard = (card: unknown): card is SavedCardView =>
  isObject(card) &&
  (card.brand === null || isString(card.brand)) &&
  (card.last4 === null || isString(card.last4)) &&
  isNumberOrNull(card.expMonth) &&
  isNumberOrNull(card.expYear) &&
  isMoment(card.savedAt);
const isSavedCardAnswer = (body: unknown): body is SavedCardAnswer => isObject(body) && (body.card === null || isSavedCard(body.card));

export function createSavedCardClient(call: ShopCall) {
  return {
    /** The buyer's saved card, or none (the profile shows it). */
    getSavedCard: () => call('/me/card', isSavedCardAnswer),
    /** Stripe's page that saves a card (it comes back to My eSIMs, at the eSIM's automatic top-ups when one is named). */
    saveCard: (lang: Locale, esimId?: string) =>
      call('/me/card', (body): body is { url: string } => isObject(body) && isString(body.url) && /^https?:\/\//.test(body.url), {
        method: 'POST',
        body: { lang, ...(esimId && { esimId }) },
      }),
    /** Stripe's page came back with this session: the card it saved, read from Stripe. */
    cardSaved: (sessionId: string) => call('/me/card/saved', isSavedCardAnswer, { method: 'POST', body: { sessionId } }),
    /** Removes the saved card (at Stripe too); every eSIM's automatic top-ups turn off. */
    removeCard: () => call('/me/card', (body): body is void => body === undefined, { method: 'DELETE' }),
  };
}

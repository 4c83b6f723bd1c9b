import type { AutoTopUpRequest, AutoTopUpView, SavedCardAnswer, SavedCardView } from '../contract/shop-api.ts';
import type { Locale } from '../i18n/locales.ts';
import type { ShopCall } from './shop-client.ts';

/**
 * The automatic top-ups' calls (issue 49) on the shop client's own (shop-client.ts shopCall): apart
 * from it, so only My eSIMs' JavaScript carries them. Answers checked by hand, as the shop client's,
 * with checks of their own: sharing the shop client's would add their exports to the chunk every
 * signed-in page loads (the chat page's JavaScript is at its budget).
 */

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isMoment = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));
const isPrice = (value: unknown) => isObject(value) && Number.isInteger(value.amountMinor) && isString(value.currency);
/** A top-up to choose: its id and price, its data and days (the shop API checked the rest against the contract). */
const isTopUpPlan = (plan: unknown) =>
  isObject(plan) && isString(plan.id) && isPrice(plan.price) && isObject(plan.dataAmount) && Number.isInteger(plan.validity);

const isNumberOrNull = (value: unknown) => value === null || typeof value === 'number';
const isSavedCard = (card: unknown): card is SavedCardView =>
  isObject(card) &&
  (card.brand === null || isString(card.brand)) &&
  (card.last4 === null || isString(card.last4)) &&
  isNumberOrNull(card.expMonth) &&
  isNumberOrNull(card.expYear) &&
  isMoment(card.savedAt);
const isSavedCardAnswer = (body: unknown): body is SavedCardAnswer => isObject(body) && (body.card === null || isSavedCard(body.card));
const isSetting = (setting: unknown) =>
  setting === null ||
  (isObject(setting) &&
    typeof setting.enabled === 'boolean' &&
    (setting.packageId === null || isString(setting.packageId)) &&
    typeof setting.maxCount === 'number' &&
    isPrice(setting.monthlyCap) &&
    isString(setting.consentText) &&
    isMoment(setting.consentedAt));
const isCharge = (charge: unknown) =>
  isObject(charge) &&
  isString(charge.orderId) &&
  isString(charge.number) &&
  isString(charge.state) &&
  isPrice(charge.total) &&
  isMoment(charge.createdAt);
const isAutoTopUpView = (body: unknown): body is AutoTopUpView =>
  isObject(body) &&
  isString(body.esimId) &&
  isString(body.currency) &&
  isSetting(body.setting) &&
  (body.card === null || isSavedCard(body.card)) &&
  Array.isArray(body.offers) &&
  body.offers.every(isTopUpPlan) &&
  Array.isArray(body.charges) &&
  body.charges.every(isCharge);

export function createAutoTopUpClient(call: ShopCall) {
  const path = (esimId: string) => `/auto-top-ups/esims/${encodeURIComponent(esimId)}`;
  return {
    /** An eSIM's automatic top-ups: the setting, the saved card, the top-ups to choose from and those so far. */
    getAutoTopUps: (esimId: string, lang: Locale) => call(`${path(esimId)}?lang=${lang}`, isAutoTopUpView),
    /** Turns them on (or changes them) with the consent the page showed for these choices. */
    saveAutoTopUps: (esimId: string, request: AutoTopUpRequest) => call(path(esimId), isAutoTopUpView, { method: 'PUT', body: request }),
    turnOffAutoTopUps: (esimId: string, lang: Locale) => call(`${path(esimId)}?lang=${lang}`, isAutoTopUpView, { method: 'DELETE' }),
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

import type { AutoTopUpRequest, AutoTopUpView } from '../contract/shop-api.ts';
import type { Locale } from '../i18n/locales.ts';
import { isMoment, isObject, isSavedCard, isString } from './saved-card-client.ts';
import type { ShopCall } from './shop-client.ts';

/**
 * The automatic top-ups' calls (issue 49) on the shop client's own (shop-client.ts shopCall): apart
 * from it, so only My eSIMs' JavaScript carries them. Answers checked by hand with the saved card's
 * checks (saved-card-client.ts, whose calls the card has), not the shop client's: those would add
 * their exports to the chunk every signed-in page loads (the chat page's JavaScript is at its budget).
 */

const isPrice = (value: unknown) => isObject(value) && Number.isInteger(value.amountMinor) && isString(value.currency);
/** A top-up to choose: its id and price, its data and days (the shop API checked the rest against the contract). */
const isTopUpPlan = (plan: unknown) =>
  isObject(plan) && isString(plan.id) && isPrice(plan.price) && isObject(plan.dataAmount) && Number.isInteger(plan.validity);

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
    /** Turns them off; the answer is the eSIM's automatic top-ups as they are then. */
    turnOffAutoTopUps: (esimId: string, lang: Locale) => call(`${path(esimId)}?lang=${lang}`, isAutoTopUpView, { method: 'DELETE' }),
  };
}

import type { Currency } from '../../config/currencies.ts';
import type { AutoTopUpRequest, AutoTopUpView, TopUpPlans } from '../../contract/shop-api.ts';
import type { PerEuro } from '../../pricing/exchange-rates.ts';
import type { Db } from '../db/db.types.ts';
import type { OwnedEsim } from '../esims/store.types.ts';
import { consentText } from '../../lib/auto-top-up-consent.ts';
import { esimsTemplates } from '../mail/translations.ts';
import { orderNumber } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { topUpPlans } from '../orders/top-up-answers.ts';
import { topUpsOf, type TopUpOffer } from '../orders/top-ups.ts';
import type { Partners } from '../partner/registry.types.ts';
import { cardView } from './saved-card.ts';
import * as store from './store.ts';

/**
 * An eSIM's automatic top-ups as its owner sets them (issue 49): the consent in the words the page
 * showed, in their language, with the package and limits they chose, stored with when; the card
 * they use; the top-ups so far.
 */

interface SettingsDeps {
  db: Db;
  partners: Partners;
  rates: PerEuro;
}

/**
 * The eSIM's top-ups as the partner lists them now, in its own currency (none when it gets none);
 * undefined when the partner did not answer, which is no "cannot be topped up": the caller says try again.
 */
export async function offersOf(deps: SettingsDeps, owned: OwnedEsim): Promise<TopUpOffer[] | undefined> {
  const topUps = await topUpsOf(owned, deps.partners, { currency: owned.order.currency as Currency, rates: deps.rates });
  if ('offers' in topUps) return topUps.offers;
  return 'none' in topUps && topUps.none === 'partner_unavailable' ? undefined : [];
}

/** The view with the eSIM's top-ups listed now (offersOf): none listed when the partner did not answer. */
export async function autoTopUpView(
  deps: SettingsDeps,
  owned: OwnedEsim,
  destination: TopUpPlans['destination'],
  offers: TopUpOffer[],
): Promise<AutoTopUpView> {
  const { db } = deps;
  const { order } = owned;
  const setting = await store.settingOf(db, order.id);
  const card = order.uid ? await store.savedCard(db, order.uid) : undefined;
  const charges = await db.query<OrderRow>(
    `SELECT * FROM orders WHERE kind = 'auto' AND top_up_of = $1 AND state <> 'pending_payment' ORDER BY created_at DESC LIMIT 20`,
    [order.id],
  );
  return {
    esimId: order.id,
    currency: order.currency,
    setting: setting
      ? {
          enabled: setting.enabled,
          packageId: setting.package_id,
          maxCount: setting.max_count,
          monthlyCap: { amountMinor: setting.monthly_cap_minor, currency: setting.currency },
          consentText: setting.consent_text,
          consentedAt: setting.consented_at.toISOString(),
        }
      : null,
    card: cardView(card),
    offers: topUpPlans(destination, offers).plans,
    charges: charges.map((charge) => ({
      orderId: charge.id,
      number: orderNumber(charge),
      state: charge.state,
      total: { amountMinor: charge.amount_minor, currency: charge.currency },
      createdAt: charge.created_at.toISOString(),
    })),
  };
}

/** Why the buyer's choices cannot be kept: no top-ups for this eSIM, a package it does not have, a cap below the package's price, the partner not answering. */
export type SettingRefusal = 'no_top_ups' | 'unknown_top_up' | 'cap_too_low' | 'partner_unavailable';

/**
 * Turns the eSIM's automatic top-ups on (or changes them) with the consent in the words the page
 * showed for these choices. The package must be one of the eSIM's top-ups now, and the monthly
 * limit must allow at least one of it.
 */
export async function saveAutoTopUps(
  deps: SettingsDeps,
  owned: OwnedEsim,
  request: AutoTopUpRequest,
): Promise<{ offers: TopUpOffer[] } | { refused: SettingRefusal }> {
  const offers = await offersOf(deps, owned);
  if (!offers) return { refused: 'partner_unavailable' };
  if (offers.length === 0) return { refused: 'no_top_ups' };
  const offer = request.packageId === null ? undefined : offers.find((o) => o.id === request.packageId);
  if (request.packageId !== null && !offer) return { refused: 'unknown_top_up' };
  const cap = { amountMinor: request.monthlyCapMinor, currency: owned.order.currency };
  if (cap.amountMinor < (offer ?? offers[0]!).price.amountMinor) return { refused: 'cap_too_low' };
  await deps.db.transaction((tx) =>
    store.saveSetting(
      tx,
      {
        esimOrderId: owned.order.id,
        uid: owned.order.uid!,
        packageId: request.packageId,
        maxCount: request.maxCount,
        monthlyCapMinor: request.monthlyCapMinor,
        currency: owned.order.currency,
        consentText: consentText(
          esimsTemplates(request.lang).autoTopUp,
          request.lang,
          offer && { ...offer.pkg, price: offer.price },
          request.maxCount,
          cap,
        ),
        consentLang: request.lang,
      },
      'buyer',
    ),
  );
  return { offers };
}

import type Stripe from 'stripe';
import { consentText } from '../../lib/auto-top-up-consent.ts';
import type { Db } from '../db/db.types.ts';
import { esimsTemplates } from '../mail/translations.ts';
import type { CheckoutAutoTopUps } from '../orders/place-order.ts';
import { customerOf } from './saved-card.ts';
import { saveSetting } from './store.ts';

export function checkoutAutoTopUps(db: Db, stripe: Stripe): CheckoutAutoTopUps {
  return {
    customerFor: async (caller) => (await customerOf(db, stripe, caller)).stripe_customer_id,
    record: (order, lang, choice) =>
      db.transaction(async (tx) => {
        const cap = { amountMinor: choice.monthlyCapMinor, currency: order.currency };
        await saveSetting(
          tx,
          {
            esimOrderId: order.id,
            uid: order.uid!,
            packageId: null,
            maxCount: choice.maxCount,
            monthlyCapMinor: choice.monthlyCapMinor,
            currency: order.currency,
            consentText: consentText(esimsTemplates(lang).autoTopUp, lang, undefined, choice.maxCount, cap),
            consentLang: lang,
          },
          'buyer at checkout',
        );
      }),
  };
}

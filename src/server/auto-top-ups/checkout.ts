import type Stripe from 'stripe';
import type { Locale } from '../../i18n/locales.ts';
import { consentText } from '../../features/auto-top-ups/consent.ts';
import type { Db } from '../db/db.types.ts';
import { esimsTemplates } from '../mail/translations.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { customerOf } from './saved-card.ts';
import { saveSetting, turnOff } from './store.ts';

/** What the buyer ticked at checkout (CreateOrderRequest.autoTopUp): at most how many, and how much a month. */
export interface CheckoutChoice {
  maxCount: number;
  monthlyCapMinor: number;
}

/** Automatic top-ups as checkout turns them on (issue 49 item 1): the card saved by the payment itself. */
export interface CheckoutAutoTopUps {
  /** The buyer's Customer at Stripe (made the first time): the payment page saves the card on it. */
  customerFor(caller: { uid: string; email: string | null }): Promise<string>;
  /**
   * The consent ticked for the order's eSIM (its id is the order's), in the page's words: the
   * cheapest top-up offered then, within the limits. Unticked on the same open order, taken back.
   */
  record(order: Pick<OrderRow, 'id' | 'uid' | 'currency'>, lang: Locale, choice: CheckoutChoice | undefined): Promise<void>;
}

export function checkoutAutoTopUps(db: Db, stripe: Stripe): CheckoutAutoTopUps {
  return {
    customerFor: async (caller) => (await customerOf(db, stripe, caller)).stripe_customer_id,
    record: (order, lang, choice) =>
      db.transaction(async (tx) => {
        if (!choice) return void (await turnOff(tx, order.id, 'buyer at checkout', 'not ticked at checkout'));
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

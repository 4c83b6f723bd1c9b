import type { Locale } from '../../i18n/locales.ts';
import { checkoutFormMessages, type CheckoutFormMessages } from '../checkout/chosen-plan-messages.ts';
import { checkoutNamespace, type CheckoutNamespace } from '../checkout/messages.ts';
import { esimsNamespace } from '../esims/messages.ts';
import type { TravellerFieldMessages } from '../travellers/messages.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';

/** What the cart page (CartPage.tsx) says: its own texts, the checkout's totals and the consents form. */
export type CartPageMessages = CheckoutNamespace['cart'] & {
  total: string;
  vatIncluded: string;
  retry: string;
  form: CheckoutFormMessages;
  /** A traveller's name or address that is not right (esims.json traveller). */
  travellerProblems: TravellerFieldMessages;
};

export function cartPageMessages(locale: Locale): CartPageMessages {
  const { cart, checkout } = checkoutNamespace(locale);
  return {
    ...cart,
    total: checkout.total,
    vatIncluded: checkout.vatIncluded,
    retry: checkout.retry,
    form: checkoutFormMessages(locale),
    travellerProblems: pickMessages(esimsNamespace(locale).traveller, ['nameMissing', 'emailInvalid']),
  };
}

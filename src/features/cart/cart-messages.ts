import type { Locale } from '../../i18n/locales.ts';
import { checkoutFormMessages, type CheckoutFormMessages } from '../checkout/chosen-plan-messages.ts';
import { checkoutNamespace, type CheckoutNamespace } from '../checkout/messages.ts';

/** What the cart page (CartPage.tsx) says: its own texts, the checkout's totals and the consents form. */
export type CartPageMessages = CheckoutNamespace['cart'] & {
  total: string;
  vatIncluded: string;
  retry: string;
  form: CheckoutFormMessages;
};

export function cartPageMessages(locale: Locale): CartPageMessages {
  const { cart, checkout } = checkoutNamespace(locale);
  return { ...cart, total: checkout.total, vatIncluded: checkout.vatIncluded, retry: checkout.retry, form: checkoutFormMessages(locale) };
}

import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/** The checkout namespace (checkout, payment success): what the checkout islands' builders pick from. */
export type CheckoutNamespace = NamespaceMessages<'checkout'>;

export function checkoutNamespace(locale: Locale): CheckoutNamespace {
  return namespaceMessages(locale, 'checkout');
}

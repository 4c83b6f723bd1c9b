import type { Locale } from '../../i18n/locales.ts';
import { DELIVERY_PROMISE_MS } from '../../config/constants.ts';
import { useTranslations } from '../../i18n/t.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/** The checkout namespace (checkout, payment success): what the checkout islands' builders pick from. */
export type CheckoutNamespace = NamespaceMessages<'checkout'>;

export function checkoutNamespace(locale: Locale): CheckoutNamespace {
  return namespaceMessages(locale, 'checkout');
}

/** What the shop promises about delivery, in this language: its time is DELIVERY_PROMISE_MS, the one place it is set. */
export function deliveryPromiseText(locale: Locale): string {
  return useTranslations(locale, 'checkout')('checkout.deliveryPromise', { count: Math.round(DELIVERY_PROMISE_MS / 60_000) });
}

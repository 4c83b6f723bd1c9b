import { fill } from '../i18n/fill.ts';
import type { Locale } from '../i18n/locales.ts';
import type { OrderState, OrderView, PaymentMethod } from '../contract/shop-api.ts';
import { formatDataAmount, formatValidity } from '../lib/format.ts';

/** How the pages name an order's parts in the page's language, in the browser (no i18next). */

/** The payment method types the pages translate; brands keep their own names (METHOD_BRANDS), any other is 'other'. */
export type MethodNames = Record<'card' | 'sepa_debit' | 'other', string>;

/** The states in which the payment has arrived: the confirmation moves on to My eSIMs. */
export const PAID_STATES: readonly OrderState[] = ['paid', 'provisioning', 'delivered'];
/** The states in which nothing was charged and the order is over. */
export const UNPAID_END_STATES = ['payment_failed', 'expired', 'cancelled'] as const satisfies readonly OrderState[];

// Card networks as Stripe names them (lowercase), written as their owners write them.
const BRANDS: Record<string, string> = {
  amex: 'American Express',
  cartes_bancaires: 'Cartes Bancaires',
  diners: 'Diners Club',
  discover: 'Discover',
  eftpos_au: 'eftpos',
  jcb: 'JCB',
  mastercard: 'Mastercard',
  unionpay: 'UnionPay',
  visa: 'Visa',
};

// Stripe's payment method types that are brands: the same name in every language.
const METHOD_BRANDS: Record<string, string> = {
  amazon_pay: 'Amazon Pay',
  bancontact: 'Bancontact',
  eps: 'EPS',
  ideal: 'iDEAL',
  klarna: 'Klarna',
  link: 'Link',
  paypal: 'PayPal',
  revolut_pay: 'Revolut Pay',
};

/** 'Visa •••• 4242' for a card with its digits, a brand's name ('PayPal'), else the method's translated name. */
export function paymentMethodText(method: PaymentMethod, names: MethodNames): string {
  if (method.type === 'card' && method.brand && method.last4)
    return `${Object.hasOwn(BRANDS, method.brand) ? BRANDS[method.brand] : method.brand} •••• ${method.last4}`;
  if (Object.hasOwn(METHOD_BRANDS, method.type)) return METHOD_BRANDS[method.type]!;
  return Object.hasOwn(names, method.type) ? names[method.type as keyof MethodNames] : names.other;
}

/** '5 GB data plan, 30 days' with the page's template (checkout.plan). */
export const planText = (order: OrderView, template: string, locale: Locale) =>
  fill(template, {
    data: formatDataAmount(order.plan.metadata.dataAmount, locale),
    validity: formatValidity(order.plan.validity, order.plan.validityUnit, locale),
  });

export const formatOrderDate = (iso: string, locale: Locale, dateStyle: 'medium' | 'long' = 'medium') =>
  new Intl.DateTimeFormat(locale, { dateStyle }).format(new Date(iso));

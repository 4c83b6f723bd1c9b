import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/**
 * The back office's words for money in several currencies (issue 34), in its two languages. Kept
 * beside the feature for now; their place is the ops namespace (locales/en/ops.json and
 * locales/de/ops.json, sections `order` and `dashboard`), where they move when those files are free.
 */
const CURRENCY_MESSAGES = {
  en: {
    wholesaleConverted: "Wholesale cost (at the catalogue's rate)",
    stripeFee: 'Stripe fee',
    settled: 'Settled by Stripe',
    notReported: 'not reported yet',
    inEur: 'In EUR across all currencies: what Stripe settled, else converted at the ECB rates of {{date}}.',
    estimatedOrders: 'of which converted at the ECB rate',
    byCurrency: 'By currency paid in',
    currency: 'Currency',
    line: '{{orders}} · {{gross}}',
  },
  de: {
    wholesaleConverted: 'Einkaufspreis (zum Katalogkurs)',
    stripeFee: 'Stripe-Gebühr',
    settled: 'Von Stripe gutgeschrieben',
    notReported: 'noch nicht gemeldet',
    inEur: 'In EUR über alle Währungen: was Stripe gutgeschrieben hat, sonst zu den EZB-Kursen vom {{date}} umgerechnet.',
    estimatedOrders: 'davon zum EZB-Kurs umgerechnet',
    byCurrency: 'Nach Zahlungswährung',
    currency: 'Währung',
    line: '{{orders}} · {{gross}}',
  },
} as const satisfies Record<'en' | 'de', Record<string, string>>;

/** Everything the back office says, in English or German (the ops namespace has only those). */
export type OpsMessages = NamespaceMessages<'ops'> & { currencies: { [K in keyof (typeof CURRENCY_MESSAGES)['en']]: string } };

export function opsMessages(locale: Locale): OpsMessages {
  return { ...namespaceMessages(locale, 'ops'), currencies: locale === 'de' ? CURRENCY_MESSAGES.de : CURRENCY_MESSAGES.en };
}

import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/** The account namespace (profile, order history): what the account islands' builders pick from. */
export type AccountNamespace = NamespaceMessages<'account'>;

export function accountNamespace(locale: Locale): AccountNamespace {
  return namespaceMessages(locale, 'account');
}

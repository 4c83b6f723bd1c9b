import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/** Everything the back office says, in English or German (the ops namespace has only those). */
export type OpsMessages = NamespaceMessages<'ops'>;

export function opsMessages(locale: Locale): OpsMessages {
  return namespaceMessages(locale, 'ops');
}
